// The async form of UIMessageStreamEncoder, for a server passing a provider's stream on.
//
// The source is read in a task of its own, which hands the SSE bytes over as each event gives
// some; a reply's worth is held at most, when the reader is slower than the provider. When the
// reader stops (its task is cancelled, or it drops the iterator: a closed connection ends the
// response writer's loop), that task is cancelled, and with it the source's `next()`: an
// `AsyncThrowingStream` source's `onTermination` runs, a URLSession byte stream cancels its
// request. Iterating the source in place would not do: a dropped iterator tells its source nothing.

/// The UI message stream SSE bytes of a sequence of ``StreamEvent``s.
///
/// A source that fails mid-stream ends the output with an `error` chunk naming what failed and
/// `data: [DONE]`, so the reader keeps everything sent before; the sequence then ends without
/// throwing. A reader that stops cancels the source.
///
/// ```swift
/// for await bytes in upstream.streamEvents(format: .openAIChat).uiMessageStream() {
///     print(String(decoding: bytes, as: UTF8.self), terminator: "")
/// }
/// ```
public struct AsyncUIMessageStreamSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element == StreamEvent {
    public typealias Element = [UInt8]

    let base: Base
    let firstEventID: Int?

    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        let base = base
        let firstEventID = firstEventID
        let task = Task {
            var encoder = UIMessageStreamEncoder(firstEventID: firstEventID)
            do {
                for try await event in base {
                    let bytes = encoder.encode(event)
                    if !bytes.isEmpty { continuation.yield(bytes) }
                    if encoder.isDone { break }
                }
                let end = encoder.finish()
                if !end.isEmpty { continuation.yield(end) }
            } catch {
                if !(error is CancellationError), !Task.isCancelled {
                    let info = (error as? StreamError)?.info ?? StreamErrorInfo(message: "\(error)")
                    continuation.yield(encoder.encode(.error(info)) + encoder.finish())
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return Iterator(stream: stream.makeAsyncIterator(), reader: Reader(task: task))
    }

    /// Hands over the bytes the reading task produced.
    public struct Iterator: AsyncIteratorProtocol {
        var stream: AsyncStream<[UInt8]>.Iterator
        let reader: Reader

        public mutating func next() async -> [UInt8]? {
            await stream.next()
        }
    }

    /// Cancels the reading task when the last copy of the iterator goes away.
    final class Reader: Sendable {
        let task: Task<Void, Never>
        init(task: Task<Void, Never>) { self.task = task }
        deinit { task.cancel() }
    }
}

@available(*, unavailable)
extension AsyncUIMessageStreamSequence.Iterator: Sendable {}

extension AsyncSequence where Self: Sendable, Element == StreamEvent {
    /// These events as UI message stream SSE bytes (``UIMessageStreamEncoder``), numbered from
    /// `firstEventID` when one is given; always ends with `data: [DONE]`.
    public func uiMessageStream(firstEventID: Int? = nil) -> AsyncUIMessageStreamSequence<Self> {
        AsyncUIMessageStreamSequence(base: self, firstEventID: firstEventID)
    }
}
