#!/usr/bin/env bash
# Runs the chatstream CLI (installing libyajl-dev first when missing).
# With no arguments it chats with its embedded local server: `./scripts/chatstream.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
if [ $# -eq 0 ]; then set -- chat "Hello"; fi
swift run -c release chatstream "$@"
