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

    /// The standard input stream.
    nonisolated(unsafe) static let input: UnsafeMutablePointer<FILE> = fdopen(0, "r")
}
