// SnapshotScaling: what a consumer of `messageUpdates(format:)` pays per event as the reply
// grows (issue 17, deliverable 3). A 1 MB and a 0.5 MB reply in 10-byte text deltas (UI message
// stream, 4 KiB chunks) go through the updates rung into two consumers: one that keeps its own
// text from each update's event and lets the snapshot go (what the client's ConversationState
// does), and one that keeps the latest snapshot. Per-event cost independent of the reply's length
// shows as a per-event time ratio (1 MB / 0.5 MB) near 1; a cost that grows with the text so far
// shows near 2.
//
//   chatstream-bench --snapshot-scaling [--runs N]

import ChatStream

enum SnapshotScaling {
    /// The two consumers.
    enum Consumer: String, CaseIterable {
        /// Appends each update's text delta to its own text; the snapshot is dropped.
        case ownText = "own text from the events"
        /// Keeps the latest update's message.
        case latestSnapshot = "keeps the latest snapshot"
    }

    /// A UI message stream whose text is `textBytes` bytes in 10-byte deltas.
    static func reply(textBytes: Int) -> [UInt8] {
        var out = Array(#"data: {"type":"start","messageId":"m1"}"#.utf8) + [10, 10]
        out += #"data: {"type":"text-start","id":"t1"}"#.utf8 + [10, 10]
        let delta = Array(#"data: {"type":"text-delta","id":"t1","delta":"abcdefghi "}"#.utf8) + [10, 10]
        for _ in 0..<(textBytes / 10) { out += delta }
        out += #"data: {"type":"text-end","id":"t1"}"#.utf8 + [10, 10]
        out += #"data: {"type":"finish","finishReason":"stop"}"#.utf8 + [10, 10]
        out += "data: [DONE]\n\n".utf8
        return out
    }

    /// Byte chunks of 4 KiB as an async sequence.
    struct Chunks: AsyncSequence, Sendable {
        let bytes: [UInt8]
        struct AsyncIterator: AsyncIteratorProtocol {
            let bytes: [UInt8]
            var offset = 0
            mutating func next() async -> ArraySlice<UInt8>? {
                guard offset < bytes.count else { return nil }
                defer { offset = Swift.min(bytes.count, offset + 4096) }
                return bytes[offset..<Swift.min(bytes.count, offset + 4096)]
            }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes) }
    }

    /// Streams `bytes` into `consumer`; the nanoseconds taken, the updates seen and the text's bytes.
    static func run(_ bytes: [UInt8], _ consumer: Consumer) async throws -> (
        nanoseconds: UInt64, updates: Int, text: Int
    ) {
        let start = Clock.nanoseconds()
        var updates = 0
        var text = ""
        var latest: AssembledMessage?
        for try await update in Chunks(bytes: bytes).messageUpdates(format: .uiMessageStream) {
            updates += 1
            switch consumer {
            case .ownText: if case .textDelta(_, let delta)? = update.event { text += delta }
            case .latestSnapshot: latest = update.message
            }
        }
        let elapsed = Clock.nanoseconds() - start
        return (elapsed, updates, consumer == .ownText ? text.utf8.count : latest?.text.utf8.count ?? 0)
    }

    /// Both consumers at 0.5 MB and 1 MB: the best of `runs` per-event times and their ratio.
    static func report(runs: Int) async throws -> String {
        let half = reply(textBytes: 500_000)
        let whole = reply(textBytes: 1_000_000)
        var lines = ["snapshot scaling: 10-byte deltas, 4 KiB chunks, messageUpdates(format:), best of \(runs)"]
        for consumer in Consumer.allCases {
            var best: [Double] = []
            for bytes in [half, whole] {
                var perEvent = Double.infinity
                for _ in 0..<runs {
                    let (nanoseconds, updates, text) = try await run(bytes, consumer)
                    guard text == (bytes.count == half.count ? 500_000 : 1_000_000) else {
                        throw BenchFailure("snapshot scaling: \(consumer) kept \(text) bytes of text")
                    }
                    perEvent = min(perEvent, Double(nanoseconds) / Double(updates))
                }
                best.append(perEvent)
            }
            lines.append(
                "  \(consumer.rawValue): \(Report.format(best[0], 0)) ns/event at 0.5 MB, \(Report.format(best[1], 0)) at 1 MB, "
                    + "ratio \(Report.format(best[1] / best[0]))")
        }
        return lines.joined(separator: "\n")
    }

    /// A check that failed: the consumer did not end with the whole text.
    struct BenchFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
