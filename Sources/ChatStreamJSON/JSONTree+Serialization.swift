// Writing JSON text: compact, members in order, UTF-8 passed through, control characters,
// quotes and backslashes escaped.

import ChatStreamBytes

extension JSONTree {
    /// The value as compact JSON text.
    ///
    /// ```swift
    /// let value: JSONTree = ["a": [1, "two", nil]]
    /// value.jsonText  // {"a":[1,"two",null]}
    /// ```
    public var jsonText: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.initialTextCapacity)
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value as compact JSON text in UTF-8 bytes.
    public var jsonBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.initialTextCapacity)
        write(to: &bytes)
        return bytes
    }

    /// The bytes `jsonText` and `jsonBytes` start with room for: a small object's text (a
    /// message or a conversation as the server sends them, 200-600 bytes) grew through five or
    /// six doublings from an empty array, each a copy.
    private static var initialTextCapacity: Int { 256 }

    /// Appends the value's compact JSON text to `output`.
    public func write(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let number): output.append(contentsOf: number.text.utf8)
        case .string(let string): JSONTree.writeString(string, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            // By index rather than zip(keys, values): the zip's iterator type is instantiated at
            // run time, about 0.25 million instructions the first time a process writes an object.
            for index in object.keys.indices {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONTree.writeString(object.keys[index], to: &output)
                output.append(UInt8(ascii: ":"))
                object.values[index].write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `string` as a JSON string literal to `output`.
    public static func writeString(_ string: String, to output: inout [UInt8]) {
        var string = string
        // Native strings are contiguous UTF-8 already (a bridged one is made so once): runs
        // without escapes are then copied whole rather than byte by byte through the UTF-8 view.
        string.withUTF8 { utf8 in writeString(utf8, to: &output) }
    }

    /// Appends the UTF-8 bytes `utf8` as a JSON string literal to `output`.
    static func writeString(_ utf8: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        writeEscaped(utf8, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    /// Appends `utf8` escaped as the inside of a JSON string literal, without its quotes: `\"`,
    /// `\\`, `\n`, `\r`, `\t`, and `\u00xx` for the other bytes below 0x20; every other byte as
    /// it is, runs without escapes copied whole. An escape stands for one byte, so a text escaped
    /// piece by piece reads as the whole text escaped at once (the CLI's `--json` writes a huge
    /// reply's text so). Runs are found eight bytes at a time (WordLanes): a word with no byte
    /// below 0x20, no quote and no backslash is passed whole.
    package static func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        guard let base = utf8.baseAddress else { return }
        let count = utf8.count
        var runStart = 0
        var index = 0
        while index < count {
            while index &+ 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let flags =
                    WordLanes.bytes(word, below: 0x20) | WordLanes.bytes(word, equalTo: UInt8(ascii: "\""))
                    | WordLanes.bytes(word, equalTo: UInt8(ascii: "\\"))
                // The lowest flag is exact: the first byte to escape (the loop below stops on it).
                if flags != 0 {
                    index &+= flags.trailingZeroBitCount >> 3
                    break
                }
                index &+= 8
            }
            while index < count, !needsEscape(base[index]) { index &+= 1 }
            guard index < count else { break }
            let byte = base[index]
            output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index &- runStart))
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            default:
                let hex: StaticString = "0123456789abcdef"
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hex.utf8Start[Int(byte >> 4)])
                output.append(hex.utf8Start[Int(byte & 0xF)])
            }
            index &+= 1
            runStart = index
        }
        output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count &- runStart))
    }

    /// Whether `byte` is escaped in a JSON string: below 0x20, a quote or a backslash.
    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}

extension JSONTree: CustomStringConvertible {
    /// The compact JSON text.
    public var description: String { jsonText }
}

extension JSONTree {
    /// Parses JSON text into a value with a fresh parser and the default limits.
    ///
    /// For many values, keep one ``JSONParser`` and call its `parseValue` instead.
    public init(parsing text: String) throws {
        self = try JSONParser().parseValue(text.utf8)
    }

    /// Parses JSON bytes into a value with a fresh parser and the default limits.
    public init(parsing bytes: [UInt8]) throws {
        self = try JSONParser().parseValue(bytes)
    }
}
