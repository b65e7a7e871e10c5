#!/usr/bin/env bash
# Builds yajl from its upstream release tarball into CYajl.xcframework, for Apple platforms whose
# SDK ships no yajl (iOS, tvOS, watchOS, visionOS; macOS can use Homebrew's instead). Needs macOS
# with Xcode (xcrun, clang, xcodebuild) and curl. Not run by CI: this repository's CI is Linux.
#
# Usage: scripts/build-yajl-xcframework.sh [OUTPUT_DIR]      (default: Frameworks, in the package)
# Then:  CHATSTREAM_YAJL_XCFRAMEWORK=Frameworks/CYajl.xcframework swift build   (or open the package
#        in Xcode from a shell with that variable set): Package.swift then uses the XCFramework as
#        the binary target CYajl instead of the system library. The path is relative to the package
#        root.
#
# What it does: downloads yajl's release tarball (the version and SHA-256 below), checks the hash,
# compiles yajl's nine C files with clang for each SDK slice (device and simulator), makes one static
# library per slice (lipo joins the simulator's two architectures), and calls
# `xcodebuild -create-xcframework` with a Headers folder holding yajl's API headers, ChatStream's
# shim (Sources/CYajl/shim.h) and a module map naming the module CYajl, as the system library does.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
output="${1:-Frameworks}"
version="2.1.0"
# The tarball's SHA-256, as Homebrew's yajl formula pins it for the same URL.
sha256="3fb73364a5a30efe615046d07e6db9d09fd2b41c763c5f7d3bfb121cd5c5ac5a"
url="https://github.com/lloyd/yajl/archive/refs/tags/${version}.tar.gz"

command -v xcodebuild >/dev/null || { echo "build-yajl-xcframework: needs Xcode's xcodebuild (macOS)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

curl -fsSL "$url" -o "$work/yajl.tar.gz"
actual=$(shasum -a 256 "$work/yajl.tar.gz" | cut -d' ' -f1)
if [[ "$actual" != "$sha256" ]]; then
    echo "build-yajl-xcframework: $url has SHA-256 $actual, expected $sha256" >&2
    exit 1
fi
tar -xzf "$work/yajl.tar.gz" -C "$work"
src="$work/yajl-$version/src"

# The headers: yajl's API as <yajl/...>, yajl_version.h generated from its CMake template.
headers="$work/Headers"
mkdir -p "$headers/yajl"
cp "$src"/api/yajl_common.h "$src"/api/yajl_gen.h "$src"/api/yajl_parse.h "$src"/api/yajl_tree.h "$headers/yajl/"
IFS=. read -r major minor micro <<<"$version"
sed -e "s/\${YAJL_MAJOR}/$major/" -e "s/\${YAJL_MINOR}/$minor/" -e "s/\${YAJL_MICRO}/$micro/" \
    "$src/api/yajl_version.h.cmake" >"$headers/yajl/yajl_version.h"
cp "$root/Sources/CYajl/shim.h" "$headers/shim.h"
cat >"$headers/module.modulemap" <<'MAP'
module CYajl {
    header "shim.h"
    export *
}
MAP

# One static library per SDK slice: "SDK target-OS(-simulator) architectures" (the platforms and
# minimum versions of Package.swift; macOS too, for a build that avoids Homebrew).
slices=(
    "iphoneos ios17.0 arm64"
    "iphonesimulator ios17.0-simulator arm64 x86_64"
    "appletvos tvos17.0 arm64"
    "appletvsimulator tvos17.0-simulator arm64 x86_64"
    "watchos watchos10.0 arm64 arm64_32"
    "watchsimulator watchos10.0-simulator arm64 x86_64"
    "xros xros1.0 arm64"
    "xrsimulator xros1.0-simulator arm64"
    "macosx macos14.0 arm64 x86_64"
)
arguments=()
for slice in "${slices[@]}"; do
    read -r sdk os archs <<<"$slice"
    sysroot=$(xcrun --sdk "$sdk" --show-sdk-path 2>/dev/null) || {
        echo "build-yajl-xcframework: SDK $sdk not installed, skipped" >&2
        continue
    }
    libraries=()
    for arch in $archs; do
        objects="$work/obj/$sdk/$arch"
        mkdir -p "$objects"
        for file in yajl yajl_alloc yajl_buf yajl_encode yajl_gen yajl_lex yajl_parser yajl_tree yajl_version; do
            xcrun --sdk "$sdk" clang -c -O2 -target "$arch-apple-$os" -isysroot "$sysroot" -I "$headers" -I "$src" \
                "$src/$file.c" -o "$objects/$file.o"
        done
        xcrun --sdk "$sdk" libtool -static -o "$objects/libyajl.a" "$objects"/*.o
        libraries+=("$objects/libyajl.a")
    done
    mkdir -p "$work/lib/$sdk"
    xcrun lipo -create "${libraries[@]}" -output "$work/lib/$sdk/libyajl.a"
    arguments+=(-library "$work/lib/$sdk/libyajl.a" -headers "$headers")
done
[[ ${#arguments[@]} -gt 0 ]] || { echo "build-yajl-xcframework: no SDK found" >&2; exit 1; }

mkdir -p "$output"
rm -rf "$output/CYajl.xcframework"
xcodebuild -create-xcframework "${arguments[@]}" -output "$output/CYajl.xcframework"
echo "build-yajl-xcframework: $output/CYajl.xcframework (yajl $version)."
echo "  Use it: CHATSTREAM_YAJL_XCFRAMEWORK=$output/CYajl.xcframework swift build"
