#!/usr/bin/env bash
# Runs the chatstream CLI (installing libyajl-dev first when missing).
# With no arguments it chats with its embedded local server: `./scripts/chatstream.sh`.
#
# The binary is built for a fast start by scripts/build-cli.sh (on Linux: the Swift runtime and
# libstdc++ linked statically, position-dependent, libcurl and SQLite opened at first use).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
if [ $# -eq 0 ]; then set -- chat "Hello"; fi
binary=$(./scripts/build-cli.sh)
exec "$binary" "$@"
