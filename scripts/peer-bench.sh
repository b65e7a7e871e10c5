#!/usr/bin/env bash
# peer-bench.sh PEER [ROUNDS] [RUNS]: times a peer decoder against `chatstream replay` on the bench's
# 1 MB payloads of the SSE formats, paired in the same sitting (BENCHMARKS.md, "Peer:
# swift-openapi-runtime").
#
# PEER is an executable built elsewhere (nothing of a peer is in this repository) that takes
# `FORMAT FILE`, decodes FILE and prints a line ending in "N text bytes". This script builds only
# ChatStream (release), writes the payloads with `chatstream-bench --write-payload`, checks that
# both sides read the same text, then for each of ROUNDS rounds (default 5) and each format runs
# one hyperfine invocation of four commands, RUNS runs each (default 10, after 2 warm-ups): the peer
# and ChatStream on the payload, and both on a small complete stream of the same format (the
# payload without its text deltas: process start, file read and a handful of events). A round's
# ratios are peer / ChatStream: wall-time medians, whole process and net of the small stream, and
# mean CPU time (user + system) net of the small stream. Then it
# counts instructions once under callgrind (see the table's note). Needs hyperfine, valgrind, python3.
set -euo pipefail

peer=${1:?usage: scripts/peer-bench.sh PEER [ROUNDS] [RUNS]}
rounds=${2:-5}
runs=${3:-10}
peer=$(realpath "$peer")
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
swift build -c release --product chatstream-bench >/dev/null
swift build -c release --product chatstream >/dev/null
bench=$root/.build/release/chatstream-bench
chatstream=$root/.build/release/chatstream
work=$(mktemp -d /tmp/peer-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
formats=(ui-message-stream openai-chat anthropic openai-responses)

for format in "${formats[@]}"; do
    "$bench" --write-payload "$format" "$work/$format.sse"
    # The small stream: every event of the payload but the text deltas.
    python3 - "$format" "$work/$format.sse" "$work/$format-small.sse" <<'EOF'
import sys
marker = {"ui-message-stream": b'"type":"text-delta"', "openai-chat": b'"delta":{"content":',
          "anthropic": b'"type":"content_block_delta"', "openai-responses": b'"type":"response.output_text.delta"'}
events = open(sys.argv[2], "rb").read().split(b"\n\n")
open(sys.argv[3], "wb").write(b"\n\n".join(e for e in events if marker[sys.argv[1]] not in e))
EOF
    expected=$("$chatstream" replay --format "$format" --chunk-size 4096 --output text "$work/$format.sse" | wc -c)
    expected=$((expected - 1))  # replay ends the text with a newline
    got=$("$peer" "$format" "$work/$format.sse" | sed -n 's/.* \([0-9]*\) text bytes$/\1/p')
    if [ "$got" != "$expected" ]; then
        echo "peer-bench: $format: the peer read $got text bytes, ChatStream $expected" >&2
        exit 1
    fi
    echo "$format: both read $expected text bytes"
done

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
    for format in "${formats[@]}"; do
        replay="$chatstream replay --format $format --chunk-size 4096 --output text"
        hyperfine -N --style none --warmup 2 --runs "$runs" --export-json "$work/$format-$round.json" \
            "$peer $format $work/$format.sse" "$replay $work/$format.sse" \
            "$peer $format $work/$format-small.sse" "$replay $work/$format-small.sse" >/dev/null 2>>"$work/hyperfine.log"
    done
    echo "round $round done, load $(cut -d' ' -f1-3 /proc/loadavg)"
done

python3 - "$work" "$rounds" "$runs" "${formats[@]}" <<'EOF'
import json, statistics, sys
work, rounds, runs, formats = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
print(f"\nwall time (median of each command's runs) and CPU time (mean user + system), {rounds} rounds of {runs} runs")
print("per command; each ratio (peer / ChatStream) is the median of the rounds' ratios, their range in brackets")
print("| format | peer ms | ChatStream ms | peer ms, small | ChatStream ms, small | wall ratio, whole process | wall ratio, net of the small stream | CPU ratio, net of the small stream |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for f in formats:
    rows, whole, net, cpu = [], [], [], []
    for r in range(1, rounds + 1):
        res = json.load(open(f"{work}/{f}-{r}.json"))["results"]
        p, c, ps, cs = (statistics.median(x["times"]) * 1000 for x in res)
        pu, cu, psu, csu = ((x["user"] + x["system"]) * 1000 for x in res)
        rows.append((p, c, ps, cs))
        whole.append(p / c)
        net.append((p - ps) / (c - cs))
        cpu.append((pu - psu) / (cu - csu))
    med = lambda i: statistics.median(row[i] for row in rows)
    span = lambda xs: f"{statistics.median(xs):.1f} ({min(xs):.1f}-{max(xs):.1f})"
    print(f"| {f} | {med(0):.1f} | {med(1):.1f} | {med(2):.1f} | {med(3):.1f} | {span(whole)} | {span(net)} | {span(cpu)} |")
EOF

echo
echo "instructions (callgrind; ratio = peer / ChatStream): the peer's whole program net of its small stream,"
echo "against the bench's own profile of ChatStream's typed events on the same bytes (FORMAT-typed net of"
echo "FORMAT-none, the payload's generation; the chatstream CLI itself does not run under valgrind 3.19 here)"
echo "| format | peer | peer, small | ChatStream typed | ChatStream MessageDecoder | ratio to typed | ratio to MessageDecoder |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
count() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for format in "${formats[@]}"; do
    case $format in
        ui-message-stream) typed=typed message=message none=none ;;
        openai-chat) typed=openai-typed message=openai-message none=openai-none ;;
        anthropic) typed=anthropic-typed message=anthropic-message none=anthropic-none ;;
        openai-responses) typed=responses-typed message=responses-message none=responses-none ;;
    esac
    p=$(count "$peer" "$format" "$work/$format.sse")
    ps=$(count "$peer" "$format" "$work/$format-small.sse")
    t=$(count "$bench" --profile "$typed")
    m=$(count "$bench" --profile "$message")
    n=$(count "$bench" --profile "$none")
    python3 -c "p,ps,t,m,n=$p,$ps,$t,$m,$n; print(f'| $format | {p/1e6:.1f}M | {ps/1e6:.1f}M | {(t-n)/1e6:.1f}M | {(m-n)/1e6:.1f}M | {(p-ps)/(t-n):.1f} | {(p-ps)/(m-n):.1f} |')"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
