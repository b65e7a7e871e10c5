// GET /agents/{agentId}/events: the caller's live events as an endless SSE stream (PROTOCOLS.md
// section 6).
//
// The handler runs on its connection's thread, like every handler. It starts with `retry:`, sends
// what the log holds after `Last-Event-ID` (or `reset` when it cannot), then `subscribed` with the
// caller's position (the ID a reconnect resumes from, so nothing is missed), then sleeps on the store's
// signal, waking for each commit and at least every heartbeat to send `: ping`. Events are pulled
// from the log, never queued per subscriber, so a slow reader costs no memory: its writes block
// until the write timeout, then it is disconnected and resumes later from its last ID. A stream
// opened with a user token ends when that token expires (its `exp` plus the clock skew).

import ChatStream
import Dispatch
import Foundation

extension ChatAPIHandlers {
    /// GET /agents/{agentId}/events.
    func events(_ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let settings = configuration.liveEvents
        let given = request.headers["Last-Event-ID"]?.trimmingSpaces() ?? request.queryValue("lastEventId")
        guard let (ticket, wake) = store.liveEventSignal.subscribe() else {
            throw APIError(status: 503, code: "SERVICE_UNAVAILABLE", message: "the server is stopping")
        }
        defer { store.liveEventSignal.unsubscribe(ticket) }
        writer.setWriteTimeout(settings.writeTimeout)
        try writer.startStream(
            status: 200,
            headers: [
                ("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-cache"),
                ("X-Accel-Buffering", "no"),
            ])
        var sent = 0
        var opening = "retry: \(settings.retryMilliseconds)\n\n"
        var cursor: Int
        if let given, !given.isEmpty {
            // A resume: the events held after the given ID, or `reset` with the newest ID when this
            // log cannot vouch for it (unparseable, from the future, or older than what it holds).
            let (resumption, newest) = store.liveEvents(after: Int(given) ?? -1, audiences: caller.audiences)
            switch resumption {
            case .reset:
                opening += "id: \(newest)\nevent: reset\ndata: {}\n\n"
                cursor = newest
                sent += 1
                if let limit = settings.dropEvery, sent >= limit {
                    try writer.write(opening)
                    return writer.abortConnection()
                }
            case .events(let records):
                for record in records {
                    opening += "id: \(record.id)\nevent: \(record.type)\ndata: \(record.data.jsonText)\n\n"
                    sent += 1
                    if let limit = settings.dropEvery, sent >= limit {
                        try writer.write(opening)
                        return writer.abortConnection()
                    }
                }
                cursor = newest
            }
        } else {
            cursor = store.liveEvents(after: 0, audiences: []).lastId
        }
        // Where "now" is: every event of the caller up to `cursor` was sent or came before the given ID.
        opening += "id: \(cursor)\nevent: subscribed\ndata: {}\n\n"
        try writer.write(opening)
        var quietSince = ContinuousClock.now
        while !store.liveEventSignal.isClosed {
            // A stream lives no longer than the token it was opened with: the reconnect answers 401.
            if let until = caller.tokenAcceptedUntil, Date().timeIntervalSince1970 >= until { break }
            let (resumption, newest) = store.liveEvents(after: cursor, audiences: caller.audiences)
            switch resumption {
            case .reset:
                // Events were evicted while this subscriber lagged: say so, as on a resume.
                try writer.write("id: \(newest)\nevent: reset\ndata: {}\n\n")
                cursor = newest
                sent += 1
                quietSince = .now
            case .events(let records):
                for record in records {
                    try writer.write("id: \(record.id)\nevent: \(record.type)\ndata: \(record.data.jsonText)\n\n")
                    cursor = record.id
                    sent += 1
                    quietSince = .now
                    if let limit = settings.dropEvery, sent >= limit { return writer.abortConnection() }
                }
                if records.isEmpty { cursor = max(cursor, newest) }
            }
            if let limit = settings.dropEvery, sent >= limit { return writer.abortConnection() }
            let remaining = settings.heartbeat - (ContinuousClock.now - quietSince)
            if remaining <= .zero {
                try writer.write(": ping\n\n")
                quietSince = .now
                continue
            }
            // Wake for a commit, for the heartbeat, or within a quarter second to notice a stop.
            let slice = min(remaining, .milliseconds(250))
            _ = wake.wait(timeout: .now() + .milliseconds(Int(slice.pollMilliseconds)))
        }
        try writer.finishStream()
    }
}
