// ChatAPIServer.Configuration and ChatAPIServer.Fault: everything a ChatAPIServer is set up with.
//
// Faults exist so client tests can meet the failures real servers produce: replies cut into tiny
// writes, slow replies, connections dropped mid-stream, and error statuses such as 429 with
// `Retry-After`. They come from three places, merged field by field (first wins): the request's
// `X-ChatStream-Fault` header (honoured only when `allowsFaultHeader` is set: it is a test tool, not
// an API), a fault queued with `ChatAPIServer.injectFault(_:)`, and the configuration's standing
// `fault`. Every parameter has a bound (`Fault.limits`), so no request can park a thread for long.

import ChatStream
import Foundation

/// Types for configuring a ``ChatAPIServer``.
extension ChatAPIServer {
    /// How a ``ChatAPIServer`` listens, which agent it serves, where it keeps state, and how it replies.
    ///
    /// ```swift
    /// var configuration = ChatAPIServer.Configuration()
    /// configuration.port = 0            // any free port
    /// configuration.replyDelay = .zero  // no pacing in tests
    /// let server = ChatAPIServer(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The address to listen on. Default `127.0.0.1`.
        public var host: String = "127.0.0.1"
        /// The port to listen on; 0 picks a free one (read ``ChatAPIServer/port`` after starting). Default 8787.
        public var port: UInt16 = 8787
        /// The only agent this server knows; other agent IDs answer 404 `AGENT_NOT_FOUND`. Default `demo-agent`.
        public var agentId: String = "demo-agent"
        /// The SQLite database holding the state (created when missing; WAL mode, every change committed
        /// and synced before its answer). A JSON data file of earlier releases at this path is imported once
        /// and kept as `<path>.json-backup`. Nil (the default) keeps state in an in-memory database.
        public var dataFile: String? = nil
        /// Whether to start a new store over an empty or damaged file found at ``dataFile``
        /// (`serve --recover`): a damaged database or write-ahead log is moved aside first (see
        /// ``ChatAPIServer/movedAsideFiles``). Default false: ``ChatAPIServer/start()`` throws saying
        /// why, as it does for a file the process cannot write.
        public var recover: Bool = false
        /// Whether the conversation-management extensions (PROTOCOLS.md section 5) are served. When false their
        /// routes answer 404 `NOT_FOUND`, list filters are ignored, and conversations carry no `tags`,
        /// `unreadCount` or `lastMessage`. Default true.
        public var extensionsEnabled: Bool = true
        /// The pause between two events of a streamed reply. Default 15 ms; tests use `.zero`.
        public var replyDelay: Duration = .milliseconds(15)
        /// Whether streamed replies are resumable (PROTOCOLS.md section 8): events carry `id:`, the
        /// response `X-Message-Id`, and the `.../messages/{id}/stream` and `.../stop` routes are
        /// served. When false those routes answer 404 `NOT_FOUND` (as on a server without section 8);
        /// replies are still generated to the end when the client goes away. Default true.
        public var resumableReplies: Bool = true
        /// What resumable replies hold, for how long, and how often a generating one is saved.
        public var replies: Replies = Replies()
        /// A fault applied to every chat and retry request (for example from `chatstream serve --drop-after`).
        /// Default: none.
        public var fault: Fault = Fault()
        /// The live event stream's settings (retry, heartbeat, buffer, the drop fault).
        public var liveEvents: LiveEvents = LiveEvents()
        /// The HS256 secret user tokens (`X-User-Token`, `/verify`) are verified with: signature, `exp` and
        /// `nbf` (with ``jwtClockSkew``); a token that fails answers 401 `AUTH_INVALID_JWT`. Nil (the
        /// default) is development mode: tokens need only the JWT shape and a `sub`, signatures are not
        /// checked, and ``ChatAPIServer/start()`` refuses a host that is not loopback.
        public var jwtSecret: String? = nil
        /// The clock difference tolerated for a token's `exp` and `nbf`. Default 30 s.
        public var jwtClockSkew: Duration = .seconds(30)
        /// Whether a request's `X-ChatStream-Fault` header is honoured. Off by default: the header is a test
        /// tool (`chatstream serve --allow-fault-header`, and the CLI's fault flags, turn it on). When off,
        /// the header is ignored.
        public var allowsFaultHeader: Bool = false
        /// What one identity may store (conversations, messages per conversation, bytes).
        public var quotas: Quotas = Quotas()
        /// The most characters of a conversation's `lastMessage` text a list page or live event
        /// carries (its text parts joined, cut at this length, marked `"truncated": true`); the whole
        /// message is in the conversation's history. Default 200.
        public var lastMessagePreviewLength: Int = 200
        /// The longest a request waits for one of the store's four read connections (searches may
        /// hold two of them at once): then it answers 503 `STORE_BUSY` with `Retry-After: 1`. Default 2 s.
        public var storeReadWait: Duration = .seconds(2)
        /// Limits and timeouts of the underlying HTTP server.
        public var http: HTTPServerConfiguration = HTTPServerConfiguration()
        /// Agents backed by a model (`chatstream serve --agent-config FILE`, PROTOCOLS.md section 9).
        /// When any are given the server answers for them (and no longer for ``agentId``). Default none.
        public var agents: [AgentDefinition] = []
        /// Reads an environment variable: where an agent's API key comes from (`apiKeyEnv`).
        /// Default: the process's environment.
        public var environment: @Sendable (String) -> String? = { ProcessInfo.processInfo.environment[$0] }

