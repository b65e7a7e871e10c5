#!/usr/bin/env bash
# Builds the DocC catalogs of ChatStreamClient, ChatStream, ChatStreamLive and ChatStreamServer with the
# toolchain's docc, warnings treated as errors (a broken ``Symbol`` link in a doc comment or an
# article fails it), and fails when a top-level public symbol has no doc comment (an import
# between a `///` and its declaration detaches it without a word from docc). Symbol graphs come from the compiler (swift symbolgraph-extract over the modules of the debug build
# that scripts/test.sh made, brought up to date first: a no-op in CI), so no plugin is needed.
#
# When it fails: the message names the file and line. Fix the link (``Type/member(label:)``, as
# the symbol is spelled in this module; a symbol of another module is written in plain `code`,
# not as a link), or the article's Markdown.
#
# Output: .build/docs/<Module>.doccarchive. Usage: scripts/docs.sh [--build-path .build]
set -euo pipefail
cd "$(dirname "$0")/.."
build_path=".build"
[[ "${1:-}" == "--build-path" ]] && build_path="$2"

docc=$(command -v docc || true)
[[ -z "$docc" ]] && docc="$(dirname "$(command -v swift)")/docc"
[[ -x "$docc" ]] || { echo "docs: no docc beside swift ($docc)" >&2; exit 1; }

bin=$(swift build --build-path "$build_path" --show-bin-path)
modules="$bin/Modules"
[[ -d "$modules" ]] || modules="$bin"
# Doc comments reach the symbol graphs through the compiled modules: build them (incremental).
swift build --build-path "$build_path" --target ChatStreamClient >/dev/null
swift build --build-path "$build_path" --target ChatStreamServer >/dev/null
triple=$(swift -print-target-info | sed -n 's/.*"triple": "\(.*\)".*/\1/p' | head -1)

for module in ChatStreamClient ChatStream ChatStreamLive ChatStreamServer; do
    graphs="$build_path/docs/symbol-graphs/$module"
    rm -rf "$graphs"
    mkdir -p "$graphs"
    swift symbolgraph-extract -module-name "$module" -target "$triple" -I "$modules" \
        -I Sources/CYajl -I "$bin/CSQLite.build" -I "$bin/CCurl.build" -I "$bin/CCrypto.build" -I Sources/CEpoll -minimum-access-level public -skip-synthesized-members -output-dir "$graphs"
    "$docc" convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "chatstream.$module" \
        --output-path "$build_path/docs/$module.doccarchive" --warnings-as-errors || {
        echo "docs: docc found the problems above in $module (each names a file and line: a /// comment" >&2
        echo "  or an article). A link to a symbol of another module cannot resolve: write it as plain" >&2
        echo "  \`code\`. A parameter list must name every parameter or none. Re-run ./scripts/docs.sh." >&2
        exit 1
    }
    # A top-level public symbol without a doc comment is, in this project, one whose `///` an
    # import or a blank line cut off from it (docc says nothing of a symbol without docs).
    python3 - "$graphs" "$module" <<'EOF'
import glob, json, sys
graphs, module = sys.argv[1], sys.argv[2]
bare = sorted({".".join(s["pathComponents"]) for f in glob.glob(graphs + "/*.symbols.json")
               for s in json.load(open(f))["symbols"] if len(s["pathComponents"]) == 1 and "docComment" not in s})
if bare:
    print(f"docs: {module}: public types and functions without a doc comment: {', '.join(bare)}", file=sys.stderr)
    print("  (is an import or a blank line between the `///` and the declaration?)", file=sys.stderr)
    sys.exit(1)
EOF
done
echo "docs: built ChatStreamClient, ChatStream, ChatStreamLive and ChatStreamServer.doccarchive in $build_path/docs/"
