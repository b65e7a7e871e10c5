// Streamed replies that survive the connection (PROTOCOLS.md section 8): the generator, the
// readers, and the three ways a reply ends early.
//
// A streamed reply is generated on a thread of its own (a pool's, kept between replies): it
// appends the reply's events to its ReplyRun at the configured pace, saves the text so far every
// checkpoint interval, and when done stores the reply, then appends `finish` and `[DONE]` (so a
// client that saw `finish` finds the reply in history). Every stream of the reply (the chat
// request, a resend joining it, a resume) is a reader that writes the run's events after its
// position as they come: after the head it is handed to the LiveStreamWriter (one poll thread for
// every stream, counted against the stream caps), so a slow or idle reader holds no connection
// thread; a reader that goes away stops nothing. A short reply that already ended when its
// stream starts (stored whole by its chat) is written with its head at once, on the request's
// thread, like any other answer.
// When the reply ended and its last chunk was written, the writer gives the connection back to the
// server for the client's next request (keep-alive), unless the client asked to close it, spoke
// HTTP/1.0, or had already sent more (then the head says `Connection: close`).
// A reply ends early when stopped (`POST .../stop`: text so far stored, streams get `abort`,
// `finish` with `aborted: true`, `[DONE]`), when the server stops (text so far stored as
// interrupted, streams cut so clients resume and meet the error), or after a crash (on the next
// start, each reply still marked generating is stored as interrupted with its last checkpoint).

import ChatStream
import Foundation

extension ChatAPIHandlers {
    /// Starts generating `plan` into `run` on a thread of its own (one of ``replyThreads``).
    func startGenerating(_ plan: ReplyPlan, _ run: ReplyRun) {
        replyThreads.run { [self] in generate(plan, run) }
    }

    /// Generates `plan` into `run`: its events at the configured pace, checkpoints, then the
    /// stored end. Returns early when someone else ended the reply (a stop, the server stopping).
    /// A run its chat stored whole only gets its events, as fast as they encode: no pace, no
    /// write (its typing was recorded with it).
    func generate(_ plan: ReplyPlan, _ run: ReplyRun) {
        if run.storedWhole { return encode(plan, into: run) }
        let conversationId = run.metadata.conversationId
        typing(conversationId, active: true)
        defer { typing(conversationId, active: false) }
        var partial = PartialReply()
        var lastSave = ContinuousClock.now
        let limits = configuration.replies
        /// Appends chunk number `index` (from 0) at the pace; false once someone else ended the reply.
        func emit(_ chunk: JSONTree, _ index: Int) -> Bool {
            if index > 0 { ReplyStreamer.sleep(configuration.replyDelay) }
            partial.apply(chunk)
            guard run.append(chunk.jsonText, parts: partial.parts) else { return false }
            if ContinuousClock.now - lastSave >= limits.checkpointInterval {
                _ = try? store.write(recordingEvents: false) { store in
                    try store.saveReplyProgress(partial.parts, events: index + 1, ofMessage: run.sequence)
                }
                lastSave = .now
            }
            return true
        }
        // The last chunk (`finish`) comes with the stored end.
        var index = 0
        let last = ReplyChunks.eachBeforeFinish(of: plan, metadata: run.metadata) { chunk in
            defer { index += 1 }
            return emit(chunk, index)
        }
        guard let last, let (_, events) = run.claimEnd(as: nil) else { return }
        // The parts' stored forms (JSON, search text, preview) are made before the write lock.
        let stored = StoredParts(plan.parts.map(\.jsonValue))
        do {
            try store.write { store in
                _ = try store.endReply(stored, state: nil, events: events + 2, ofMessage: run.sequence, now: Self.now)
            }
            run.end(appending: [last.jsonText, "[DONE]"])
        } catch {
            // Not stored: the row stays generating and the next start marks it interrupted.
            let failure: JSONTree = ["type": "error", "errorText": .string("the reply could not be stored: \(error)")]
            run.end(appending: [failure.jsonText, "[DONE]"])
        }
    }

    /// The events of a reply its chat stored whole, encoded into `run` one after another while
    /// its readers stream them, then `finish` and `[DONE]` (the first byte does not wait for the
    /// last chunk to be encoded, however long the reply).
    func encode(_ plan: ReplyPlan, into run: ReplyRun) {
        let last = ReplyChunks.eachBeforeFinish(of: plan, metadata: run.metadata) {
            run.append($0.jsonText, parts: [])
        }
        guard let last, run.claimEnd(as: nil) != nil else { return }
        run.end(appending: [last.jsonText, "[DONE]"])
    }

