#!/usr/bin/env bash
# Runs the chatstream CLI (installing libyajl-dev first when missing).
# With no arguments it chats with its embedded local server: `./scripts/chatstream.sh`.
#
# On Linux the CLI is built with the Swift runtime and Foundation linked statically (its own
# build folder, .build/static): the dynamic loader's work on their shared libraries was most of a
# short command's time (a one-event `replay`: about 22 ms of CPU dynamic, 13 ms static; see
# BENCHMARKS.md). Elsewhere it is a plain release build.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
if [ $# -eq 0 ]; then set -- chat "Hello"; fi
if [ "$(uname)" = Linux ]; then
    swift build -c release --product chatstream --static-swift-stdlib --build-path .build/static >&2
    exec .build/static/release/chatstream "$@"
fi
swift run -c release chatstream "$@"
