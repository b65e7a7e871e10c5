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

    /// Writes `text` whole: its UTF-8 bytes, so a U+0000 in it is written too (a C-string call
    /// such as `fputs` would stop there and drop the rest).
    static func standardOutput(_ text: String) {
        write(text, to: out)
    }

    /// Writes `bytes` as they are.
    static func standardOutput(bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = fwrite(base, 1, bytes.count, out)
    }

    static func standardError(_ text: String) {
        fflush(out)
        write(text, to: err)
        fflush(err)
    }

    private static func write(_ text: String, to stream: UnsafeMutablePointer<FILE>) {
        var text = text
        text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            _ = fwrite(base, 1, bytes.count, stream)
        }
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
