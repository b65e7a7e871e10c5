#!/usr/bin/env bash
# Builds the chatstream CLI for a fast start and prints the binary's path (used by
# scripts/chatstream.sh and by the bench's start-up figures).
#
# On Linux: the Swift runtime and Foundation linked statically (-static-swift-stdlib) in a build
# folder of its own (.build/static); libstdc++ linked statically too when the toolchain's
# libstdc++.a is found (a dependency fewer for the dynamic loader to relocate and bind); a
# position-dependent executable (-no-pie: its 84,000 relative relocations, and the copy-on-write
# page faults they cost, go away); and libcurl's entry dropped from the libraries loaded at start
# (the CCurl target opens it at the first request; scripts/elf-drop-needed.py says why the entry
# must be removed after linking). SQLite and libcrypto are opened at first use by CSQLite and
# CCrypto. BENCHMARKS.md ("Start-up") has the figures. Elsewhere: a plain release build.
set -euo pipefail
cd "$(dirname "$0")/.."
product=${1:-chatstream}
if [ "$(uname)" != Linux ]; then
    swift build -c release --product "$product" >&2
    echo "$(swift build -c release --show-bin-path)/$product"
    exit 0
fi
flags=(-Xswiftc -Xclang-linker -Xswiftc -no-pie)
# Generic types' metadata through their accessors rather than from mangled names: a mangled name
# is decoded at run time, and checking its generic requirements makes the runtime scan every
# conformance record of the (static) binary once, about a third of a short command's instructions.
flags+=(-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)
cxx=$(clang -print-file-name=libstdc++.a 2>/dev/null || true)
if [ -f "$cxx" ]; then
    mkdir -p .build/static-cxx
    ln -sf "$cxx" .build/static-cxx/libstdc++.a
    # Searched before the compiler's own folders, where libstdc++.so would be found first.
    flags+=(-Xswiftc "-L$PWD/.build/static-cxx")
fi
# SQLite linked in when Debian's static library is there (libsqlite3-dev ships it): CSQLite then
# calls it instead of opening libsqlite3.so.0 at the first database (CSQLite.c).
sqlite=$(clang -print-file-name=libsqlite3.a 2>/dev/null || true)
if [ -f "$sqlite" ]; then
    flags+=(-Xcc -DCHATSTREAM_SQLITE_LINKED)
    flags+=(-Xlinker --whole-archive -Xlinker "$sqlite" -Xlinker --no-whole-archive)
fi
# --disable-local-rpath: nothing is loaded from the binary's folder, and an $ORIGIN run path makes
# the loader try a dozen paths there before each system library.
swift build -c release --product "$product" --static-swift-stdlib --disable-local-rpath --build-path .build/static \
    "${flags[@]}" >&2
binary=.build/static/release/$product
# Only when nothing in the binary takes a symbol from libcurl (then it runs the same, faster).
if command -v python3 >/dev/null && command -v nm >/dev/null \
    && ! nm -D --undefined-only "$binary" | grep -q ' curl_'; then
    python3 scripts/elf-drop-needed.py "$binary" libcurl.so.4 >/dev/null 2>&1 || true
fi
echo "$PWD/$binary"
