// GET /agents/{agentId}/events: the caller's live events as an endless SSE stream (PROTOCOLS.md
// section 6).
//
// The handler takes one of the live-stream caps' places (global, per address, per network: else
// 503 `SERVICE_STREAMS_BUSY`) and counts itself a subscriber, reads what the log holds after
// `Last-Event-ID` (503 `SERVICE_UNAVAILABLE` when the log cannot be read, never an empty answer
// in its place), then on its connection's thread sends the head, `retry:`, those events (or
// `reset` when it cannot vouch for the ID), then `subscribed` with the caller's position (the ID
// a reconnect resumes from, so nothing is missed). Then it hands the socket to the
// server's LiveStreamWriter, which serves the rest of the stream (events as they commit, `: ping`
// heartbeats, the end at the token's expiry) on one thread for every subscriber, and the
// connection's thread is free again.

import ChatStream
import Dispatch
import Foundation

extension ChatAPIHandlers {
    /// GET /agents/{agentId}/events.
    func events(_ request: HTTPServerRequest, _ writer: HTTPServerResponseWriter) throws {
        let caller = try Caller(request: request, verifier: verifier)
        let agentFilter = LiveEventAgentFilter(caller: caller, configuration: configuration, store: store)
        let settings = configuration.liveEvents
        let given = request.headers["Last-Event-ID"]?.trimmingSpaces() ?? request.queryValue("lastEventId")
        guard !store.liveEventSignal.isClosed else {
            throw APIError(status: 503, code: "SERVICE_UNAVAILABLE", message: "the server is stopping")
        }
        guard let reservation = liveStreams.caps.reserve(request.remoteHost) else { throw APIError.streamsBusy }
        // Counted as a subscriber from before its position is taken, so an event recorded only
        // while someone listens (typing) and committed after `cursor` below is recorded for it.
        store.liveEventSignal.streamsChanged(by: 1)
        var handedOff = false
        defer {
            if !handedOff {
                store.liveEventSignal.streamsChanged(by: -1)
                liveStreams.caps.release(reservation)
            }
        }
        var sent = 0
        var opening = "retry: \(settings.retryMilliseconds)\n\n"
        var cursor: Int
        do {
            if let given, !given.isEmpty {
                // A resume: the events held after the given ID, or `reset` with the newest ID when this
                // log cannot vouch for it (unparseable, from the future, or older than what it holds).
                let (resumption, newest) = try store.liveEvents(after: Int(given) ?? -1, audiences: caller.audiences)
                switch resumption {
                case .reset:
                    opening += "id: \(newest)\nevent: reset\ndata: {}\n\n"
                    sent += 1
                case .events(let records):
                    for record in records where agentFilter.admits(record) {
                        opening += "id: \(record.id)\nevent: \(record.type)\ndata: \(record.data.jsonText)\n\n"
                        sent += 1
                        if let limit = settings.dropEvery, sent >= limit { break }
                    }
                }
                cursor = newest
            } else {
                cursor = try store.liveEvents(after: 0, audiences: []).lastId
            }
        } catch {
            // Before the head: the client retries later, from the ID it has.
            throw APIError(status: 503, code: "SERVICE_UNAVAILABLE", message: "the live event log could not be read")
        }
        // The test fault: the connection is cut after that many events.
        let cut = settings.dropEvery.map { sent >= $0 } ?? false
        writer.setWriteTimeout(settings.writeTimeout)
        try writer.startStream(
            status: 200,
            headers: [
                ("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-cache"),
                ("X-Accel-Buffering", "no"),
            ])
        if cut {
            try writer.write(opening)
            return writer.abortConnection()
        }
        // Where "now" is: every event of the caller up to `cursor` was sent or came before the given ID.
        opening += "id: \(cursor)\nevent: subscribed\ndata: {}\n\n"
        try writer.write(opening)
        guard let (socket, chunked) = writer.handOff() else { return }
        handedOff = true
        liveStreams.adopt(
            LiveStreamWriter.Subscriber(
                socket: socket, chunked: chunked, audiences: caller.audiences, cursor: cursor,
                tokenAcceptedUntil: caller.tokenAcceptedUntil, sent: sent, reservation: reservation,
                agentFilter: agentFilter))
    }
}
