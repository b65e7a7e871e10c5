// The streams LiveStreamWriter serves after their head: a live event subscription
// (`GET .../events`, PROTOCOLS.md section 6) and a reader of a streamed reply (section 8: the chat
// request's stream, a resend joining it, a resume after `Last-Event-ID`).

import ChatStream

extension LiveStreamWriter {
    /// A subscription handed off after its opening.
    struct Subscriber: Sendable {
        let socket: Socket
        let chunked: Bool
        let audiences: [String]
        /// The last event ID the subscriber has (or was told to skip to).
        var cursor: Int
        /// When the user token it was opened with expires (epoch seconds).
        let tokenAcceptedUntil: Double?
        /// Events sent so far (for the `dropEvery` fault).
        var sent: Int
        let reservation: AddressCaps.Reservation
        /// Which events its route's agent hears (conversations are kept per agent); nil: all.
        let agentFilter: LiveEventAgentFilter?

        init(
            socket: Socket, chunked: Bool, audiences: [String], cursor: Int, tokenAcceptedUntil: Double?, sent: Int,
            reservation: AddressCaps.Reservation, agentFilter: LiveEventAgentFilter? = nil
        ) {
            self.agentFilter = agentFilter
            self.socket = socket
            self.chunked = chunked
            self.audiences = audiences
            self.cursor = cursor
            self.tokenAcceptedUntil = tokenAcceptedUntil
            self.sent = sent
            self.reservation = reservation
        }
    }

    /// A reader of a streamed reply handed off after its head: it is written the run's events
    /// after ``position`` as they are appended, and ends with the run (cut when the run was
    /// interrupted). Going away stops nothing: the reply is generated and stored all the same.
    struct ReplyReader: Sendable {
        let socket: Socket
        let chunked: Bool
        let run: ReplyRun
        /// The number of the run's events already written.
        var position: Int
        let reservation: AddressCaps.Reservation
        /// How long the reader may take no bytes while some wait: then it is dropped (it resumes).
        let writeTimeout: Duration
        /// Gives the connection back to the server once the reply's last chunk is written
        /// (keep-alive); nil: it is closed. Such a stream is not read while held: the client's
        /// next request waits in the socket for the server (a peer gone shows in a failed write).
        var resumption: (@Sendable (Socket) -> Void)? = nil
    }

    /// Either kind of stream.
    enum Stream: Sendable {
        case live(Subscriber)
        case reply(ReplyReader)

        var socket: Socket {
            switch self {
            case .live(let subscriber): subscriber.socket
            case .reply(let reader): reader.socket
            }
        }

        var chunked: Bool {
            switch self {
            case .live(let subscriber): subscriber.chunked
            case .reply(let reader): reader.chunked
            }
        }

        var reservation: AddressCaps.Reservation {
            switch self {
            case .live(let subscriber): subscriber.reservation
            case .reply(let reader): reader.reservation
            }
        }
    }
}
