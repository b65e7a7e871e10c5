#!/usr/bin/env bash
# Builds and runs one ChatStream fuzz target.
#
#   Fuzz/run.sh TARGET SECONDS [extra libFuzzer flags...]
#
# TARGET is FuzzSSE, FuzzFraming, FuzzJSON, FuzzDialects, FuzzHistory or FuzzLiveEvents. The work
# corpus grows in Fuzz/corpus-work/TARGET (gitignored), seeded from Fixtures/ and ../shared/ by
# Fuzz/make-seeds.py;
# crashes, leaks and timeouts land in Fuzz/artifacts/TARGET/. Set SKIP_BUILD=1 to reuse the build.
# Prints executions per second and the final coverage (cov/ft) at the end; exits non-zero when
# libFuzzer found a problem. FUZZ_BUILD_PATH overrides the build folder (default .build-fuzz);
# FUZZ_RUN_NAME suffixes the log name (two runs of one target at once); FUZZ_WORK_DIR replaces
# the work corpus folder (ci.sh gives each target an empty one, as a fresh clone has).
set -euo pipefail

target=${1:?usage: Fuzz/run.sh TARGET SECONDS}
seconds=${2:?usage: Fuzz/run.sh TARGET SECONDS}
shift 2
cd "$(dirname "$0")/.."
build_path=${FUZZ_BUILD_PATH:-.build-fuzz}

case $target in
    FuzzSSE) dict=sse; max_len=16384 ;;
    FuzzFraming) dict=framing; max_len=8192 ;;
    FuzzJSON) dict=json; max_len=8192 ;;
    FuzzDialects) dict=dialects; max_len=16384 ;;
    FuzzHistory) dict=history; max_len=8192 ;;
    FuzzLiveEvents) dict=live; max_len=16384 ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
esac

if [[ -z ${SKIP_BUILD:-} ]]; then
    CHATSTREAM_FUZZ=1 swift build --product "$target" --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address \
        --build-path "$build_path" 2>&1 | grep -v -e 'ld.gold: warning' -e '^$' | tail -3
fi
binary=$(CHATSTREAM_FUZZ=1 swift build --product "$target" --build-path "$build_path" --show-bin-path \
    --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address)/$target

work=${FUZZ_WORK_DIR:-Fuzz/corpus-work/$target}
seeds=Fuzz/corpus-work/$target-seeds${FUZZ_RUN_NAME:+-$FUZZ_RUN_NAME}
artifacts=Fuzz/artifacts/$target
mkdir -p "$work" "$artifacts"
rm -rf "$seeds"
python3 Fuzz/make-seeds.py "$target" "$seeds" >/dev/null

log=Fuzz/artifacts/$target${FUZZ_RUN_NAME:+-$FUZZ_RUN_NAME}.log
status=0
SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$binary" "$work" "$seeds" \
    -dict="Fuzz/dict/$dict.dict" -max_len=$max_len -rss_limit_mb=2048 -timeout=25 \
    -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/" "$@" >"$log" 2>&1 || status=$?

tail -n 30 "$log" | grep -E 'ERROR|SUMMARY|Fatal error|fuzz invariant|Test unit written' || true
last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
seconds_run=$(grep -E '^stat::average_exec_per_sec' "$log" | awk '{print $2}')
cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
corpus=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$last")
echo "$target: ${seconds}s, ${runs:-?} runs, ${seconds_run:-?} exec/s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corpus:-?}, exit $status (log $log)"
exit $status
