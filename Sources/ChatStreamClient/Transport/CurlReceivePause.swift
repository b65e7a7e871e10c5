// CurlReceivePause: pausing a FoundationNetworking task's receiving at libcurl, the only layer
// that can (Linux).
//
// swift-corelibs-foundation has no receive pause: `URLSessionTask.suspend()` takes the transfer
// out of libcurl's multi handle, which abandons it (a resumed task sends the request again), and
// its own "pause receive" path ends in `fatalError`. libcurl itself pauses a transfer with
// `curl_easy_pause`, which must run on the thread that drives the transfer: corelibs' shared
// session queue. The transport's delegate callbacks run inline there (InlineOperationQueue), so
// the body callback pauses directly, and resuming is dispatched onto the task's work queue.
//
// The libcurl handle and that queue are not public: they are found by reflection (task ->
// `_protocolStorage` -> protocol -> `easyHandle` -> `rawHandle`, and the task's `workQueue`), and
// `curl_easy_pause` with `dlsym`. When any of that is missing (another Foundation), `init` fails
// and the exchange enforces the ceiling by failing the request instead (see +FlowControl).

#if canImport(FoundationNetworking)
    import Dispatch
    import Foundation
    import FoundationNetworking

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// libcurl's receive pause for one FoundationNetworking task.
    struct CurlReceivePause: @unchecked Sendable {
        /// `curl_easy_pause(CURL *, int)`.
        private typealias PauseFunction = @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32
        private static let curlPauseReceive: Int32 = 1  // CURLPAUSE_RECV
        private static let curlPauseContinue: Int32 = 0  // CURLPAUSE_CONT

        private static let pause: PauseFunction? = {
            guard let symbol = dlsym(nil, "curl_easy_pause") else { return nil }
            return unsafeBitCast(symbol, to: PauseFunction.self)
        }()

        /// The `CURL *` of the task's transfer (owned by corelibs; used only on `queue`).
        private let handle: UnsafeMutableRawPointer
        /// The queue that drives the transfer.
        let queue: DispatchQueue

        /// The pause of `task`'s current transfer, or nil when it cannot be found.
        init?(task: URLSessionTask) {
            guard Self.pause != nil,
                let queue = Self.child("workQueue", of: task) as? DispatchQueue,
                let storage = Self.child("_protocolStorage", of: task),
                let urlProtocol = Self.unwrap(Mirror(reflecting: storage).children.first?.value),
                let easyHandle = Self.unwrap(Self.child("easyHandle", of: urlProtocol)),
                let raw = Self.unwrap(Self.child("rawHandle", of: easyHandle))
            else { return nil }
            if let pointer = raw as? UnsafeMutableRawPointer {
                handle = pointer
            } else if let pointer = raw as? OpaquePointer {
                handle = UnsafeMutableRawPointer(pointer)
            } else {
                return nil
            }
            self.queue = queue
        }

        /// Pauses receiving. Call only on `queue` (inside a delegate callback).
        func pauseReceiving() -> Bool {
            Self.pause?(handle, Self.curlPauseReceive) == 0
        }

        /// Resumes receiving on `queue`, if `stillRunning` (checked there) says the transfer lives.
        func resumeReceiving(if stillRunning: @escaping @Sendable () -> Bool) {
            let pause = self
            queue.async {
                guard stillRunning() else { return }
                _ = Self.pause?(pause.handle, Self.curlPauseContinue)
            }
        }

        /// The stored property `label` of `subject` or of one of its superclasses.
        private static func child(_ label: String, of subject: Any) -> Any? {
            var mirror: Mirror? = Mirror(reflecting: subject)
            while let current = mirror {
                if let found = current.children.first(where: { $0.label == label }) { return found.value }
                mirror = current.superclassMirror
            }
            return nil
        }

        /// The value inside an optional (and the optional's absence as nil).
        private static func unwrap(_ value: Any?) -> Any? {
            guard let value else { return nil }
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .optional else { return value }
            guard let wrapped = mirror.children.first?.value else { return nil }
            return unwrap(wrapped)
        }
    }
#endif
