// Files only their owner may read: a directory made 0700, files written 0600 to a temporary name
// and then linked (first write, exclusive) or renamed (replacement) into place, so a reader never
// sees half a file and two writers racing on a cold start agree on one winner.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
    #elseif canImport(Musl)
        Musl.read(descriptor, buffer, count)
    #else
        Darwin.read(descriptor, buffer, count)
    #endif
}

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
    #elseif canImport(Musl)
        Musl.write(descriptor, buffer, count)
    #else
        Darwin.write(descriptor, buffer, count)
    #endif
}

enum PrivateFiles {
    static let fileMode: mode_t = 0o600
    static let directoryMode: mode_t = 0o700

    static func ioError(_ path: String, _ what: String, _ code: Int32 = errno) -> IdentityStoreError {
        IdentityStoreError(.io, path, "cannot \(what): \(String(cString: strerror(code)))", errno: code)
    }

    /// Makes `directory` (and its parents) and leaves it readable by its owner only.
    static func ensureDirectory(_ directory: URL) throws(IdentityStoreError) {
        let path = directory.path
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: Int(directoryMode)])
        } catch {
            throw IdentityStoreError(.io, path, "cannot create the directory: \(error.localizedDescription)")
        }
        guard chmod(path, directoryMode) == 0 else { throw ioError(path, "make the directory private") }
    }

    /// The file's bytes, or nil when there is no file. A file others can read is made private.
    static func read(_ file: URL) throws(IdentityStoreError) -> [UInt8]? {
        let path = file.path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw ioError(path, "open the file")
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & 0o077 != 0 {
            _ = fchmod(descriptor, fileMode)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ioError(path, "read the file")
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            if bytes.count > 1 << 20 {
                throw IdentityStoreError(.corrupt, path, "the file is larger than 1 MiB; delete it")
            }
        }
    }

    /// Writes `bytes` to a new private file beside `file`, returning its URL.
    private static func writeTemporary(beside file: URL, _ bytes: [UInt8]) throws(IdentityStoreError) -> URL {
        let temporary = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp")
        let path = temporary.path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else { throw ioError(path, "create the file") }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(descriptor)
                unlink(path)
                throw ioError(path, "write the file", code)
            }
            written += count
        }
        let synced = fsync(descriptor) == 0
        let code = errno
        close(descriptor)
        guard synced else {
            unlink(path)
            throw ioError(path, "write the file", code)
        }
        return temporary
    }

    /// Creates `file` holding `bytes` unless it exists; returns whether this call created it.
    static func createExclusively(_ file: URL, _ bytes: [UInt8]) throws(IdentityStoreError) -> Bool {
        try ensureDirectory(file.deletingLastPathComponent())
        let temporary = try writeTemporary(beside: file, bytes)
        defer { unlink(temporary.path) }
        if link(temporary.path, file.path) == 0 { return true }
        if errno == EEXIST { return false }
        throw ioError(file.path, "create the file")
    }

    /// Replaces `file` with one holding `bytes`, atomically.
    static func replace(_ file: URL, _ bytes: [UInt8]) throws(IdentityStoreError) {
        try ensureDirectory(file.deletingLastPathComponent())
        let temporary = try writeTemporary(beside: file, bytes)
        guard rename(temporary.path, file.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw ioError(file.path, "replace the file", code)
        }
    }

    /// Removes `file`; no file is fine.
    static func remove(_ file: URL) throws(IdentityStoreError) {
        guard unlink(file.path) == 0 || errno == ENOENT else { throw ioError(file.path, "remove the file") }
    }
}