    /// As ``encode(_:into:)`` from chunks already encoded (``CountedReply/chunks(for:)``: each
    /// chunk's JSON bytes, `finish` last).
    func append(_ chunks: [[UInt8]], into run: ReplyRun) {
        guard let last = chunks.last else { return }
        for chunk in chunks.dropLast() {
            guard run.append(data: chunk) else { return }
        }
        guard run.claimEnd(as: nil) != nil else { return }
        run.end(appendingData: [last, Array("[DONE]".utf8)])
    }

    /// Stops a generating reply: stores the text so far as stopped, then ends every stream of it
    /// with `abort`, `finish` (`finishReason` stop, `aborted: true`) and `[DONE]`. When the reply
    /// is already ending (it finished, or another stop won) it waits for that end instead, as it
    /// does for a reply its chat stored whole (already finished in history).
    func stopReply(_ run: ReplyRun) {
        guard !run.storedWhole, let (parts, events) = run.claimEnd(as: .stopped) else {
            _ = run.waitForEnd(timeout: .seconds(10))
            return
        }
        let stored = StoredParts(parts)
        _ = try? store.write { store in
            try store.endReply(stored, state: .stopped, events: events + 3, ofMessage: run.sequence, now: Self.now)
        }
        let finish: JSONTree = [
            "type": "finish", "finishReason": "stop",
            "messageMetadata": run.metadata.finishMetadata(reason: "stop", aborted: true),
        ]
        run.end(appending: [#"{"type":"abort"}"#, finish.jsonText, "[DONE]"])
    }

    /// Ends every generating reply as interrupted, storing the text each had (the server is
    /// stopping); their streams are cut, and new replies are refused until ``reopenReplies()``.
    func interruptGeneratingReplies() {
        replies.close()
        for run in replies.generating where !run.storedWhole {
            guard let (parts, events) = run.claimEnd(as: .interrupted) else { continue }
            let stored = StoredParts(parts)
            _ = try? store.write { store in
                try store.endReply(stored, state: .interrupted, events: events, ofMessage: run.sequence, now: Self.now)
            }
            run.end(appending: [])
        }
    }

    /// Stores every reply a crash left generating as interrupted (with its last checkpoint) and
    /// accepts new replies. Called when the server starts.
    func reopenReplies() throws {
        try store.write { store in
            for reply in try store.generatingReplies() {
                _ = try store.endReply(
                    StoredParts(reply.parts), state: .interrupted, events: reply.events, ofMessage: reply.sequence,
                    now: Self.now)
            }
        }
        replies.reopen()
    }

    /// Streams `run`'s events after number `after` to `writer`, live until the reply ends, with
    /// the request's faults. A reply cut by the server stopping cuts this stream too. Without a
    /// transport fault the stream is handed after its head to the LiveStreamWriter with `place`
    /// (the connection's thread is then free); a faulted one (a test's pacing, small writes, a
    /// drop) is written here, holding `place` until it ends.
    func streamReply(
        _ run: ReplyRun, after: Int, fault: ChatAPIServer.Fault, headers: [(String, String)] = [],
        place: StreamPlace, _ writer: HTTPServerResponseWriter
    ) throws {
        var head = ReplyStreamer.headers + headers
        if configuration.resumableReplies { head.append(("X-Message-Id", run.messageId)) }
        let handsOff = fault.chunkSize == nil && fault.delay == nil && fault.dropAfterBytes == nil
        // A short reply that already ended (one its chat stored whole, encoded before its head) is
        // sent in one write with its head on this thread, which then reads the connection's next
        // request: handing it to the stream writer cost more (two threads woken, the socket made
        // non-blocking and polled, the head and the body in two sends) than the write itself.
        if handsOff, let events = Self.wholeBody(of: run, after: after) {
            return try writer.streamWhole(status: 200, headers: head, body: events)
        }
        // The stream writer gives the connection back at the stream's end when it can (keep-alive);
        // when it cannot it closes it: then say so, so no client reuses it.
        let resumption = handsOff ? writer.resumptionAfterHandOff : nil
        if handsOff, resumption == nil { head.append(("Connection", "close")) }
        try writer.startStream(status: 200, headers: head)
        if handsOff, let (socket, chunked) = writer.handOff() {
            guard let reservation = place.take() else { return }
            liveStreams.adopt(
                LiveStreamWriter.ReplyReader(
                    socket: socket, chunked: chunked, run: run, position: after, reservation: reservation,
                    writeTimeout: configuration.http.sendTimeout, resumption: resumption))
            return
        }
        var streamer = ReplyStreamer(fault: fault)
        let (ticket, wake) = run.addReader()
        defer { run.removeReader(ticket) }
        var position = after
        while true {
            let (events, count, phase) = run.events(after: position)
            for event in events {
                guard try streamer.write(event, to: writer) else { return }
            }
            position = count
            switch phase {
            case .ended(.interrupted): return writer.abortConnection()
            case .ended: return try writer.finishStream()
            case .generating, .ending: _ = wake.wait(timeout: .now() + .milliseconds(250))
            }
        }
    }

    /// The largest ended reply whose remaining events ``streamReply(_:after:fault:headers:place:_:)``
    /// sends with its head in one write (64 KiB: well within a socket's send buffer).
    static let wholeStreamBytes = 64 << 10

    /// The events of `run` after number `after` when the reply has ended (not cut by a server
    /// stop, which drops its streams) and it holds at most ``wholeStreamBytes``; else nil.
    static func wholeBody(of run: ReplyRun, after: Int) -> ArraySlice<[UInt8]>? {
        guard run.heldBytes <= wholeStreamBytes else { return nil }
        let (events, _, phase) = run.events(after: after)
        guard case .ended(let outcome) = phase, outcome != .interrupted else { return nil }
        return events
    }

    /// Records a `typing` live event for the agent, when someone is listening: typing is a passing
    /// state, not worth a durable write (and two commits per chat) when no stream would carry it.
    func typing(_ conversationId: String, active: Bool) {
        guard store.liveEventSignal.subscriberCount > 0 else { return }
        store.recordLiveEvent(
            type: "typing",
            data: StoreTransaction.typing(conversationId, active),
            conversationId: conversationId)
    }
}

extension ReplyRun {
    /// The SSE bytes a reply generated from `plan` will hold once it finished: its chunks as
    /// ``ChatAPIHandlers/generate(_:_:)`` sends them, then `[DONE]` (a stop's closing events are
    /// of the same order). Encodes the chunks one at a time without keeping them.
    static func plannedBytes(of plan: ReplyPlan, metadata: ReplyMetadata, numbered: Bool) -> Int {
        count(plan, metadata: metadata, numbered: numbered, keepingUpTo: 0).bytes
    }

    /// ``plannedBytes(of:metadata:numbered:)``, and the chunks' JSON bytes (`finish` last) when
    /// those bytes are at most `keptBytes` (nil otherwise). Written one chunk at a time
    /// (ReplyChunkBytes): a long reply is counted without being held.
    static func count(
        _ plan: ReplyPlan, metadata: ReplyMetadata, numbered: Bool, keepingUpTo keptBytes: Int
    ) -> (bytes: Int, chunks: [[UInt8]]?) {
        var counter = ByteCount(numbered: numbered)
        var kept: [[UInt8]]? = keptBytes > 0 ? [] : nil
        ReplyChunkBytes.forEachChunk(of: plan, metadata: metadata) { chunk in
            counter.add(chunk.count)
            guard kept != nil else { return }
            if counter.bytes <= keptBytes { kept?.append(chunk) } else { kept = nil }
        }
        counter.addDone()
        return (counter.bytes, counter.bytes <= keptBytes ? kept : nil)
    }

    /// The SSE bytes of a run's events, counted one event's data at a time.
    struct ByteCount {
        let numbered: Bool
        private(set) var bytes = 0
        private var number = 0

        init(numbered: Bool) { self.numbered = numbered }

        /// Counts the event carrying `data` bytes.
        mutating func add(_ data: Int) {
            number += 1
            bytes += data + 8  // "data: " and the blank line
            if numbered { bytes += 5 + String(number).utf8.count }  // "id: N\n"
        }

        /// Counts the closing `[DONE]`.
        mutating func addDone() { add(6) }
    }

    /// The JSON bytes of a reply's two metadata trees: the only part of
    /// ``plannedBytes(of:metadata:numbered:)`` that depends on the IDs the store transaction
    /// settles, so a count made before the transaction with stand-in metadata
    /// (``CountedReply``) is corrected in it by the difference, without encoding the reply again
    /// under the write lock.
    static func metadataBytes(_ metadata: ReplyMetadata, reason: String) -> Int {
        var scratch: [UInt8] = []
        ReplyChunks.startMetadata(metadata).write(to: &scratch)
        metadata.finishMetadata(reason: reason).write(to: &scratch)
        return scratch.count
    }

    /// An ended run holding the events of a stored reply no longer held (a resend replayed after
    /// its events expired): the whole reply, or for a stopped one its text then `abort` and the
    /// aborted `finish`, or for an interrupted one its text then an `error` chunk.
    static func ended(_ plan: ReplyPlan, _ metadata: ReplyMetadata, state: ReplyState?, numbered: Bool) -> ReplyRun {
        let run = ReplyRun(metadata: metadata, sequence: 0, ownerKey: "", numbered: numbered)
        var chunks = ReplyChunks.chunks(for: plan, metadata: metadata)
        var closing = [chunks.removeLast().jsonText, "[DONE]"]
        switch state {
        case .stopped:
            let finish: JSONTree = [
                "type": "finish", "finishReason": "stop",
                "messageMetadata": metadata.finishMetadata(reason: "stop", aborted: true),
            ]
            closing = [#"{"type":"abort"}"#, finish.jsonText, "[DONE]"]
        case .interrupted:
            closing = [ReplyRun.interruptedError.jsonText, "[DONE]"]
        case .generating, nil:
            break
        }
        for chunk in chunks { _ = run.append(chunk.jsonText, parts: []) }
        _ = run.claimEnd(as: state)
        run.end(appending: closing)
        return run
    }

    /// The chunk that ends a reply cut by a server restart.
    static let interruptedError: JSONTree = [
        "type": "error",
        "errorText": "the reply was interrupted by a server restart; retry it to generate it again",
    ]
}

/// A reply's parts as far as its chunks went: text so far (a text part appears with its first
/// delta) and completed tool calls.
struct PartialReply {
    private(set) var parts: [JSONTree] = []
    /// The index in ``parts`` of the text part being written, and its text.
    private var text: (index: Int, value: String)?

    /// Takes one chunk of the UI message stream into account.
    mutating func apply(_ chunk: JSONTree) {
        switch chunk["type"]?.stringValue {
        case "text-start", "text-end":
            text = nil
        case "text-delta":
            var current = text ?? (parts.count, "")
            if text == nil { parts.append(AssembledPart.text("").jsonValue) }
            current.value += chunk["delta"]?.stringValue ?? ""
            text = current
            parts[current.index] = AssembledPart.text(current.value).jsonValue
        case "tool-input-available":
            let call = ToolCallPart(
                toolCallId: chunk["toolCallId"]?.stringValue ?? "", toolName: chunk["toolName"]?.stringValue ?? "",
                input: chunk["input"] ?? .null)
            parts.append(AssembledPart.toolCall(call).jsonValue)
        default:
            break
        }
    }
}

/// A streamed reply's size in bytes (``ReplyRun/plannedBytes(of:metadata:numbered:)``) counted
/// before the store transaction, with the metadata the transaction will most likely settle:
/// encoding a long reply's chunks to count them took the write lock's time for a 1 MiB message.
/// In the transaction, ``bytes(for:)`` is that count when the guess held (a new
/// conversation's chat), else it corrects it by the metadata the transaction settled.
struct CountedReply: Sendable {
    /// The count with ``standIn``.
    let bytes: Int
    /// The metadata counted with.
    let standIn: ReplyMetadata
    /// The plan's finish reason.
    private let reason: String
    /// The chunks' JSON bytes as counted (`finish` last), when kept (see ``init(_:metadata:numbered:keepingUpTo:)``).
    private let chunks: [[UInt8]]?

    /// Counts `plan` with `metadata` (the IDs as far as they are known or guessed), and keeps the
    /// chunks' bytes when the reply's bytes are at most `keptBytes`: a reply stored whole is then
    /// streamed from them (``chunks(for:)``) instead of being encoded a second time.
    init(_ plan: ReplyPlan, metadata: ReplyMetadata, numbered: Bool, keepingUpTo keptBytes: Int = 0) {
        standIn = metadata
        reason = plan.finishReason
        (bytes, chunks) = ReplyRun.count(plan, metadata: metadata, numbered: numbered, keepingUpTo: keptBytes)
    }

    /// The chunks' JSON bytes (`finish` last) when kept and counted with `metadata`, else nil.
    func chunks(for metadata: ReplyMetadata) -> [[UInt8]]? {
        metadata == standIn ? chunks : nil
    }

    /// The count for the reply's real `metadata`.
    func bytes(for metadata: ReplyMetadata) -> Int {
        guard metadata != standIn else { return bytes }
        return bytes - ReplyRun.metadataBytes(standIn, reason: reason)
            + ReplyRun.metadataBytes(metadata, reason: reason)
    }
}
