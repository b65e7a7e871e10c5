// IdentityStoreError: a stored identity that cannot be read or written, naming the file or
// Keychain item, what is wrong with it and how to recover.

import Foundation

/// Why an ``IdentityStore`` could not read or keep the identity.
///
/// ```swift
/// do {
///     _ = try FileIdentityStore().deviceId()
/// } catch let error as IdentityStoreError where error.kind == .corrupt {
///     print(error.location, error.message)
/// }
/// ```
public struct IdentityStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure. New kinds may be added; compare with the static values.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case corrupt, io = "input/output", keychain
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// The stored data is not what the store wrote (it is left untouched, so nothing is lost).
        public static let corrupt = Kind(.corrupt)
        /// The file system refused a read or a write (see ``IdentityStoreError/errno``).
        public static let io = Kind(.io)
        /// The Keychain answered with an error (see ``IdentityStoreError/status``).
        public static let keychain = Kind(.keychain)
        public var description: String { base.rawValue }
    }

    /// The class of failure.
    public var kind: Kind
    /// The file path, or `keychain:<service>/<account>`.
    public var location: String
    /// What is wrong, and how to recover.
    public var message: String
    /// Where in the stored data reading failed, for ``Kind/corrupt``.
    public var byteOffset: Int?
    /// The POSIX error number, for ``Kind/io``.
    public var errno: Int32?
    /// The Keychain's `OSStatus`, for ``Kind/keychain``.
    public var status: Int32?

    init(
        _ kind: Kind, _ location: String, _ message: String, byteOffset: Int? = nil, errno: Int32? = nil,
        status: Int32? = nil
    ) {
        self.kind = kind
        self.location = location
        self.message = message
        self.byteOffset = byteOffset
        self.errno = errno
        self.status = status
    }

    public var description: String {
        var text = "\(location): \(message)"
        if let byteOffset { text += " (at byte \(byteOffset))" }
        return text
    }
}

extension IdentityStoreError: LocalizedError {
    public var errorDescription: String? { description }
}
