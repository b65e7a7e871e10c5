#!/usr/bin/env bash
# Runs the whole test suite (installing libyajl-dev first when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
swift build --build-tests
swift test --skip-build "$@"
