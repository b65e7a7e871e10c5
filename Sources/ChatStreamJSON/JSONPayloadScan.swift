// JSONPayloadScan: one pass over a payload before yajl sees it, eight bytes at a time.
//
// It answers two questions. Is every byte ASCII? Then the payload needs no UTF-8 check (otherwise
// the parser checks all of it before parsing). A first pass proves the usual case, printable
// ASCII only, in three operations per eight bytes. Is there a form feed or vertical
// tab? yajl takes them for whitespace, which JSON does not (inside a string they would be raw
// control characters, an error as well).

enum JSONPayloadScan {
    /// The result: whether all bytes are ASCII, and where the first form feed or vertical tab is.
    struct Result {
        var isASCII: Bool
        var formFeedOrVerticalTab: Int?
    }

    @inline(__always)
    static func scan(_ bytes: UnsafeRawBufferPointer) -> Result {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return Result(isASCII: true, formFeedOrVerticalTab: nil) }
        // Compact JSON, the usual payload, is printable ASCII throughout: one cheap pass proves
        // it (a lane's high bit is set by a byte of 0x80 or more, or by the borrow of a byte below
        // 0x20). Otherwise, the exact pass below.
        if count >= 8 {
            var flags: UInt64 = 0
            var i = 0
            while i &+ 8 <= count {
                let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                flags |= (word &- 0x2020_2020_2020_2020) | word
                i &+= 8
            }
            let last = base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            flags |= (last &- 0x2020_2020_2020_2020) | last
            if flags & 0x8080_8080_8080_8080 == 0 { return Result(isASCII: true, formFeedOrVerticalTab: nil) }
        }
        return exactScan(base, count)
    }

    /// Both answers for any payload (control characters, other bytes above 0x7F).
    @inline(never)
    private static func exactScan(_ base: UnsafeRawPointer, _ count: Int) -> Result {
        var high: UInt64 = 0
        var suspect: UInt64 = 0
        // Per byte lane (high bit cleared first, so no carry crosses lanes): adding 0x75 sets the
        // lane's high bit when the byte is at least 0x0B, adding 0x73 when it is at least 0x0D.
        // Both together, on a byte that was ASCII, mark 0x0B or 0x0C.
        @inline(__always) func take(_ word: UInt64) {
            high |= word
            let low = word & 0x7F7F_7F7F_7F7F_7F7F
            suspect |= (low &+ 0x7575_7575_7575_7575) & ~(low &+ 0x7373_7373_7373_7373) & ~word
        }
        var i = 0
        while i &+ 8 <= count {
            take(base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i &+= 8
        }
        if i < count {
            if count >= 8 {
                take(base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))  // overlaps; harmless
            } else {
                var word: UInt64 = 0x2020_2020_2020_2020  // spaces: neither high nor suspect
                for k in 0..<count { word = word << 8 | UInt64(base.load(fromByteOffset: k, as: UInt8.self)) }
                take(word)
            }
        }
        var result = Result(isASCII: high & 0x8080_8080_8080_8080 == 0, formFeedOrVerticalTab: nil)
        if suspect & 0x8080_8080_8080_8080 != 0 {
            result.formFeedOrVerticalTab = firstFormFeedOrVerticalTab(base, count)
        }
        return result
    }

    @inline(never)
    private static func firstFormFeedOrVerticalTab(_ base: UnsafeRawPointer, _ count: Int) -> Int? {
        for i in 0..<count {
            let byte = base.load(fromByteOffset: i, as: UInt8.self)
            if byte == 0x0B || byte == 0x0C { return i }
        }
        return nil
    }
}
