// LowercasedText: the lower-case forms the store searches (message text, titles) and the demo
// agent reads, made without Unicode's case tables when the text is ASCII, as most is:
// `lowercased()` walked every character through them, a few percent of a chat's server time.

extension String {
    /// `lowercased()`, with a fast path for ASCII text: only `A`-`Z` change there, byte for byte,
    /// and a text with none of them is returned as it is.
    var fastLowercased: String {
        var text = self
        return text.withUTF8 { bytes in
            var hasUpper = false
            for byte in bytes {
                if byte >= 0x80 { return lowercased() }  // not ASCII
                if byte &- 0x41 < 26 { hasUpper = true }
            }
            guard hasUpper else { return self }
            return String(unsafeUninitializedCapacity: bytes.count) { buffer in
                for index in bytes.indices {
                    let byte = bytes[index]
                    buffer[index] = byte &- 0x41 < 26 ? byte | 0x20 : byte
                }
                return bytes.count
            }
        }
    }
}
