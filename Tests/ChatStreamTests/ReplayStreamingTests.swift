// `chatstream replay` streams (issue 17): run as a process on a pipe, it prints what each piece
// decodes to before the input ends, and its memory does not grow with the input.

import Foundation
import TestSupport
import Testing

@Suite(.blockingAllowed) struct ReplayStreamingTests {
    /// The SSE lines of a UI message stream with the given text deltas.
    static func stream(_ deltas: [String], end: Bool = true) -> [UInt8] {
        var text =
            "data: {\"type\":\"start\",\"messageId\":\"m1\"}\n\ndata: {\"type\":\"text-start\",\"id\":\"t1\"}\n\n"
        for delta in deltas { text += "data: {\"type\":\"text-delta\",\"id\":\"t1\",\"delta\":\"\(delta)\"}\n\n" }
        if end { text += Self.end }
        return Array(text.utf8)
    }

    static let end =
        "data: {\"type\":\"text-end\",\"id\":\"t1\"}\n\ndata: {\"type\":\"finish\",\"finishReason\":\"stop\"}\n\ndata: [DONE]\n\n"

    /// Runs `arguments` on a pipe fed in two parts: `first`, then (only once `seen` holds for the
    /// output so far, or after a timeout) `rest`. Returns whether `seen` held before `rest` was
    /// written, and the finished run.
    static func runInTwoParts(
        _ arguments: [String], first: [UInt8], rest: [UInt8], seen: @escaping @Sendable ([UInt8]) -> Bool
    ) async throws -> (seenBeforeTheEnd: Bool, run: ChildProcess.Result) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        let child = try ChildProcess(ChildProcess.chatstream, arguments)
                        try child.write(first)
                        let seenBeforeTheEnd = seen(child.read(until: seen, timeout: .seconds(120)))
                        try child.write(rest)
                        return (seenBeforeTheEnd, child.wait())
                    })
            }
        }
    }

    @Test func textFromASlowPipeIsPrintedBeforeTheStreamEnds() async throws {
        let first = Self.stream(["Hello", ", wor"], end: false)
        let rest = Array("data: {\"type\":\"text-delta\",\"id\":\"t1\",\"delta\":\"ld\"}\n\n\(Self.end)".utf8)
        let (seen, run) = try await Self.runInTwoParts(
            ["replay", "--format", "ui-message-stream", "--output", "text", "-"], first: first, rest: rest,
            seen: { $0 == Array("Hello, wor".utf8) })
        #expect(seen, "the text of the first part came only after the end: \(run)")
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == "Hello, world\n")
    }

    @Test func eventsFromASlowPipeArePrintedBeforeTheStreamEnds() async throws {
        // Auto-detected: detection decides on the first line, before the end.
        let first = Self.stream(["Hi"], end: false)
        let (seen, run) = try await Self.runInTwoParts(
            ["replay", "--output", "events", "--json", "-"], first: first, rest: Array(Self.end.utf8),
            seen: { String(decoding: $0, as: UTF8.self).contains("\"delta\":\"Hi\"}\n") })
        #expect(seen, "no event came before the end: \(run)")
        #expect(run.status == 0, "\(run)")
        #expect(run.lines.last == "{\"type\":\"done\"}")
    }

    /// Runs `arguments` as `ChildProcess.run(_:timeout:keepingOutput:feed:)` does, and returns
    /// also the child's peak resident set size in bytes, which it writes at exit to the file that
    /// CHATSTREAM_PEAK_MEMORY_FILE names (its VmHWM: the parent cannot see it, see ChildProcess).
    static func runMeasuringPeakMemory(
        _ arguments: [String], keepingOutput: Bool = true, feed: @escaping @Sendable (ChildProcess) throws -> Void
    ) async throws -> (run: ChildProcess.Result, peakBytes: Int) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("chatstream-peak-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await ChildProcess.run(
            arguments, environment: ["CHATSTREAM_PEAK_MEMORY_FILE": file.path], timeout: .seconds(300),
            keepingOutput: keepingOutput, feed: feed)
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return (run, Int(text) ?? 0)
    }

    @Test func aPipedStreamLargerThanTheMemoryBoundReplaysInBoundedMemory() async throws {
        // 72 MiB of 64 KiB text deltas, generated while the child reads them: the replay before
        // issue 17, which read the whole input first, held all of it (and peaked near 3 times that).
        let delta = String(repeating: "abcdefghijklmnopqrstuvwxyz0123456789+-=/", count: 1638)
        let event = Array("data: {\"type\":\"text-delta\",\"id\":\"t1\",\"delta\":\"\(delta)\"}\n\n".utf8)
        let count = (72 << 20) / event.count
        let (run, peak) = try await Self.runMeasuringPeakMemory(
            ["replay", "--format", "ui-message-stream", "--output", "text", "-"], keepingOutput: false,
            feed: { child in
                try child.write(Self.stream([], end: false))
                var block: [UInt8] = []
                for _ in 0..<16 { block += event }
                for _ in 0..<(count / 16) { try child.write(block) }
                try child.write(Self.end.utf8)
            })
        #expect(run.status == 0, "\(run)")
        #expect(run.outputCount == (count / 16) * 16 * delta.utf8.count + 1)
        #expect(peak > 1 << 20, "no peak reported")
        #expect(peak < 64 << 20, "peak RSS \(peak >> 20) MiB")
    }

    @Test func aLongReplyAsAMessageIsNotCopiedToBePrinted() async throws {
        // 70 MiB of text in 64 KiB deltas, printed as a message. Printing it must not copy it again
        // (issue 32: the rendering joined the lines into one more string, then another with its
        // newline): this stream peaked at 3.1 times its text over the process's own footprint
        // (the same replay of a tiny stream) before, 1.9 after. What is left is the message's own
        // growth with deltas this large; a 1 GiB stream of 17-byte deltas peaks at 1.12 times its
        // 260 MiB of text (BENCHMARKS.md).
        try await Self.expectPeakFollowsTheText(
            ["replay", "--format", "ui-message-stream", "--output", "message", "-"], mebibytes: 72)
    }

    /// Replays about `mebibytes` MiB of text in 64 KiB deltas with `arguments` (its output
    /// counted, not kept) and expects all of it printed, with a peak resident size over the
    /// process's own footprint (the same replay of a tiny stream) of at most 2.4 times the text.
    static func expectPeakFollowsTheText(_ arguments: [String], mebibytes: Int) async throws {
        let delta = String(repeating: "abcdefghijklmnopqrstuvwxyz0123456789+-=/", count: 1638)
        let event = Array("data: {\"type\":\"text-delta\",\"id\":\"t1\",\"delta\":\"\(delta)\"}\n\n".utf8)
        let count = (mebibytes << 20) / event.count / 16 * 16
        let (tiny, base) = try await Self.runMeasuringPeakMemory(
            arguments, feed: { child in try child.write(Self.stream(["Hi"])) })
        #expect(tiny.status == 0, "\(tiny)")
        let (run, peak) = try await Self.runMeasuringPeakMemory(
            arguments, keepingOutput: false,
            feed: { child in
                try child.write(Self.stream([], end: false))
                var block: [UInt8] = []
                for _ in 0..<16 { block += event }
                for _ in 0..<(count / 16) { try child.write(block) }
                try child.write(Self.end.utf8)
            })
        let text = count * delta.utf8.count
        #expect(run.status == 0, "\(run)")
        #expect(run.outputCount > text)
        #expect(base > 1 << 20 && peak > base, "no peak reported")
        #expect(
            Double(peak - base) <= 2.4 * Double(text),
            "peak RSS \(peak >> 20) MiB over \(base >> 20) MiB for \(text >> 20) MiB of text")
    }

    @Test func a200MiBLineWithoutANewlineFailsAtTheLineLimitInBoundedMemory() async throws {
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        let (run, peak) = try await Self.runMeasuringPeakMemory(
            ["replay", "--format", "ui-message-stream", "--output", "text", "-"],
            feed: { child in
                try child.write("data: {\"type\":\"text-delta\",\"id\":\"t1\",\"delta\":\"".utf8)
                for _ in 0..<200 { try child.write(chunk) }  // stops with EPIPE once the child has given up
            })
        #expect(run.status == 65, "\(run)")
        #expect(run.stderr.contains("longer than maxLineBytes"), "\(run)")
        #expect(run.stderr.contains("byte 0"), "\(run)")
        #expect(peak > 1 << 20, "no peak reported")
        #expect(peak < 64 << 20, "peak RSS \(peak >> 20) MiB")
    }

    @Test func anUnreadableFileExits66() async throws {
        let run = try await ChildProcess.run(["replay", ProjectPaths.root + "/no/such/file.sse"])
        #expect(run.status == 66, "\(run)")
        #expect(run.stderr.hasPrefix("error: cannot read "), "\(run)")
        #expect(run.stdout.isEmpty)
        let directory = try await ChildProcess.run(["replay", ProjectPaths.fixtures])
        #expect(directory.status == 66, "\(directory)")
    }
}
