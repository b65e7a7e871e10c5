/// A response body: an `AsyncSequence` of byte chunks in the order and sizes they arrived.
///
/// It ends when the response is complete and throws a ``TransportError`` when the response failed
/// part-way (after yielding every chunk received before the failure). Iterate it once.
///
/// ```swift
/// for try await chunk in response.body { try decoder.feed(chunk) }
/// // or, for small bodies:
/// let bytes = try await response.body.collect(upTo: 1 << 20)
/// ```
public struct HTTPBody: AsyncSequence, Sendable {
    /// One chunk of bytes.
    public typealias Element = [UInt8]

    private let stream: AsyncThrowingStream<[UInt8], any Error>?
    /// Told the size of each chunk the consumer takes (the transport's flow control).
    private let taken: (@Sendable (Int) -> Void)?
    /// A transport's batches, when the body is fed by one directly rather than by a stream.
    private let batches: HTTPBodyBatches?
    /// When the body must have ended (``HTTPRequest/totalTimeout``), if ever.
    private var deadline: ContinuousClock.Instant?

    /// A body fed by an `AsyncThrowingStream` (what transports and test doubles use).
    public init(_ stream: AsyncThrowingStream<[UInt8], any Error>) {
        self.stream = stream
        self.taken = nil
        self.batches = nil
    }

    /// A body that reports each chunk its consumer takes to `taken` (how a transport knows its
    /// buffer drained and reading may resume).
    init(_ stream: AsyncThrowingStream<[UInt8], any Error>, taken: @escaping @Sendable (Int) -> Void) {
        self.stream = stream
        self.taken = taken
        self.batches = nil
    }

    /// A body that takes, at each step, every byte `source` received since the last one.
    init(batches source: any HTTPBodyBatchSource) {
        self.stream = nil
        self.taken = nil
        self.batches = HTTPBodyBatches(source)
    }

    /// A body of fixed chunks (default: the whole `bytes` as one chunk; none when empty).
    public init(bytes: [UInt8]) {
        self.init(chunks: bytes.isEmpty ? [] : [bytes])
    }

    /// A body that yields `chunks` in order, then ends.
    public init(chunks: [[UInt8]]) {
        self.init(
            AsyncThrowingStream { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            })
    }

    /// The same body, ending with ``TransportError/Kind/timedOut`` once `deadline` has passed
    /// (see ``HTTPRequest/totalTimeout``): every chunk received before is handed over first.
    public func ending(at deadline: ContinuousClock.Instant) -> HTTPBody {
        var body = self
        body.deadline = Swift.min(deadline, self.deadline ?? deadline)
        return body
    }

    /// Ends the request now, as dropping the body would (a transport's batched body; a
    /// stream-fed one ends when its iterator goes): what its reader gave up on stops arriving.
    func cancel() { batches?.source.bodyDropped() }

    /// Reads the chunks one by one.
    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate var base: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator?
        fileprivate let taken: (@Sendable (Int) -> Void)?
        fileprivate let batches: HTTPBodyBatches?
        fileprivate let deadline: ContinuousClock.Instant?

        /// The next chunk, nil at the end; throws the transport's error, or
        /// ``TransportError/Kind/timedOut`` when the body's deadline has passed.
        public mutating func next() async throws -> [UInt8]? {
            if let deadline, ContinuousClock.now >= deadline {
                // Dropping the iterator (and so the body) cancels the transfer.
                base = nil
                throw TransportError(.timedOut, "the response did not end before its total timeout")
            }
            if let batches { return try await batches.source.nextBatch() }
            let chunk = try await base?.next()
            if let chunk, let taken { taken(chunk.count) }
            return chunk
        }
    }

    /// An iterator over the chunks.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream?.makeAsyncIterator(), taken: taken, batches: batches, deadline: deadline)
    }

    /// The whole body as one array.
    ///
    /// - Throws: ``TransportError/Kind/bodyTooLarge`` (and stops reading, cancelling the request)
    ///   as soon as more than `maxBytes` arrived; otherwise the transport's error.
    public func collect(upTo maxBytes: Int) async throws -> [UInt8] {
        var result: [UInt8] = []
        for try await chunk in self {
            guard result.count + chunk.count <= maxBytes else {
                throw TransportError(.bodyTooLarge, "response body exceeds \(maxBytes) bytes")
            }
            result.append(contentsOf: chunk)
        }
        return result
    }
}

/// An iterator is used by one task at a time.
@available(*, unavailable)
extension HTTPBody.AsyncIterator: Sendable {}

/// A transport that hands a body's bytes out in batches: everything received since the consumer's
/// last step, in one array, so that a consumer slower than the network wakes once per batch rather
/// than once per network read.
protocol HTTPBodyBatchSource: AnyObject, Sendable {
    /// Every byte received and not yet taken (waiting when there is none); nil at the end; throws
    /// the transport's error once the bytes received before it are taken.
    func nextBatch() async throws -> [UInt8]?
    /// The body and all its iterators are gone: the request is cancelled.
    func bodyDropped()
}

/// Holds a batch source for a body and its iterators; when the last of them goes, so does the request.
final class HTTPBodyBatches: Sendable {
    let source: any HTTPBodyBatchSource

    init(_ source: any HTTPBodyBatchSource) { self.source = source }

    deinit { source.bodyDropped() }
}
