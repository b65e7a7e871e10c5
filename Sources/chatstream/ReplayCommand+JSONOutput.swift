// ReplayCommand+JSONOutput: `replay --output message --json` writes each message's JSON in pieces
// of about 64 KiB, byte for byte the `jsonText` of its `jsonValue`, so a reply of hundreds of
// megabytes is not copied into its JSON text (and that text into a line) before it is printed.
//
// Why: `jsonValue.jsonText + "\n"` held the message, the JSON's bytes, the `String` made of them
// and the line, about four times the text at the peak (3.7x on a 128 MiB stream). Here the tree
// shares the message's strings (no copy), and a long string is escaped a window at a time from its
// UTF-8 into a buffer that is written out whenever it holds a piece; the escapes are those of
// `JSONTree.writeString`, which still writes every key and every short string.

import ChatStream

/// Compact JSON of a tree, written to `write` in pieces as it is produced.
struct PiecewiseJSONWriter {
    /// How much the buffer gathers before it is written out; also the window a long string is
    /// escaped in.
    static let pieceBytes = 1 << 16

    private var buffer: [UInt8] = []
    private let write: (UnsafeRawBufferPointer) -> Void

    init(write: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.write = write
        buffer.reserveCapacity(Self.pieceBytes * 2)
    }

    /// Writes `tree` as `tree.jsonText` would hold it.
    mutating func append(_ tree: JSONTree) {
        switch tree {
        case .string(let string): appendString(string)
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                append(element)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let object):
            buffer.append(UInt8(ascii: "{"))
            for (index, (key, value)) in zip(object.keys, object.values).enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                JSONTree.writeString(key, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                append(value)
            }
            buffer.append(UInt8(ascii: "}"))
        default: tree.write(to: &buffer)
        }
        if buffer.count >= Self.pieceBytes { flush() }
    }

    /// Appends raw bytes (a line's end).
    mutating func append(bytes: some Sequence<UInt8>) { buffer.append(contentsOf: bytes) }

    /// Writes out what the buffer holds.
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes(write)
        buffer.removeAll(keepingCapacity: true)
    }

    /// A short string as `JSONTree.writeString` writes it; a long one escaped the same way a window
    /// at a time from its own UTF-8 (a native string's storage, not a copy).
    private mutating func appendString(_ string: String) {
        guard string.utf8.count > Self.pieceBytes else {
            JSONTree.writeString(string, to: &buffer)
            return
        }
        var string = string
        string.withUTF8 { utf8 in
            buffer.append(UInt8(ascii: "\""))
            var start = 0
            while start < utf8.count {
                let end = min(start + Self.pieceBytes, utf8.count)
                JSONTree.writeEscaped(UnsafeBufferPointer(rebasing: utf8[start..<end]), to: &buffer)
                flush()
                start = end
            }
            buffer.append(UInt8(ascii: "\""))
        }
    }
}
