#!/usr/bin/env bash
# Runs every ChatStream fuzz target briefly; exits non-zero on any crash, leak, timeout,
# out-of-memory or sanitizer report. Called from .ci/run.
#
#   Fuzz/ci.sh [SECONDS_PER_TARGET]     (default 60; or FUZZ_SECONDS)
#
# Reproducible: each target starts from an empty work corpus (its seeds only, as on a fresh clone),
# with libFuzzer's seed fixed (FUZZ_SEED, default 1), Swift's hashing deterministic, and at most
# the number of runs below, so a CI run repeats one run made here on the same code: it runs those
# inputs in the same order, or a prefix of them if the machine is slower than the time allows.
# Exploring (random seeds, growing corpora, long runs) is Fuzz/run.sh's job; see Fuzz/README.md.
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
seed=${FUZZ_SEED:-1}
# Runs per target: about what 60 s gives on a 2-core machine (seed corpus included).
declare -A runs=([FuzzSSE]=12000 [FuzzFraming]=100000 [FuzzJSON]=40000 [FuzzDialects]=3000
    [FuzzHistory]=250000 [FuzzLiveEvents]=12000)
work_root=$(mktemp -d)
trap 'rm -rf "$work_root"' EXIT

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
    if ! SKIP_BUILD=1 FUZZ_WORK_DIR="$work_root/$target" SWIFT_DETERMINISTIC_HASHING=1 \
        Fuzz/run.sh "$target" "$seconds" -seed="$seed" -runs="${runs[$target]}"; then
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
