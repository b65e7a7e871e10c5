// ReplyStreamer: writes a streamed reply, paced, and applies the transport faults
// (write size, delay, dropped connection). Runs on the connection's thread, so it may sleep.

import ChatStream

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes SSE events to a response, applying pacing and faults.
struct ReplyStreamer {
    /// The pause between events when no fault delay is set.
    var pacing: Duration
    var fault: ChatAPIServer.Fault

    /// The response headers of a UI message stream.
    static let headers: [(String, String)] = [
        ("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"),
        ("x-vercel-ai-ui-message-stream", "v1"),
    ]

    /// Starts the stream and writes `events`; stops early (dropping the connection) after
    /// `fault.dropAfterBytes` body bytes. Throws when the client went away.
    func stream(
        _ events: [[UInt8]], to writer: HTTPServerResponseWriter, extraHeaders: [(String, String)] = []
    ) throws {
        try writer.startStream(status: 200, headers: Self.headers + extraHeaders)
        var sent = 0
        for (index, event) in events.enumerated() {
            if index > 0, fault.delay == nil { Self.sleep(pacing) }
            let size = fault.chunkSize ?? event.count
            for start in stride(from: 0, to: event.count, by: size) {
                let piece = Array(event[start..<min(start + size, event.count)])
                if let limit = fault.dropAfterBytes, sent + piece.count >= limit {
                    try writer.write(Array(piece.prefix(limit - sent)))
                    writer.abortConnection()
                    return
                }
                try writer.write(piece)
                sent += piece.count
                if let delay = fault.delay { Self.sleep(delay) }
            }
        }
        try writer.finishStream()
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
