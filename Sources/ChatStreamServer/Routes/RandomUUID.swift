// RandomUUID: the server's new IDs (conversations, messages, replies), random UUIDs of version 4
// in lower case, made from the system's random number generator (`getrandom` on Linux,
// `arc4random` on Apple platforms) and formatted directly: Foundation's `UUID()` opened, read and
// closed /dev/urandom for each one on Linux, three times a chat, and `lowercased()` copied it.
//
// Example: `RandomUUID.make()` gives "3f2c9a1e-7b4d-4c8e-9f1a-0d2e3b4c5a6f" (the 13th digit is
// always 4, the 17th one of 8, 9, a, b).

/// Random version-4 UUIDs as lower-case text.
enum RandomUUID {
    private static let digits = Array("0123456789abcdef".utf8)

    /// A new random UUID (version 4, RFC 9562 variant) in lower case, 36 characters.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var high = generator.next() as UInt64
        var low = generator.next() as UInt64
        // Version 4 in bits 48-51 of the first half; the variant 0b10 in the top bits of the second.
        high = (high & ~(0xF << 12)) | (0x4 << 12)
        low = (low & ~(0b11 << 62)) | (0b10 << 62)
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            func put(_ value: UInt64, digits count: Int) {
                for shift in stride(from: (count - 1) * 4, through: 0, by: -4) {
                    buffer[index] = Self.digits[Int((value >> UInt64(shift)) & 0xF)]
                    index += 1
                }
            }
            func dash() {
                buffer[index] = UInt8(ascii: "-")
                index += 1
            }
            put(high >> 32, digits: 8)
            dash()
            put(high >> 16, digits: 4)
            dash()
            put(high, digits: 4)
            dash()
            put(low >> 48, digits: 4)
            dash()
            put(low, digits: 12)
            return index
        }
    }
}
