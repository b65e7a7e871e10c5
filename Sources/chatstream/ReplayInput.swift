// ReplayInput: the bytes `chatstream replay` decodes, read from a file or standard input in
// pieces, as they come (a pipe from a live connection gives each piece as soon as it arrives).

#if canImport(Glibc)
    import Glibc
    private let systemRead = Glibc.read
#elseif canImport(Darwin)
    import Darwin
    private let systemRead = Darwin.read
#endif

/// A file (or standard input, `-`) read piece by piece into one reused buffer.
struct ReplayInput: ~Copyable {
    /// A read that failed: the path and the system's reason.
    struct ReadError: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "cannot read \(path): \(reason)" }
    }

    /// The most bytes one read asks for.
    static let readSize = 1 << 16

    let path: String
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: ReplayInput.readSize)

    /// Opens `path`, or standard input for `-`.
    init(path: String) throws(ReadError) {
        self.path = path
        if path == "-" {
            descriptor = 0
        } else {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ReadError(path: path, reason: String(cString: strerror(errno))) }
        }
    }

    deinit {
        if descriptor != 0 { close(descriptor) }
    }

    /// Calls `body` with each piece of the input as soon as it is read (at most ``readSize``
    /// bytes; fewer when a pipe has fewer ready), until the end of the input or until `body`
    /// returns false. The piece is valid only during the call.
    mutating func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Bool) throws {
        let descriptor = descriptor
        let path = path
        try buffer.withUnsafeMutableBytes { buffer in
            while true {
                let count = systemRead(descriptor, buffer.baseAddress, buffer.count)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw ReadError(path: path, reason: String(cString: strerror(errno)))
                }
                if count == 0 { return }
                guard try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else { return }
            }
        }
    }
}
