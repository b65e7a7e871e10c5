// GzipFixture: gzip bodies made in the test (no zlib binding in the package): one deflate block
// with the fixed Huffman codes, a literal then back-references of length 258 at distance 1, so
// 13 bits stand for 258 bytes (a compression bomb at a ratio of about 160).

/// Compressed bodies whose content is `1 + 258 * k` copies of one byte.
enum GzipFixture {
    /// The gzip bytes for `1 + 258 * repeats` copies of `byte`; `trailer: false` leaves out the CRC
    /// and size (for a body that is never read to its end).
    static func repeated(_ byte: UInt8, repeats: Int, trailer: Bool = true) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
        out += deflate(byte, repeats: repeats)
        if trailer {
            let count = 1 + 258 * repeats
            out += littleEndian(crc32(repeating: byte, count: count))
            out += littleEndian(UInt32(truncatingIfNeeded: count))
        }
        return out
    }

    /// The same content as an HTTP `deflate` body (a zlib stream: RFC 1950 header, no Adler-32
    /// trailer, for a body that is never read to its end).
    static func zlibRepeated(_ byte: UInt8, repeats: Int) -> [UInt8] {
        [0x78, 0x01] + deflate(byte, repeats: repeats)
    }

    /// One final fixed-Huffman deflate block: a literal `byte`, then `repeats` copies of (258, 1).
    private static func deflate(_ byte: UInt8, repeats: Int) -> [UInt8] {
        var writer = BitWriter()
        writer.write(1, bits: 1)  // BFINAL
        writer.write(1, bits: 2)  // BTYPE 01: fixed Huffman
        // Literal 0...143: 8-bit codes from 0b00110000; 144...255: 9-bit codes from 0b110010000.
        if byte < 144 {
            writer.writeCode(0x30 + UInt32(byte), bits: 8)
        } else {
            writer.writeCode(0x190 + UInt32(byte) - 144, bits: 9)
        }
        for _ in 0..<repeats {
            writer.writeCode(0xC0 + 5, bits: 8)  // length code 285: 258
            writer.writeCode(0, bits: 5)  // distance code 0: 1
        }
        writer.writeCode(0, bits: 7)  // end of block (256)
        return writer.finish()
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// CRC-32 (IEEE, reflected) of `count` copies of `byte`.
    static func crc32(repeating byte: UInt8, count: Int) -> UInt32 {
        var table = [UInt32](repeating: 0, count: 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            table[index] = value
        }
        var crc: UInt32 = 0xFFFF_FFFF
        for _ in 0..<count { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// Writes deflate's bit stream: fields least significant bit first, Huffman codes most first.
    private struct BitWriter {
        var bytes: [UInt8] = []
        var current: UInt32 = 0
        var used = 0

        mutating func write(_ value: UInt32, bits: Int) {
            for index in 0..<bits { push((value >> index) & 1) }
        }

        mutating func writeCode(_ code: UInt32, bits: Int) {
            for index in stride(from: bits - 1, through: 0, by: -1) { push((code >> index) & 1) }
        }

        private mutating func push(_ bit: UInt32) {
            current |= bit << used
            used += 1
            if used == 8 {
                bytes.append(UInt8(current))
                current = 0
                used = 0
            }
        }

        mutating func finish() -> [UInt8] {
            if used > 0 { bytes.append(UInt8(current)) }
            return bytes
        }
    }
}
