// StreamPlace: one place among the stream caps (global, per address, per network) that a handler
// takes before it answers with a long-lived stream (a live event stream, a streamed reply), so a
// stream beyond the caps is refused before anything is stored. The place goes with the stream to
// the LiveStreamWriter, or is given back when the handler is done with it.

extension ChatAPIHandlers {
    /// A place for one stream from the request's address; 503 `SERVICE_STREAMS_BUSY` when a cap
    /// is reached.
    func streamPlace(_ request: HTTPServerRequest) throws(APIError) -> StreamPlace {
        guard let place = StreamPlace(caps: liveStreams.caps, host: request.remoteHost) else {
            throw APIError.streamsBusy
        }
        return place
    }
}

/// A held reservation of the stream caps, released when the place is dropped unless
/// ``take()`` handed it on (to the writer, which releases it when the stream ends).
final class StreamPlace {
    private let caps: AddressCaps
    private var reservation: AddressCaps.Reservation?

    /// Reserves a place for `host`; nil when a cap is reached.
    init?(caps: AddressCaps, host: String) {
        guard let reservation = caps.reserve(host) else { return nil }
        self.caps = caps
        self.reservation = reservation
    }

    /// Hands the reservation on; the place no longer releases it.
    func take() -> AddressCaps.Reservation? {
        defer { reservation = nil }
        return reservation
    }

    deinit {
        if let reservation { caps.release(reservation) }
    }
}
