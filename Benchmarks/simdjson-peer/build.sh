#!/usr/bin/env bash
# Builds the simdjson On-Demand baseline of `chatstream-bench --simdjson` (see simdjson_peer.cpp):
# installs Debian's libsimdjson-dev and g++ when they are missing (as root, or with sudo), then
# compiles .build/simdjson-peer/simdjson-peer with -O3 -march=native (simdjson's best kernels for
# this CPU). Prints the binary's path. A baseline for the bench only: the library never links it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/.build/simdjson-peer
need=()
[ -f /usr/include/simdjson.h ] || need+=(libsimdjson-dev)
command -v g++ >/dev/null || need+=(g++)
if ((${#need[@]})); then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
mkdir -p "$out"
g++ -std=c++17 -O3 -march=native -DNDEBUG -o "$out/simdjson-peer" "$root/Benchmarks/simdjson-peer/simdjson_peer.cpp" \
    $(pkg-config --cflags --libs simdjson 2>/dev/null || echo -lsimdjson)
echo "$out/simdjson-peer"
