// ReplyStreamer: writes a streamed reply's events to one reader's connection and applies the
// request's transport faults (write size, a pause after each write, a dropped connection). Pacing
// is the generator's (ChatAPIHandlers+ReplyStreams.swift); this runs on the connection's thread.

import ChatStream

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes SSE events to a response, applying faults.
struct ReplyStreamer {
    var fault: ChatAPIServer.Fault
    /// Body bytes written so far.
    private var sent = 0

    init(fault: ChatAPIServer.Fault) {
        self.fault = fault
    }

    /// The response headers of a UI message stream.
    static let headers: [(String, String)] = [
        ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"),
        ("x-vercel-ai-ui-message-stream", "v1"),
    ]

    /// Writes one event (in pieces of `fault.chunkSize`); false when `fault.dropAfterBytes` was
    /// reached and the connection dropped (without the stream's end). Throws when the client went away.
    mutating func write(_ event: [UInt8], to writer: HTTPServerResponseWriter) throws -> Bool {
        let size = fault.chunkSize ?? event.count
        for start in stride(from: 0, to: event.count, by: max(1, size)) {
            let piece = Array(event[start..<min(start + size, event.count)])
            if let limit = fault.dropAfterBytes, sent + piece.count >= limit {
                try writer.write(Array(piece.prefix(limit - sent)))
                writer.abortConnection()
                return false
            }
            try writer.write(piece)
            sent += piece.count
            if let delay = fault.delay { Self.sleep(delay) }
        }
        return true
    }

    /// Blocks the current thread for `duration` (nothing for zero).
    static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds > 0 || attoseconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
