// Gigabyte: 1 GiB of home-protocol stream through StreamDecoder and MessageAssembler, generated
// on the fly in 4 KiB pieces from a repeating block (one whole message of 1,000 text deltas), so
// the input is never held. The assembler starts afresh at every `finish`, as a client starts a
// new message; peak memory must stay flat.
//
// The suite runs it in a child process (`--gigabyte-only`), so the peak resident size is the 1 GiB
// pipeline's alone and the rows after it start from a heap the gigabyte never touched (run
// in-process first, the heap it left moved the MessageDecoder row's ratio; the figures are in
// BENCHMARKS.md's history in git).

import ChatStream
import Foundation

struct GigabyteResult {
    var bytes: Int
    var events: Int
    var messages: Int
    var seconds: Double
    var peakResidentBytes: Int
}

enum Gigabyte {
    static func run(totalBytes: Int = 1 << 30) -> GigabyteResult {
        let block = Payloads.messageBlock(deltas: 1000, seed: 2024)
        var decoder = StreamDecoder<UIMessageStreamDialect>()
        var assembler = MessageAssembler()
        var events = 0
        var messages = 0
        var expectedLength = -1
        var piece = [UInt8](repeating: 0, count: 4096)
        var batch: [StreamEvent] = []  // the events of one piece
        var blockIndex = 0
        var fed = 0
        let start = Clock.nanoseconds()
        func sink(_ event: StreamEvent) {
            events &+= 1
            assembler.apply(event)
            if case .finish = event {
                let length = assembler.message.text.utf8.count
                if expectedLength < 0 { expectedLength = length }
                precondition(length == expectedLength && length > 0, "1 GiB stream: a message came out wrong")
                messages += 1
                assembler = MessageAssembler()
            }
        }
        // Past the target, finish the block under way so the stream ends between messages.
        while fed < totalBytes || blockIndex != 0 {
            let count = fed < totalBytes ? piece.count : min(piece.count, block.count - blockIndex)
            piece.withUnsafeMutableBytes { out in
                var filled = 0
                block.withUnsafeBytes { source in
                    while filled < count {
                        let take = min(count - filled, source.count - blockIndex)
                        out.baseAddress!.advanced(by: filled).copyMemory(
                            from: source.baseAddress!.advanced(by: blockIndex), byteCount: take)
                        filled += take
                        blockIndex = (blockIndex + take) % source.count
                    }
                }
            }
            try! decoder.feed(piece[0..<count], into: &batch)
            for event in batch { sink(event) }
            batch.removeAll(keepingCapacity: true)
            fed += count
        }
        let tail = Array("data: [DONE]\n\n".utf8)
        try! decoder.feed(tail, into: &batch)
        _ = try! decoder.finish(into: &batch)
        for event in batch { sink(event) }
        let seconds = Double(Clock.nanoseconds() - start) / 1e9
        return GigabyteResult(
            bytes: fed, events: events, messages: messages, seconds: seconds, peakResidentBytes: peakResidentBytes())
    }
}

extension GigabyteResult {
    /// The result as the child's one output line: bytes events messages seconds peak-bytes.
    var line: String { "\(bytes) \(events) \(messages) \(seconds) \(peakResidentBytes)" }

    init?(line: String) {
        let fields = line.split(separator: " ")
        guard fields.count == 5, let bytes = Int(fields[0]), let events = Int(fields[1]),
            let messages = Int(fields[2]), let seconds = Double(fields[3]), let peak = Int(fields[4])
        else { return nil }
        self.init(bytes: bytes, events: events, messages: messages, seconds: seconds, peakResidentBytes: peak)
    }

    /// Runs the 1 GiB stream in a child process (this executable with `--gigabyte-only`).
    static func runInChild() -> GigabyteResult {
        let child = Process()
        child.executableURL = Bundle.main.executableURL
        child.arguments = ["--gigabyte-only"]
        let output = Pipe()
        child.standardOutput = output
        do {
            try child.run()
        } catch {
            fatalError("1 GiB stream: cannot start the child process: \(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard child.terminationStatus == 0, let result = GigabyteResult(line: text) else {
            fatalError("1 GiB stream: the child process failed (status \(child.terminationStatus)): \(text)")
        }
        return result
    }
}
