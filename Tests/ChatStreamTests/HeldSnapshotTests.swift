import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// Snapshots held while the message keeps growing (issue 17, deliverable 3): each keeps exactly
/// the text it had, the assembler's appends stay small, and the parts read from a held snapshot
/// are those of a message read at once, for every stream at every chunking, on any thread.
@Suite(.blockingAllowed) struct HeldSnapshotTests {
    /// Deltas of 1 to 40 characters, some of them multi-byte (é, 日, 🙂), from a seeded generator.
    static func deltas(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        let alphabet: [Character] = ["a", "b", " ", "é", "日", "🙂", "\n", "\""]
        return (0..<count).map { _ in
            String((0..<Int.random(in: 1...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyHeldCopyKeepsItsTextAcrossLaterAppends(seed: UInt64) {
        let deltas = Self.deltas(count: 3000, seed: seed)
        var text = GrowingText()
        var model = ""
        var held: [(GrowingText, String)] = []
        var random = SplitMix64(seed: seed &+ 100)
        for delta in deltas {
            text.append(delta)
            model += delta
            // Hold some copies for a while, others for good, so both in-place and shared appends happen.
            if Int.random(in: 0..<3, using: &random) == 0 { held.append((text, model)) }
            if held.count > 40, Int.random(in: 0..<2, using: &random) == 0 {
                held.remove(at: Int.random(in: 0..<held.count, using: &random))
            }
            #expect(text.utf8Count == model.utf8.count)
        }
        #expect(text.string == model)
        for (copy, expected) in held {
            #expect(copy.string == expected)
            #expect(copy.utf8Count == expected.utf8.count)
        }
        // The chain has at most one chunk per chunkBytes, plus the run under way (under
        // chunkBytes, so fewer chunks than that) and one more delta.
        #expect(text.chunkCount <= model.utf8.count / GrowingText.chunkBytes + GrowingText.chunkBytes + 1)
        var collapsed = text
        collapsed.collapse()
        #expect(collapsed.chunkCount == 1 && collapsed.string == model && text.string == model)
    }

    @Test func withNoCopyHeldTheTextIsOneChunkAndReadsAsItsOwnString() {
        var text = GrowingText()
        for delta in Self.deltas(count: 2000, seed: 9) { text.append(delta) }
        #expect(text.chunkCount == 1)
        // A copy held across an append leaves the newest chunk to it: the delta becomes a chunk of
        // its own. Dropping the copy lets appends go in place again (no new chunk per delta).
        let copy = text
        text.append("x")
        #expect(text.chunkCount == 2)
        _ = consume copy
        for _ in 0..<100 { text.append("y") }
        #expect(text.chunkCount == 2)
        #expect(text.string.hasSuffix("x" + String(repeating: "y", count: 100)))
    }

    @Test func appendsUnderHeldCopiesKeepTheChainShort() {
        var text = GrowingText("start")
        var copies: [GrowingText] = []
        for index in 0..<5000 {
            copies.append(text)  // every earlier state stays held
            text.append("\(index % 10)")
        }
        let expected = "start" + (0..<5000).map { "\($0 % 10)" }.joined()
        #expect(text.string == expected)
        // One-byte deltas: at most one chunk per chunkBytes, plus the run under way.
        #expect(text.chunkCount <= expected.utf8.count / GrowingText.chunkBytes + GrowingText.chunkBytes + 1)
        #expect(copies[1234].string == String(expected.prefix(5 + 1234)))
        #expect(copies.first?.string == "start")
    }

    @Test func aVeryLongChainIsReleasedWithoutRecursion() {
        // Ten million bytes in 1 KiB chunks, each frozen by a copy held only across its append:
        // about ten thousand chunks, released one by one when the last reference goes.
        var text = GrowingText()
        let delta = String(repeating: "z", count: GrowingText.chunkBytes)
        for _ in 0..<10_000 {
            let held = text
            text.append(delta)
            _ = held
        }
        #expect(text.chunkCount >= 9_999)
        #expect(text.utf8Count == 10_000 * GrowingText.chunkBytes)
        text = GrowingText()
        #expect(text.isEmpty)
    }

    /// The assembler with every snapshot held, against an assembler whose every snapshot is read
    /// at once (the message's own `String`s): the same parts after every event.
    @Test(arguments: [4, 5, 6] as [UInt64])
    func heldAssemblerSnapshotsKeepTheirPartsAsReadAtOnce(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let deltas = Self.deltas(count: 1500, seed: seed)
        var assembler = MessageAssembler()
        var held: [(AssembledMessage, [AssembledPart])] = []
        for (step, delta) in deltas.enumerated() {
            let event: StreamEvent
            switch Int.random(in: 0..<20, using: &random) {
            case 0: event = .reasoningDelta(id: "r", delta: delta)
            case 1: event = .textEnd(id: "t")
            case 2: event = .source(StreamSource(id: "s\(step)", url: "https://example.com/\(step)"))
            case 3: event = .refusalDelta(id: "x", delta: delta)
            case 4: event = .toolInputDelta(id: "c", delta: "{\"n\":\(step)}")
            default: event = .textDelta(id: "t", delta: delta)
            }
            assembler.apply(event)
            let snapshot = assembler.message
            held.append((snapshot, snapshot.parts))
        }
        for (step, (snapshot, parts)) in held.enumerated() {
            #expect(snapshot.parts == parts, "step \(step)")
            #expect(snapshot.text == parts.compactMap(\.text).joined(), "step \(step)")
        }
        let final = assembler.finish()[0]
        #expect(final.parts == held.last?.1)
        #expect(final.openText.chunkCount <= 1)
    }

    /// Every recorded stream, at every chunking, through the updates rung with every snapshot
    /// held: each held snapshot's parts are those read when it came, and the final messages are
    /// `MessageDecoder`'s (the synchronous oracle the other rungs are tested against).
    @Test(arguments: StreamCorpus.all)
    func theUpdatesRungWithEverySnapshotHeldGivesTheSamePartsAtEveryChunking(_ stream: CorpusStream) async throws {
        let oracle = StreamCorpus.messageDecoder(stream.format, [stream.bytes])
        for chunking in stream.chunkings {
            var held: [(AssembledMessage, [AssembledPart])] = []
            var finals: [AssembledMessage] = []
            do {
                for try await update in ChunkSequence(chunks: chunking.pieces).messageUpdates(format: stream.format) {
                    held.append((update.message, update.message.parts))
                    if update.isFinal { finals.append(update.message) }
                }
            } catch {}
            #expect(finals == oracle.messages, "\(stream.testDescription) \(chunking.name)")
            for (index, (snapshot, parts)) in held.enumerated() where snapshot.parts != parts {
                Issue.record("\(stream.testDescription) \(chunking.name) update \(index): the parts changed")
            }
        }
    }

    /// Snapshots read on other tasks while the assembler keeps appending on its own: every
    /// reader sees exactly the prefix its snapshot was taken at (run under the thread sanitizer
    /// with `swift test --sanitize=thread --filter HeldSnapshotTests`).
    @Test func snapshotsReadOnOtherTasksWhileTheAssemblerAppends() async {
        let deltas = Self.deltas(count: 4000, seed: 21)
        // The text's UTF-8 length after each delta.
        let prefixes = deltas.reduce(into: [Int]()) { $0.append(($0.last ?? 0) + $1.utf8.count) }
        let whole = deltas.joined()
        let (snapshots, continuation) = AsyncStream.makeStream(of: (Int, AssembledMessage).self)
        let producer = Task.detached {
            var assembler = MessageAssembler()
            for (index, delta) in deltas.enumerated() {
                assembler.apply(.textDelta(id: "t", delta: delta))
                if index % 3 == 0 { continuation.yield((index, assembler.message)) }
            }
            continuation.finish()
            return assembler.finish()[0].text
        }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            var iterator = snapshots.makeAsyncIterator()
            while let (index, snapshot) = await iterator.next() {
                group.addTask {
                    let text = snapshot.text
                    let expected = whole.utf8.prefix(prefixes[index])
                    return text.utf8.elementsEqual(expected) && snapshot.parts == [.text(text)] ? 0 : 1
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(await producer.value == whole)
    }

    @Test func heldSnapshotsHashAndCompareAsTheirParts() throws {
        var assembler = MessageAssembler()
        var held: [AssembledMessage] = []
        for delta in Self.deltas(count: 400, seed: 31) {
            assembler.apply(.textDelta(id: "t", delta: delta))
            held.append(assembler.message)
        }
        let growing = try #require(held.last)
        #expect(growing.openText.chunkCount > 1)  // the snapshot's text is a chain
        let plain = AssembledMessage(parts: growing.parts)  // the same parts as plain Strings
        #expect(plain.openText.isEmpty)
        #expect(growing == plain)
        #expect(growing.hashValue == plain.hashValue)
        #expect(Set([growing, plain, held[0]]).count == 2)
        #expect(growing != held[held.count - 2])
        // The parts encode and decode as the history wire shape, equal to what they were.
        let data = try JSONEncoder().encode(growing.parts)
        let decoded = try JSONDecoder().decode([AssembledPart].self, from: data)
        #expect(decoded == growing.parts)
        #expect(AssembledMessage(parts: decoded) == growing)
        // Setting the parts replaces them all, the open one too.
        var edited = growing
        edited.parts.append(.file(url: "https://example.com/f", mediaType: "text/plain"))
        #expect(edited.parts.count == 2 && edited.parts[0] == growing.parts[0])
        #expect(edited.text == growing.text)
        #expect(growing.parts.count == 1)
    }
}
