/// A JSON number, kept as exactly as JSON allows.
///
/// - Integers that fit in `Int64` (including -9223372036854775808) are kept as `Int64`.
/// - Other numbers with a fraction or exponent are kept as `Double`, parsed the same in every
///   C locale.
/// - Integers beyond 64 bits, and numbers whose magnitude overflows `Double`, are kept as their
///   literal text, so nothing is rounded or rejected: ``text`` gives them back exactly.
///
/// Two numbers are equal when they denote the same value: `1` equals `1.0`.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    @usableFromInline
    enum Storage: Sendable {
        case int(Int64)
        case double(Double)
        case text(String)
    }

    @usableFromInline
    let storage: Storage

    /// An integer.
    public init(_ value: Int64) { storage = .int(value) }

    /// An integer.
    public init(_ value: Int) { storage = .int(Int64(value)) }

    /// A floating-point number. Infinity and NaN have no JSON form and serialize as `null`.
    public init(_ value: Double) { storage = .double(value) }

    /// A number from its JSON literal text (`-12`, `3.5e-7`, `123456789012345678901234567890`),
    /// or `nil` when `text` is not a JSON number.
    public init?(literal text: String) {
        var copy = text
        guard let number = copy.withUTF8({ JSONNumber(validLiteral: UnsafeRawBufferPointer($0)) }) else {
            return nil
        }
        self = number
    }

    init(storage: Storage) { self.storage = storage }

    /// The value as `Int64` when it is an integer that fits exactly.
    public var int64Value: Int64? {
        switch storage {
        case .int(let value): return value
        case .double(let value): return Int64(exactly: value)
        case .text: return nil
        }
    }

    /// The value as `Double` (nearest; big integers round, overflow gives infinity).
    public var doubleValue: Double {
        switch storage {
        case .int(let value): return Double(value)
        case .double(let value): return value
        case .text(let text): return Double(text) ?? .nan
        }
    }

    /// Whether the value is an integer (of any size).
    public var isInteger: Bool {
        switch storage {
        case .int: return true
        case .double(let value): return value.rounded(.towardZero) == value && value.isFinite
        case .text(let text): return !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
        }
    }

    /// The number as JSON text: integers exactly, doubles in their shortest round-trip form,
    /// kept literals as they arrived, and non-finite doubles as `null`.
    public var text: String {
        switch storage {
        case .int(let value): return String(value)
        case .double(let value):
            guard value.isFinite else { return "null" }
            return String(describing: value)
        case .text(let text): return text
        }
    }

    public var description: String { text }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Int64(exactly: b) == a
        case (.text(let a), .text(let b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch storage {
        case .int(let value): hasher.combine(value)
        case .double(let value):
            if let exact = Int64(exactly: value) { hasher.combine(exact) } else { hasher.combine(value) }
        case .text(let text): hasher.combine(text)
        }
    }
}

extension JSONNumber {
    /// Parses a number literal that yajl has already checked is valid JSON number syntax.
    ///
    /// Integers are accumulated negatively so that -2^63 fits; anything else goes through
    /// Swift's locale-independent `Double` parser.
    init?(validLiteral bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return nil }
        var index = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < bytes.count else { return nil }
        var accumulator: Int64 = 0  // kept <= 0
        var overflow = false
        var isInteger = true
        while index < bytes.count {
            let byte = bytes[index]
            guard byte &- UInt8(ascii: "0") < 10 else {
                isInteger = false
                break
            }
            if !overflow {
                let (times10, o1) = accumulator.multipliedReportingOverflow(by: 10)
                let (next, o2) = times10.subtractingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
                if o1 || o2 { overflow = true } else { accumulator = next }
            }
            index += 1
        }
        if isInteger {
            guard JSONNumber.isValidLiteral(bytes) else { return nil }
            if overflow {
                storage = .text(String(decoding: bytes, as: UTF8.self))
            } else if negative {
                storage = .int(accumulator)
            } else if accumulator == .min {
                storage = .text(String(decoding: bytes, as: UTF8.self))
            } else {
                storage = .int(-accumulator)
            }
            return
        }
        guard JSONNumber.isValidLiteral(bytes) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let value = Double(text) else { return nil }
        storage = value.isFinite ? .double(value) : .text(text)
    }

    /// Whether `bytes` is exactly a JSON number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isValidLiteral(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let n = bytes.count
        func digits() -> Int {
            let start = i
            while i < n, bytes[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            return i - start
        }
        if i < n, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < n else { return false }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else if digits() == 0 {
            return false
        }
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return false }
        }
        if i < n, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < n, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == n
    }
}
