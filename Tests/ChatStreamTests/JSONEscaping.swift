// JSONEscaping: the JSON string escaper the generated streams of the positional-read suites
// share.

/// `text` escaped for a JSON string, with a choice of the optional escapes.
func jsonEscaped(_ text: String, solidus: Bool = false, unicode: Bool = false) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "/" where solidus: out += "\\/"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        case "\u{08}": out += "\\b"
        case "\u{0C}": out += "\\f"
        default:
            if scalar.value < 0x20 || (unicode && scalar.value > 0x7E) {
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out
}
