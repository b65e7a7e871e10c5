// HMACSHA256: the one cryptographic primitive the server needs, from a real crypto library:
// OpenSSL's libcrypto on Linux (the CCrypto system-library target), CryptoKit on Apple platforms.

#if canImport(CryptoKit)
    import CryptoKit
#elseif canImport(CCrypto)
    internal import CCrypto
#endif

/// HMAC-SHA256 and a constant-time comparison.
enum HMACSHA256 {
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
                b.withUnsafeBytes { b in chatstream_equal_constant_time(a.baseAddress, b.baseAddress, a.count) == 1 }
            }
        #endif
    }
}
