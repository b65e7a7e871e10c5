import Foundation
import TestSupport
import Testing

/// `chatstream replay`, run as a process: the contract other tools rely on.
@Suite struct ReplayCLITests {
    static var executable: String {
        let candidates = [
            ProjectPaths.root + "/.build/debug/chatstream",
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path + "/chatstream",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], stdin: Data? = nil) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    static let fixture = ProjectPaths.fixtures + "/ui-message-stream/"

    @Test func messageJSONIsByteIdenticalForEveryChunkSize() throws {
        let reference = try Self.run(["replay", "--json", Self.fixture + "multibyte.sse"])
        #expect(reference.status == 0)
        #expect(reference.stdout.contains("日本語のテキスト"))
        for size in ["1", "2", "3", "7", "64", "65536"] {
            let run = try Self.run([
                "replay", "--chunk-size", size, "--output", "message", "--json", Self.fixture + "multibyte.sse",
            ])
            #expect(run.stdout == reference.stdout, "chunk size \(size)")
        }
    }

    @Test func eventsAndTextOutputsAreIndependentOfChunkSize() throws {
        for output in ["events", "text"] {
            let whole = try Self.run(["replay", "--output", output, "--json", Self.fixture + "tool-round-trip.sse"])
            let bytewise = try Self.run(
                ["replay", "--output", output, "--json", "--chunk-size", "1", Self.fixture + "tool-round-trip.sse"])
            #expect(whole.status == 0)
            #expect(whole.stdout == bytewise.stdout)
        }
        let events = try Self.run(["replay", "--output", "events", "--json", Self.fixture + "tool-round-trip.sse"])
        let lines = events.stdout.split(separator: "\n")
        #expect(lines.allSatisfy { $0.hasPrefix("{\"type\":") })
        #expect(lines.last == "{\"type\":\"done\"}")
    }

    @Test func exitStatusesFollowTheContract() throws {
        #expect(try Self.run(["replay", Self.fixture + "text-only.sse"]).status == 0)
        let truncated = try Self.run(["replay", "--json", Self.fixture + "truncated.sse"])
        #expect(truncated.status == 1)
        #expect(truncated.stdout.contains("This reply was cut"))
        #expect(try Self.run(["replay", "--json", Self.fixture + "chatbase-error.sse"]).status == 1)
        let malformed = try Self.run(["replay", "--json", Self.fixture + "malformed.sse"])
        #expect(malformed.status == 65)
        #expect(malformed.stdout.contains("\"before\""))
        #expect(malformed.stderr.contains("byte"))
        #expect(try Self.run(["replay", "--output", "bogus", Self.fixture + "text-only.sse"]).status == 2)
        #expect(try Self.run(["replay", "--format", "nope", Self.fixture + "text-only.sse"]).status == 2)
        #expect(try Self.run(["replay"]).status == 2)
        #expect(try Self.run(["replay", "--chunk-size", "0", Self.fixture + "text-only.sse"]).status == 2)
    }

    @Test func readsStandardInputAndAnExplicitFormat() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.fixture + "text-only.sse"))
        let run = try Self.run(["replay", "--format", "ui-message-stream", "--output", "text", "-"], stdin: data)
        #expect(run.status == 0)
        #expect(run.stdout == "Hello, how can I help?\n")
    }
}
