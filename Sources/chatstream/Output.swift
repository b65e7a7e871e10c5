import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing to standard output (buffered, flushed on demand) and standard error.
enum Output {
    nonisolated(unsafe) private static let out: UnsafeMutablePointer<FILE> = fdopen(1, "w")
    nonisolated(unsafe) private static let err: UnsafeMutablePointer<FILE> = fdopen(2, "w")

    static func standardOutput(_ text: String) {
        fputs(text, out)
    }

    static func standardError(_ text: String) {
        fflush(out)
        fputs(text, err)
        fflush(err)
    }

    static func flush() { fflush(out) }

    /// How long written text may wait for ``flushSoon()``'s flush.
    static let flushDelay = DispatchTimeInterval.milliseconds(2)
    private static let flushScheduled = Atomic<Bool>(false)

    /// Flushes standard output within ``flushDelay``: text written meanwhile goes out in the same
    /// write, so a fast stream costs one system call per few milliseconds, not one per piece.
    static func flushSoon() {
        guard !flushScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + flushDelay) {
            flushScheduled.store(false, ordering: .releasing)
            fflush(out)
        }
    }

    /// The standard input stream.
    nonisolated(unsafe) static let input: UnsafeMutablePointer<FILE> = fdopen(0, "r")
}
