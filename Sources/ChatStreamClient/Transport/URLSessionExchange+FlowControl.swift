// Pausing and resuming reading when the body's consumer falls behind.
//
// `buffered` counts body bytes yielded and not yet taken. When a chunk takes it to the ceiling
// (`Limits.maxBufferedBytes`), reading pauses; once the consumer has taken it down to half the
// ceiling, reading resumes. While reading is paused the socket is not read, so TCP pushes back on
// the server, and memory holds at the ceiling plus what one read decodes to. A pause stops the idle
// clock (the bytes not yet taken are the server's activity; what they say is judged above the
// transport, by the decoded stream's idle timeout).
//
// The task is suspended and resumed, which pauses a data task's reading (Apple platforms; on Linux
// every request goes through CurlTransport, which pauses libcurl's receiving itself).

#if !canImport(CCurl)
    import Dispatch
    import Foundation

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    extension URLSessionExchange {
        /// Without a way to pause, a consumer this many ceilings behind fails the request.
        static let overflowFactor = 4

        /// After a chunk took the buffer to the ceiling: pause reading (at once; nothing waits).
        func pauseReadingIfStillFull() {
            state.withLock { state in
                guard !state.ended, !state.paused, state.buffered >= limits.maxBufferedBytes else { return }
                state.paused = true
                task.suspend()
            }
        }

        /// The consumer took `count` bytes: resume reading once half the ceiling is free.
        func consumerTook(_ count: Int) {
            state.withLock { state in
                state.buffered -= count
                guard state.paused, state.buffered <= limits.maxBufferedBytes / 2 else { return }
                state.paused = false
                state.lastActivity = .now
                task.resume()
            }
        }

        /// Whether the exchange has not ended (so the transfer, and its libcurl handle, still exist).
        var isRunning: Bool { state.withLock { !$0.ended } }
    }
#endif
