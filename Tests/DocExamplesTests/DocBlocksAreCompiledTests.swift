// Every ```swift block of the README and of the DocC catalogs, and every ``` block of a `///`
// comment in Sources/ (symbol documentation, Swift unless its fence names another language),
// must be compiled: each must appear, verbatim, in a source file of this test target
// (Tests/DocExamplesTests). This test finds the blocks and fails, naming the block and what to
// do, for any that is not there.
//
// The convention (also in Tests/DocExamplesTests/README.md):
// - A block's lines appear as consecutive lines of one file here, all indented alike (a fragment
//   goes inside a function whose parameters supply what the fragment uses).
// - A block's `import` lines (`@_spi(Dialects) import` too) are not matched in place: that file must import the same modules.
// - A block that cannot compile here (a package manifest, a SwiftUI view on Linux is fine: wrap it
//   in `#if canImport(SwiftUI)`) is marked by the line `<!-- doc-examples: skip (why) -->` just
//   before its opening fence (in a `///` comment: `/// <!-- doc-examples: skip (why) -->`).

import Foundation
import Testing

@Suite struct DocBlocksAreCompiledTests {
    /// The package root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let examples = root.appendingPathComponent("Tests/DocExamplesTests")

    struct Block: CustomStringConvertible {
        var file: String
        var line: Int
        var lines: [String]
        var description: String { "\(file):\(line)" }
    }

