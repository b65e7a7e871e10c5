// Pausing and resuming reading when the body's consumer falls behind.
//
// `buffered` counts body bytes yielded and not yet taken. When a chunk takes it to the ceiling
// (`Limits.maxBufferedBytes`), reading pauses; once the consumer has taken it down to half the
// ceiling, reading resumes. While reading is paused the socket is not read, so TCP pushes back on
// the server, and memory holds at the ceiling plus what one read decodes to. A pause stops the idle
// clock only when the buffer holds activity the consumer has not taken (any byte, or with
// events-only activity a complete event): a consumer kept busy by comments alone still times out.
//
// Linux: libcurl's receive pause (CurlReceivePause), from the body callback, which runs on the
// queue that drives libcurl. If that pause cannot be found, the request fails once the consumer is
// `overflowFactor` ceilings behind: memory stays bounded either way.
// Darwin: the task is suspended and resumed, which pauses a data task's reading there.

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
        #if canImport(FoundationNetworking)
            enum Action { case none, pause(CurlReceivePause), overflow }
            let action: Action = state.withLock { state in
                guard !state.ended, !state.paused, state.buffered >= limits.maxBufferedBytes else { return .none }
                if !state.lookedForPause {
                    state.lookedForPause = true
                    state.curlPause = CurlReceivePause(task: task)
                }
                guard let pause = state.curlPause else {
                    return state.buffered >= limits.maxBufferedBytes * Self.overflowFactor ? .overflow : .none
                }
                state.notePause()
                return .pause(pause)
            }
            switch action {
            case .none: return
            case .pause(let pause):
                if !pause.pauseReceiving() {
                    // libcurl refused: from now on the ceiling is enforced by the overflow rule.
                    state.withLock { state in
                        state.paused = false
                        state.curlPause = nil
                    }
                }
            case .overflow:
                let behind = limits.maxBufferedBytes * Self.overflowFactor
                fail(
                    TransportError(
                        .bodyTooLarge,
                        "the body's consumer fell \(behind) bytes behind and reading cannot pause here "
                            + "(URLSessionTransport.Limits.maxBufferedBytes is \(limits.maxBufferedBytes))"))
            }
        #else
            state.withLock { state in
                guard !state.ended, !state.paused, state.buffered >= limits.maxBufferedBytes else { return }
                state.notePause()
                task.suspend()
            }
        #endif
    }

    /// The consumer took `count` bytes: resume reading once half the ceiling is free.
    func consumerTook(_ count: Int) {
        #if canImport(FoundationNetworking)
            let resume: CurlReceivePause? = state.withLock { state in
                state.buffered -= count
                state.takenTotal += count
                guard state.paused, state.buffered <= limits.maxBufferedBytes / 2 else { return nil }
                state.paused = false
                if state.pauseHeldActivity { state.lastActivity = .now }
                return state.curlPause
            }
            resume?.resumeReceiving(if: { [weak self] in self?.isRunning ?? false })
        #else
            state.withLock { state in
                state.buffered -= count
                state.takenTotal += count
                guard state.paused, state.buffered <= limits.maxBufferedBytes / 2 else { return }
                state.paused = false
                if state.pauseHeldActivity { state.lastActivity = .now }
                task.resume()
            }
        #endif
    }

    /// Whether the exchange has not ended (so the transfer, and its libcurl handle, still exist).
    var isRunning: Bool { state.withLock { !$0.ended } }
}
