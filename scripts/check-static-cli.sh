#!/usr/bin/env bash
# Checks the fast-start CLI that scripts/build-cli.sh builds (the README's main job runs it): a chat
# on its embedded server, then the conversation listed from the history store, with SQLite linked
# into the binary rather than opened at run time (the dynamic loader must never load libsqlite3.so;
# LD_DEBUG=libs tells). Run by .ci/run; fails when either part does not hold.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(uname)" != Linux ]; then
    echo "check-static-cli: Linux only" >&2
    exit 0
fi
if [ ! -f "$(clang -print-file-name=libsqlite3.a)" ]; then
    echo "check-static-cli: libsqlite3.a is missing (apt-get install libsqlite3-dev)" >&2
    exit 1
fi
binary=$(./scripts/build-cli.sh)
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
if ! reply=$(HOME=$home XDG_DATA_HOME=$home LD_DEBUG=libs "$binary" chat "static check" 2>"$home/stderr.txt"); then
    echo "check-static-cli: chat failed:" >&2
    grep -v "^ *[0-9]*:" "$home/stderr.txt" >&2 || true
    exit 1
fi
if ! grep -q "You said: static check" <<<"$reply"; then
    echo "check-static-cli: unexpected reply: $reply" >&2
    exit 1
fi
if grep -q "libsqlite3" "$home/stderr.txt"; then
    echo "check-static-cli: the CLI loaded libsqlite3.so instead of its linked SQLite:" >&2
    grep "libsqlite3" "$home/stderr.txt" >&2
    exit 1
fi
listed=$(HOME=$home XDG_DATA_HOME=$home "$binary" conversations --source local)
if [ "$(grep -c "ongoing" <<<"$listed")" != 1 ]; then
    echo "check-static-cli: the history store does not list the one conversation: $listed" >&2
    exit 1
fi
echo "check-static-cli: ok ($binary)"
