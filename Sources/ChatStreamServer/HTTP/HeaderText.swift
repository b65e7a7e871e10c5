// HeaderText: trimming the optional whitespace around header values (RFC 9110 section 5.6.3).

/// The text without leading and trailing spaces and tabs.
func trimmed(_ text: some StringProtocol) -> Substring {
    let value = Substring(text)
    guard let start = value.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
    let end = value.lastIndex(where: { $0 != " " && $0 != "\t" })!
    return value[start...end]
}
