/// Percent-decoding of URL paths and `application/x-www-form-urlencoded` queries.
enum QueryDecoding {
    /// `a=1&b=x+y&a=%C3%A9` as `[("a","1"), ("b","x y"), ("a","é")]`; a pair without `=` has an empty value,
    /// empty pairs (`&&`) are skipped.
    static func items(_ query: String) -> [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                return (
                    percentDecoded(pair[..<equals], plusAsSpace: true),
                    percentDecoded(pair[pair.index(after: equals)...], plusAsSpace: true)
                )
            }
            return (percentDecoded(pair, plusAsSpace: true), "")
        }
    }

    /// Decodes `%XX` escapes (a malformed escape stays as written); invalid UTF-8 becomes U+FFFD.
    static func percentDecoded(_ text: some StringProtocol, plusAsSpace: Bool) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else if plusAsSpace && byte == UInt8(ascii: "+") {
                output.append(UInt8(ascii: " "))
                index += 1
            } else {
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The value of one hex digit, or nil.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