    /// The Markdown files whose blocks must compile: README.md and every file of every `.docc` catalog.
    static func documents() throws -> [URL] {
        var found = [root.appendingPathComponent("README.md")]
        let sources = root.appendingPathComponent("Sources")
        let enumerator = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "md", url.path.contains(".docc/") { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// The ```swift blocks of `text` not marked to skip.
    static func blocks(_ text: String, file: String) -> [Block] {
        let lines = text.components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index].trimmingCharacters(in: .whitespaces)
            guard fence == "```swift" else {
                index += 1
                continue
            }
            let skipped = index > 0 && lines[index - 1].hasPrefix("<!-- doc-examples: skip")
            var body: [String] = []
            var end = index + 1
            while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" {
                body.append(lines[end])
                end += 1
            }
            if !skipped { blocks.append(Block(file: file, line: index + 1, lines: body)) }
            index = end + 1
        }
        return blocks
    }

    /// The Swift blocks of the `///` comments of `text`: a fence of ``` or ```swift opens one (a
    /// fence naming another language, ```text or ```json, is not Swift), the next ``` closes it;
    /// the `///` and one space after it are not part of a line. A block whose opening fence follows
    /// the line `/// <!-- doc-examples: skip (why) -->` is left out.
    static func symbolDocBlocks(_ text: String, file: String) -> [Block] {
        let lines = text.components(separatedBy: "\n")
        func comment(_ line: String) -> String? {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("///") else { return nil }
            let rest = trimmed.dropFirst(3)
            return String(rest.hasPrefix(" ") ? rest.dropFirst() : rest)
        }
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            guard let fence = comment(lines[index])?.trimmingCharacters(in: .whitespaces), fence.hasPrefix("```")
            else {
                index += 1
                continue
            }
            let language = fence.dropFirst(3)
            let skipped = index > 0 && comment(lines[index - 1])?.hasPrefix("<!-- doc-examples: skip") == true
            var body: [String] = []
            var end = index + 1
            while end < lines.count, let line = comment(lines[end]),
                line.trimmingCharacters(in: .whitespaces) != "```"
            {
                body.append(line)
                end += 1
            }
            if !skipped, language.isEmpty || language == "swift" {
                blocks.append(Block(file: file, line: index + 1, lines: body))
            }
            index = end + 1
        }
        return blocks
    }

    /// The Swift sources under Sources/, sorted.
    static func sourceFiles() -> [URL] {
        var found: [URL] = []
        let enumerator = FileManager.default.enumerator(
            at: root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension == "swift" { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    /// The example sources: file name and lines.
    static func exampleSources() throws -> [(name: String, lines: [String])] {
        try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".swift") }.sorted()
            .map { name in
                (
                    name,
                    try String(contentsOf: examples.appendingPathComponent(name), encoding: .utf8)
                        .components(separatedBy: "\n")
                )
            }
    }

    /// Whether `block`'s lines (its imports aside) run consecutively in `lines` under one indentation,
    /// and `lines` import every module the block imports.
    static func contains(_ lines: [String], _ block: Block) -> Bool {
        let imports = block.lines.filter { line in
            line.hasPrefix("import ") || line.hasPrefix("@testable import ")
                || (line.hasPrefix("@_spi(") && line.contains(") import "))
        }
        guard imports.allSatisfy({ lines.contains($0) }) else { return false }
        var body = block.lines.filter { !imports.contains($0) }
        while body.first?.trimmingCharacters(in: .whitespaces).isEmpty == true { body.removeFirst() }
        while body.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { body.removeLast() }
        guard let first = body.first else { return true }
        guard body.count <= lines.count else { return false }
        for start in 0...(lines.count - body.count) {
            guard lines[start].hasSuffix(first) else { continue }
            let indent = String(lines[start].dropLast(first.count))
            guard indent.allSatisfy({ $0 == " " }) else { continue }
            let matches = zip(body, lines[start..<(start + body.count)]).allSatisfy { expected, actual in
                expected.trimmingCharacters(in: .whitespaces).isEmpty
                    ? actual.trimmingCharacters(in: .whitespaces).isEmpty : actual == indent + expected
            }
            if matches { return true }
        }
        return false
    }

    @Test func everySwiftBlockOfTheReadmeAndTheCatalogsIsCompiledHere() throws {
        let sources = try Self.exampleSources()
        var count = 0
        for document in try Self.documents() {
            let relative = String(document.path.dropFirst(Self.root.path.count + 1))
            for block in Self.blocks(try String(contentsOf: document, encoding: .utf8), file: relative) {
                count += 1
                let found = sources.contains { Self.contains($0.lines, block) }
                #expect(
                    found,
                    """
                    The ```swift block at \(block) is not compiled by any test. Copy it verbatim (only \
                    indented) into a function in Tests/DocExamplesTests/ (its parameters supply what the \
                    block uses; the file imports what the block imports), so `swift build --build-tests` \
                    compiles it. If you changed the block, change its copy there the same way. A block \
                    that cannot compile (a package manifest) takes `<!-- doc-examples: skip (why) -->` on \
                    the line before its fence. See Tests/DocExamplesTests/README.md.
                    """)
            }
        }
        #expect(count > 10, "the README and the catalogs should hold more than ten Swift blocks; found \(count)")
    }

    @Test func everySwiftExampleOfTheSymbolDocumentationIsCompiledHere() throws {
        let sources = try Self.exampleSources()
        var count = 0
        for file in Self.sourceFiles() {
            let relative = String(file.path.dropFirst(Self.root.path.count + 1))
            for block in Self.symbolDocBlocks(try String(contentsOf: file, encoding: .utf8), file: relative) {
                count += 1
                let found = sources.contains { Self.contains($0.lines, block) }
                #expect(
                    found,
                    """
                    The example in the `///` comment at \(block) is not compiled by any test. Copy its \
                    lines (without the `///`) verbatim, only indented, into a function in \
                    Tests/DocExamplesTests/SymbolExamples*.swift (its parameters supply what the example \
                    uses), so `swift build --build-tests` compiles it; if you changed the example, change \
                    its copy the same way. An example that is not Swift names its language on the fence \
                    (```text, ```json). See Tests/DocExamplesTests/README.md.
                    """)
            }
        }
        #expect(count > 50, "the symbol documentation should hold more than fifty Swift examples; found \(count)")
    }

    @Test func symbolDocBlocksAreTheFencedLinesOfDocComments() {
        let text = """
            /// Reads things.
            ///
            /// ```swift
            /// let a = 1
            ///     print(a)
            /// ```
            /// ```text
            /// not swift
            /// ```
            /// <!-- doc-examples: skip (a fragment) -->
            /// ```
            /// skipped
            /// ```
                /// ```
                /// let b = 2
                /// ```
            // ```
            // a plain comment
            // ```
            """
        let blocks = Self.symbolDocBlocks(text, file: "x.swift")
        #expect(blocks.map(\.lines) == [["let a = 1", "    print(a)"], ["let b = 2"]])
        #expect(blocks.map(\.line) == [3, 14])
    }

    @Test func theMatcherNeedsEveryLineInOrderUnderOneIndentation() {
        let block = Block(file: "x.md", line: 1, lines: ["import A", "let a = 1", "", "print(a)"])
        let good = ["import A", "func f() {", "    let a = 1", "", "    print(a)", "}"]
        #expect(Self.contains(good, block))
        #expect(!Self.contains(["func f() {", "    let a = 1", "", "    print(a)", "}"], block))
        #expect(!Self.contains(["import A", "    let a = 1", "  print(a)"], block))
        #expect(!Self.contains(["import A", "    let a = 2", "", "    print(a)"], block))
        #expect(!Self.contains(["import A", "    let a = 1", "    print(a)"], block))
        let skipped = Self.blocks("<!-- doc-examples: skip (a manifest) -->\n```swift\nlet x = 1\n```\n", file: "y.md")
        #expect(skipped.isEmpty)
        #expect(Self.blocks("text\n```swift\nlet x = 1\n```\n", file: "y.md").map(\.lines) == [["let x = 1"]])
    }
}
