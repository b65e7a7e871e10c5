import ChatStream
import Foundation

/// A streamed reply that broke off or carried an error after it began, with what arrived of it.
/// Thrown inside ``APIError/networkError(_:)``. ChatStream's own.
///
/// ```swift
/// do {
///     _ = try await client.send("Tell me a story")
/// } catch let error as APIError {
///     if let broken = error.replyStreamError { print("got so far:", broken.partialMessage.text) }
/// }
/// ```
public struct ReplyStreamError: Error, LocalizedError, Sendable, CustomStringConvertible {
    /// Why the stream failed (`StreamError.Kind`: truncated, malformed, remote...).
    public let streamError: StreamError
    /// The reply as far as it arrived.
    public let partialMessage: AssembledMessage
    /// The transport's error, when the connection broke.
    public let transportError: TransportError?

    /// A broken reply.
    public init(streamError: StreamError, partialMessage: AssembledMessage, transportError: TransportError? = nil) {
        self.streamError = streamError
        self.partialMessage = partialMessage
        self.transportError = transportError
    }

    /// A sentence for people.
    public var errorDescription: String? { "The reply broke off: \(streamError.description)" }

    /// `stream: <what the stream error says>`.
    public var description: String { "stream: \(streamError.description)" }
}
