#!/usr/bin/env bash
# Loopback throughput of `chatstream serve`: requests/s and p50/p99 latency for a conversation list
# and a streamed chat at 1, 16, 64 and 256 connections (wrk, DURATION seconds each, 2 threads).
# usage: scripts/loadtest/throughput.sh PATH/TO/chatstream [PORT] [DURATION]
# wrk connects from one address, so a server with a per-address cap gets SERVE_FLAGS such as
# "--max-connections 600 --max-connections-per-address 600" (the caps are for hostile peers).
set -euo pipefail
bin=$1; port=${2:-18787}; duration=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
"$bin" serve --port "$port" --delay-ms 0 ${SERVE_FLAGS:-} 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
for i in $(seq 20); do
    curl -s -o /dev/null -H 'X-Device-Id: bench-list' -H 'Content-Type: application/json' \
        -d "{\"message\":\"seed $i\",\"stream\":false}" "http://127.0.0.1:$port/api/sdk/agents/demo-agent/chat"
done
printf '%-6s %5s %10s %10s %10s %8s\n' route conns req/s p50 p99 errors
for route in list chat; do
    for c in 1 16 64 256; do
        threads=$(( c < 2 ? 1 : 2 ))
        out=$(timeout $((duration + 20)) wrk -t"$threads" -c"$c" -d"${duration}s" --timeout 10s --latency \
            -s "$here/$route.lua" "http://127.0.0.1:$port" 2>&1)
        rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
        p50=$(awk '$1=="50%" {print $2}' <<<"$out")
        p99=$(awk '$1=="99%" {print $2}' <<<"$out")
        errs=$(awk '/Non-2xx|Socket errors/ {printf "%s ", $0}' <<<"$out")
        printf '%-6s %5s %10s %10s %10s %s\n' "$route" "$c" "$rps" "$p50" "$p99" "${errs:-0}"
    done
done
