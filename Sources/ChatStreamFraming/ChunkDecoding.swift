// ChunkDecoding and FramedIterator: the one loop behind every framing's AsyncSequence.
//
// The async adapters hold no parsing logic: they pull a chunk from the base sequence, hand its
// bytes to the pure decoder (without copying when the chunk is contiguous), queue the owned
// units it completes, and hand them out one per `next()`. The queue is an array with a read index,
// emptied with its capacity kept, so no element is ever removed from its front.

/// A decoder the async adapters can drive.
protocol ChunkDecoding {
    associatedtype Unit
    mutating func decode(_ bytes: UnsafeRawBufferPointer, into units: inout [Unit]) throws
    /// Returns whether the stream ended inside a unit (SSE only; the others deliver everything).
    mutating func finishDecoding(into units: inout [Unit]) throws -> StreamEnd
}

extension ServerSentEventDecoder: ChunkDecoding {
    mutating func decode(_ bytes: UnsafeRawBufferPointer, into units: inout [ServerSentEvent]) throws {
        try feed(bytes) { units.append(ServerSentEvent($0)) }
    }

    mutating func finishDecoding(into units: inout [ServerSentEvent]) throws -> StreamEnd {
        try finish()
    }
}

extension NDJSONDecoder: ChunkDecoding {
    mutating func decode(_ bytes: UnsafeRawBufferPointer, into units: inout [NDJSONLine]) throws {
        try feed(bytes) { units.append(NDJSONLine($0)) }
    }

    mutating func finishDecoding(into units: inout [NDJSONLine]) throws -> StreamEnd {
        try finish { units.append(NDJSONLine($0)) }
        return StreamEnd(totalBytes: 0)
    }
}

extension DataStreamV4Decoder: ChunkDecoding {
    mutating func decode(_ bytes: UnsafeRawBufferPointer, into units: inout [DataStreamV4Part]) throws {
        try feed(bytes) { units.append(DataStreamV4Part($0)) }
    }

    mutating func finishDecoding(into units: inout [DataStreamV4Part]) throws -> StreamEnd {
        try finish { units.append(DataStreamV4Part($0)) }
        return StreamEnd(totalBytes: 0)
    }
}

/// Pulls chunks from `base` through `decoder` and hands out the units one at a time.
struct FramedIterator<Base: AsyncIteratorProtocol, Decoder: ChunkDecoding>
where Base.Element: Collection, Base.Element.Element == UInt8 {
    private var base: Base
    private var decoder: Decoder
    private let throwsOnTruncation: Bool
    private var pending: [Decoder.Unit] = []
    private var readIndex = 0
    private var done = false
    private(set) var end: StreamEnd?

    init(base: Base, decoder: Decoder, throwsOnTruncation: Bool) {
        self.base = base
        self.decoder = decoder
        self.throwsOnTruncation = throwsOnTruncation
    }

    mutating func next() async throws -> Decoder.Unit? {
        while true {
            if readIndex < pending.count {
                let unit = pending[readIndex]
                readIndex += 1
                return unit
            }
            pending.removeAll(keepingCapacity: true)
            readIndex = 0
            if done { return nil }
            do {
                if let chunk = try await base.next() {
                    try withContiguousBytes(chunk) { try decoder.decode($0, into: &pending) }
                } else {
                    done = true
                    let end = try decoder.finishDecoding(into: &pending)
                    self.end = end
                    if throwsOnTruncation, let offset = end.droppedFromOffset {
                        throw FramingError(
                            .truncated, byteOffset: offset,
                            message: "the stream ended inside an event; \(end.droppedBytes) bytes were dropped")
                    }
                }
            } catch {
                done = true
                pending.removeAll()
                throw error
            }
        }
    }
}
