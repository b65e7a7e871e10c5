#!/usr/bin/env bash
# Runs the chatstream CLI (installing libyajl-dev first when missing).
# With no arguments it chats with its embedded local server: `./scripts/chatstream.sh`.
#
# On Linux the CLI is built with the Swift runtime and Foundation linked statically (its own
# build folder, .build/static), and without libcurl among the libraries loaded at start (the CCurl
# target opens it at the first request; scripts/elf-drop-needed.py says why the entry FoundationNetworking
# adds must be removed after linking): the dynamic loader's work on those shared libraries was most
# of a short command's time (see BENCHMARKS.md, "Start-up"). Elsewhere it is a plain release build.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
if [ $# -eq 0 ]; then set -- chat "Hello"; fi
if [ "$(uname)" = Linux ]; then
    swift build -c release --product chatstream --static-swift-stdlib --build-path .build/static >&2
    binary=.build/static/release/chatstream
    # Only when nothing in the binary takes a symbol from libcurl (then it runs the same, faster).
    if command -v python3 >/dev/null && command -v nm >/dev/null \
        && ! nm -D --undefined-only "$binary" | grep -q ' curl_'; then
        python3 scripts/elf-drop-needed.py "$binary" libcurl.so.4 2>/dev/null || true
    fi
    exec "$binary" "$@"
fi
swift run -c release chatstream "$@"
