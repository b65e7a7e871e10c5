// TerminationSignal: SIGINT and SIGTERM as something to await.
//
// The handlers are installed synchronously (before the server says it is listening, so no signal
// sent after that is lost) and do the one thing a handler may: write a byte to a pipe. A thread of
// its own blocks reading that pipe and resumes the waiting task, so stopping the server runs in
// ordinary code. The signals are unblocked on the calling thread too, in case a parent started
// this process with them blocked (the mask is inherited).

import Foundation

#if canImport(Glibc)
    import Glibc
    private let systemRead = Glibc.read
    private let systemWrite = Glibc.write
#elseif canImport(Darwin)
    import Darwin
    private let systemRead = Darwin.read
    private let systemWrite = Darwin.write
#endif

/// The pipe the handlers write to: set once, before the handlers are installed.
nonisolated(unsafe) private var signalPipe: (read: Int32, write: Int32) = (-1, -1)

/// SIGINT and SIGTERM, awaited. Make it before the server starts.
struct TerminationSignal {
    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 { signalPipe = (ends[0], ends[1]) }
        let signals = [SIGINT, SIGTERM]
        var mask = sigset_t()
        sigemptyset(&mask)
        for number in signals { sigaddset(&mask, number) }
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        for number in signals {
            _ = signal(number) { _ in
                var byte: UInt8 = 1
                _ = systemWrite(signalPipe.write, &byte, 1)
            }
        }
    }

    /// Returns once either signal has come.
    func wait() async {
        let descriptor = signalPipe.read
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                var byte: UInt8 = 0
                while systemRead(descriptor, &byte, 1) < 0, errno == EINTR {}
                continuation.resume()
            }
        }
    }
}
