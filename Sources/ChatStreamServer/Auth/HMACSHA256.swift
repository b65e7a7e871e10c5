// HMACSHA256: the one cryptographic primitive the server needs, from a real crypto library:
// OpenSSL's libcrypto on Linux (the CCrypto target, which opens it at first use), CryptoKit on
// Apple platforms. The server calls `checkAvailable()` before it listens, so a missing libcrypto
// stops it at start with the reason rather than at the first token.

#if canImport(CryptoKit)
    import CryptoKit
#elseif canImport(CCrypto)
    internal import CCrypto
#endif

/// HMAC-SHA256 and a constant-time comparison.
enum HMACSHA256 {
    /// Why HMAC-SHA256 cannot be computed here (libcrypto missing on Linux), or nil when it can.
    static func unavailableReason() -> String? {
        #if canImport(CryptoKit)
            return nil
        #else
            return chatstream_crypto_load().map { String(cString: $0) }
        #endif
    }

    /// The 32-byte HMAC-SHA256 of `message` under `key`.
    static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        #if canImport(CryptoKit)
            let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
            return Array(code)
        #else
            var out = [UInt8](repeating: 0, count: 32)
            let ok = key.withUnsafeBufferPointer { key in
                message.withUnsafeBufferPointer { message in
                    out.withUnsafeMutableBufferPointer { out in
                        chatstream_hmac_sha256(
                            key.baseAddress, key.count, message.baseAddress, message.count, out.baseAddress)
                    }
                }
            }
            precondition(ok == 1, "libcrypto HMAC-SHA256 failed")
            return out
        #endif
    }

    /// Whether `a` and `b` are equal, taking the same time wherever they differ (for MACs).
    static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        #if canImport(CryptoKit)
            var difference: UInt8 = 0
            for (x, y) in zip(a, b) { difference |= x ^ y }
            return difference == 0
        #else
            return a.withUnsafeBytes { a in
                b.withUnsafeBytes { b in
                    let equal = chatstream_equal_constant_time(a.baseAddress, b.baseAddress, a.count)
                    precondition(equal >= 0, "libcrypto could not be loaded")
                    return equal == 1
                }
            }
        #endif
    }
}
