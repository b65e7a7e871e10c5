// ByteDescription: how an error message names one byte, the same in every layer.

/// A byte for an error message: the character in quotes when it is printable ASCII, else its hex
/// value (`'x'`, `byte 0x0A`).
package func describeByte(_ byte: UInt8) -> String {
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
}
