#!/usr/bin/env bash
# Runs every ChatStream fuzz target briefly; exits non-zero on any crash, leak, timeout,
# out-of-memory or sanitizer report. Called from .ci/run.
#
#   Fuzz/ci.sh [SECONDS_PER_TARGET]     (default 60; or FUZZ_SECONDS)
#
# Budget: a clean build of the six targets takes about 2-3 minutes on 2 cores (measured and
# printed below), then 6 x 60 s of fuzzing: about 10 minutes in all. A crashing input is left in
# Fuzz/artifacts/<Target>/; copy it to Tests/ChatStreamTests/FuzzRegressions/<Target>-<what>.bin
# so FuzzRegressionTests replays it forever.
set -uo pipefail
cd "$(dirname "$0")/.."
build_path=${FUZZ_BUILD_PATH:-.build-fuzz}

seconds=${1:-${FUZZ_SECONDS:-60}}
targets=(FuzzSSE FuzzFraming FuzzJSON FuzzDialects FuzzHistory FuzzLiveEvents)

start=$(date +%s)
for target in "${targets[@]}"; do
    if ! CHATSTREAM_FUZZ=1 swift build --product "$target" --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address \
        --build-path "$build_path" >"Fuzz/artifacts-build-$target.log" 2>&1; then
        grep -E 'error' "Fuzz/artifacts-build-$target.log" | head -20
        echo "fuzz ci: building $target failed (log Fuzz/artifacts-build-$target.log)" >&2
        exit 1
    fi
    rm -f "Fuzz/artifacts-build-$target.log"
done
built=$(date +%s)
echo "fuzz ci: built ${#targets[@]} targets in $((built - start)) s"

failed=()
for target in "${targets[@]}"; do
    if ! SKIP_BUILD=1 Fuzz/run.sh "$target" "$seconds"; then
        failed+=("$target")
        ls Fuzz/artifacts/"$target"/ 2>/dev/null | sed "s|^|  Fuzz/artifacts/$target/|"
    fi
done
echo "fuzz ci: total $(( $(date +%s) - start )) s"
if ((${#failed[@]})); then
    echo "fuzz ci: FAILED: ${failed[*]} (add each input above to Tests/ChatStreamTests/FuzzRegressions/)" >&2
    exit 1
fi
echo "fuzz ci: all targets clean"
