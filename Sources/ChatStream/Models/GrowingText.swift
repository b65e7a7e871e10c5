// GrowingText: the text of a message part that is still growing, held so that a copy of it (the
// part in a snapshot of the message) costs a retain, and an append after the copy costs the delta,
// however long the text already is.
//
// The text is a chain of chunks, each a final class holding a `String` and the chunk before it.
// Only the newest chunk is ever written, and only while this value is its one owner
// (`isKnownUniquelyReferenced`), the copy-on-write rule of the standard library's own collections:
// with no snapshot held, every append goes in place into one `String`, so a text built without
// snapshots is one chunk, and reading it hands out that `String` itself (shared storage, no copy).
// When a snapshot holds the newest chunk, that chunk is never written again, and the append adds
// the delta as a new chunk after it. The small chunks appended that way gather in a run that is
// merged into one chunk once it holds `chunkBytes` (the snapshots keep the chunks they hold), so
// each delta is copied once more at most and the chain has one chunk per `chunkBytes` of text, plus
// the run under way. Reading a chain of several chunks joins them into one `String`: O(text), paid
// by the reader, per read. The final messages of a stream hold their open part as one chunk again
// (`collapse()`), so reading them is O(1).

/// Append-only text with O(1) copies: copies share the chunks written so far, and an append to one
/// copy writes only where no other copy looks.
struct GrowingText: Sendable {
    /// The newest chunk (the earlier ones hang off it); nil while the text is empty.
    private var last: Chunk?
    /// How many of the newest chunks form the run that is not merged yet (see ``chunkBytes``).
    private var runChunks = 0
    /// The UTF-8 length of that run.
    private var runBytes = 0

    /// How much text a run of chunks gathers before it is merged into one chunk: the chain holds
    /// one chunk per `chunkBytes` of text at most, plus the run under way.
    static let chunkBytes = 1024

    /// Empty text.
    init() {}

    /// `text` as one chunk.
    init(_ text: String) {
        if !text.isEmpty {
            last = Chunk(text, after: nil)
            runChunks = 1
            runBytes = text.utf8.count
        }
    }

    /// Appends `delta`: in place while this value is the newest chunk's one owner; otherwise as a
    /// new chunk after it, leaving the other owners' text as it was.
    mutating func append(_ delta: String) {
        if isKnownUniquelyReferenced(&last) {
            last!.text.append(delta)
            runBytes &+= delta.utf8.count
        } else {
            appendShared(delta)
        }
    }

    /// ``append(_:)`` when the newest chunk is shared (a snapshot holds it) or there is none: the
    /// delta becomes a chunk of its own (its `String` shared, not copied). Small chunks gather in
    /// a run, which is merged into one chunk when it holds ``chunkBytes`` and the next run
    /// starts: one copy of the run, so each delta is copied once at most, and the chain stays short.
    @inline(never)
    private mutating func appendShared(_ delta: String) {
        guard !delta.isEmpty else { return }
        if runBytes >= Self.chunkBytes || last == nil {
            // The run so far is long enough to stand as one chunk: merge it, start a new one.
            if runChunks > 1 { mergeRun() }
            runChunks = 0
            runBytes = 0
        }
        last = Chunk(delta, after: last)
        runChunks += 1
        runBytes += delta.utf8.count
    }

    /// Replaces the run's chunks with one holding their text (the chunks stay as they are for the
    /// snapshots that hold them).
    @inline(never)
    private mutating func mergeRun() {
        var pieces: [String] = []
        pieces.reserveCapacity(runChunks)
        var chunk = last
        for _ in 0..<runChunks {
            pieces.append(chunk!.text)
            chunk = chunk!.earlier
        }
        var merged = String()
        merged.reserveCapacity(runBytes)
        for piece in pieces.reversed() { merged.append(piece) }
        last = Chunk(merged, after: chunk)
        runChunks = 1
    }

    /// Whether the text is empty.
    var isEmpty: Bool { last == nil }

    /// The text's length in UTF-8 bytes.
    var utf8Count: Int {
        guard let last else { return 0 }
        return last.earlierUTF8Count + last.text.utf8.count
    }

    /// How many chunks hold the text (for tests of the chain's shape).
    var chunkCount: Int {
        var count = 0
        var chunk = last
        while let current = chunk {
            count += 1
            chunk = current.earlier
        }
        return count
    }

    /// The whole text: the newest chunk's `String` itself when it is the only one (no copy), else
    /// the chunks joined.
    var string: String {
        guard let last else { return "" }
        guard last.earlier != nil else { return last.text }
        return joined(last)
    }

    /// Makes the text one chunk again (joining the chain once), so that later reads are O(1).
    mutating func collapse() {
        guard let last, last.earlier != nil else { return }
        self.last = Chunk(joined(last), after: nil)
        runChunks = 1
        runBytes = utf8Count
    }

    /// The chain ending at `newest`, joined.
    @inline(never)
    private func joined(_ newest: Chunk) -> String {
        var chunks: [Chunk] = []
        var chunk: Chunk? = newest
        while let current = chunk {
            chunks.append(current)
            chunk = current.earlier
        }
        var text = String()
        text.reserveCapacity(newest.earlierUTF8Count + newest.text.utf8.count)
        for chunk in chunks.reversed() { text.append(chunk.text) }
        return text
    }
}

extension GrowingText {
    /// One chunk of a ``GrowingText``.
    ///
    /// `@unchecked Sendable`: `text` is written only through a reference that
    /// `isKnownUniquelyReferenced` found to be the only one, so no other thread can be reading it
    /// then; a chunk reachable from anywhere else (a snapshot, a later chunk) is never written.
    /// `earlier` is taken out only by `deinit`, of chunks that nothing else references.
    final class Chunk: @unchecked Sendable {
        /// The chunk's text. (Exclusive access is guaranteed by the uniqueness check before every
        /// write, so the run-time exclusivity check is not needed on this hot path.)
        @exclusivity(unchecked) var text: String
        /// The chunk before this one.
        @exclusivity(unchecked) private(set) var earlier: Chunk?
        /// The UTF-8 length of the chunks before this one.
        let earlierUTF8Count: Int

        init(_ text: String, after earlier: Chunk?) {
            self.text = text
            self.earlier = earlier
            earlierUTF8Count = earlier.map { $0.earlierUTF8Count + $0.text.utf8.count } ?? 0
        }

        /// Releases the chain behind this chunk iteratively, so that a long chain does not
        /// release itself recursively (one stack frame per chunk).
        deinit {
            var next = earlier.take()
            while isKnownUniquelyReferenced(&next) {
                next = next!.earlier.take()
            }
        }
    }
}
