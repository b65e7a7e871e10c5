#!/usr/bin/env bash
# Runs the whole test suite (installing libyajl-dev first when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
swift build --build-tests
# At most 8 tests at once (Swift Testing starts every test at once otherwise): on a two-core
# machine the whole suite at once starved tests that wait on servers, timers and child processes
# for minutes. Tests that block a thread run on threads of their own (`.blockingAllowed`,
# Tests/TestSupport/BlockingAllowed.swift). Set the variable to change the width.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}"
swift test --skip-build "$@"
