#!/usr/bin/env bash
# Counts the public surface of the parsing core, so the figures of issue 29 can be reproduced:
#
#   entry points   public functions whose base name is feed, decode, finish or parse (any
#                  suffix: feedUnits, finishViews, parseValue...) in ChatStream, ChatStreamJSON and
#                  ChatStreamFraming;
#   declarations   every public symbol `import ChatStream` brings: ChatStream's own symbol graph
#                  and its extensions of other modules' types (the stdlib's, Framing's, JSON's).
#
# The symbol graphs come from the debug build's modules (build it first: `swift build`), as in
# scripts/docs.sh. Usage: scripts/count-api.sh [--build-path .build] [--list]
#   --list  also prints each entry point (module, kind, path) and each declaration's path.
set -euo pipefail
cd "$(dirname "$0")/.."
build_path=".build"
list=0
while [[ $# -gt 0 ]]; do
    case "$1" in
    --build-path) build_path="$2"; shift 2 ;;
    --list) list=1; shift ;;
    *) echo "usage: scripts/count-api.sh [--build-path .build] [--list]" >&2; exit 2 ;;
    esac
done

bin=$(swift build --build-path "$build_path" --show-bin-path)
modules="$bin/Modules"
[[ -d "$modules" ]] || modules="$bin"
triple=$(swift -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -1)
out="$build_path/api-count"
rm -rf "$out"
for module in ChatStream ChatStreamJSON ChatStreamFraming; do
    mkdir -p "$out/$module"
    swift symbolgraph-extract -module-name "$module" -target "$triple" -I "$modules" -I Sources/CYajl \
        -minimum-access-level public -skip-synthesized-members -output-dir "$out/$module" >/dev/null
done

python3 - "$out" "$list" <<'EOF'
import json, os, re, sys
out, listing = sys.argv[1], sys.argv[2] == "1"
entry = re.compile(r"^(feed|decode|finish|parse)")
def symbols(module):
    for name in sorted(os.listdir(os.path.join(out, module))):
        graph = json.load(open(os.path.join(out, module, name)))
        for symbol in graph["symbols"]:
            if symbol["accessLevel"] == "public" and not symbol["names"]["title"].startswith("_"):
                yield name, symbol
entries = []
for module in ["ChatStream", "ChatStreamJSON", "ChatStreamFraming"]:
    for _, symbol in symbols(module):
        kind = symbol["kind"]["identifier"]
        if kind.endswith(("func", "method")) and entry.match(symbol["names"]["title"]):
            entries.append((module, kind.split(".")[-1], ".".join(symbol["pathComponents"])))
declarations = [".".join(s["pathComponents"]) for _, s in symbols("ChatStream")]
if listing:
    for e in sorted(entries): print("entry", *e)
    for d in sorted(declarations): print("declaration", d)
print(f"public entry points (feed/decode/finish/parse*) in the three core modules: {len(entries)}")
print(f"public declarations of `import ChatStream` (ChatStream's symbol graphs): {len(declarations)}")
EOF