        /// The defaults: `127.0.0.1:8787`, agent `demo-agent`, in memory, extensions on, 15 ms pacing.
        public init() {}
    }

    /// A failure to simulate on chat and retry requests. Unset fields simulate nothing.
    ///
    /// ```swift
    /// server.injectFault(.init(status: 429, retryAfterSeconds: 2, count: 2))  // the next two chats get 429
    /// server.injectFault(.init(dropAfterBytes: 200))                          // the next reply is cut short
    /// ```
    ///
    /// The same faults can be asked for per request with the header
    /// `X-ChatStream-Fault: drop-after=200, chunk-size=7, delay-ms=5, status=429, retry-after=2`
    /// when ``Configuration/allowsFaultHeader`` is on. Each header parameter is bounded (``limits``):
    /// a value outside its range answers 400 `VALIDATION_INVALID_FAULT`. Faults set in code are
    /// clamped to the same bounds when applied.
    public struct Fault: Sendable, Hashable {
        /// The ranges of the header's parameters: `delay-ms` 0...60,000, `chunk-size` 1...1,048,576,
        /// `drop-after` 0...2,147,483,647, `status` 400...599, `retry-after` 0...86,400.
        public static let limits: [String: ClosedRange<Int>] = [
            "delay-ms": 0...60_000, "chunk-size": 1...(1 << 20), "drop-after": 0...Int(Int32.max),
            "status": 400...599, "retry-after": 0...86_400,
        ]

        /// Split the streamed body into writes of at most this many bytes.
        public var chunkSize: Int?
        /// Pause this long after every write of a streamed body (replaces the configured pacing).
        public var delay: Duration?
        /// Drop the connection (without the stream's end) once this many body bytes were sent.
        public var dropAfterBytes: Int?
        /// Answer this HTTP status with the matching error body instead of replying
        /// (429 `RATE_LIMIT_TOO_MANY_REQUESTS`, 500 `INTERNAL_SERVER_ERROR`, 402 `CHAT_CREDITS_EXHAUSTED`, ...).
        public var status: Int?
        /// The `Retry-After` value sent with ``status`` (default 2 for 429 and 503, none otherwise).
        public var retryAfterSeconds: Int?
        /// How many chat or retry requests an injected fault applies to (``ChatAPIServer/injectFault(_:)``). Default 1.
        public var count: Int

        /// A fault with the given fields; everything unset by default.
        public init(
            chunkSize: Int? = nil, delay: Duration? = nil, dropAfterBytes: Int? = nil, status: Int? = nil,
            retryAfterSeconds: Int? = nil, count: Int = 1
        ) {
            self.chunkSize = chunkSize
            self.delay = delay
            self.dropAfterBytes = dropAfterBytes
            self.status = status
            self.retryAfterSeconds = retryAfterSeconds
            self.count = count
        }

        /// Whether no field is set.
        public var isEmpty: Bool {
            chunkSize == nil && delay == nil && dropAfterBytes == nil && status == nil && retryAfterSeconds == nil
        }

        /// This fault with each field clamped to ``limits`` (faults set in code obey the header's bounds).
        var bounded: Fault {
            func clamp(_ value: Int?, _ name: String) -> Int? {
                value.map { min(max($0, Self.limits[name]!.lowerBound), Self.limits[name]!.upperBound) }
            }
            var fault = self
            fault.chunkSize = clamp(chunkSize, "chunk-size")
            fault.dropAfterBytes = clamp(dropAfterBytes, "drop-after")
            fault.retryAfterSeconds = clamp(retryAfterSeconds, "retry-after")
            if let delay { fault.delay = min(max(delay, .zero), .milliseconds(Self.limits["delay-ms"]!.upperBound)) }
            if let status, !Self.limits["status"]!.contains(status) { fault.status = nil }
            return fault
        }

        /// This fault with every unset field taken from `other`.
        func merged(with other: Fault) -> Fault {
            Fault(
                chunkSize: chunkSize ?? other.chunkSize, delay: delay ?? other.delay,
                dropAfterBytes: dropAfterBytes ?? other.dropAfterBytes, status: status ?? other.status,
                retryAfterSeconds: retryAfterSeconds ?? other.retryAfterSeconds, count: count)
        }

        /// Parses the `X-ChatStream-Fault` header: `key=value` pairs separated by commas or semicolons.
        static func parse(header: String) throws(APIError) -> Fault {
            var fault = Fault()
            for pair in header.split(whereSeparator: { $0 == "," || $0 == ";" }) {
                let pieces = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
                guard pieces.count == 2, let number = Int(pieces[1]), number >= 0 else {
                    throw APIError.invalidFault("malformed fault \"\(pair.trimmingSpaces())\"")
                }
                let name = pieces[0].lowercased()
                guard let range = limits[name] else { throw APIError.invalidFault("unknown fault \"\(pieces[0])\"") }
                guard range.contains(number) else {
                    throw APIError.invalidFault(
                        "fault \(name)=\(number) is out of range \(range.lowerBound)...\(range.upperBound)")
                }
                switch name {
                case "drop-after": fault.dropAfterBytes = number
                case "chunk-size": fault.chunkSize = number
                case "delay-ms": fault.delay = .milliseconds(number)
                case "status": fault.status = number
                default: fault.retryAfterSeconds = number
                }
            }
            return fault
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[start...end])
    }
}
