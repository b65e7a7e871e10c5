// JSONScan+Tree: a whole value read with the scan's own operations, the way a dialect reads its
// hot shapes (keys, captured strings (whole with their escapes, then decoded, or as
// ``JSONScan/StringContent``) and small integers, `true`/`false`/`null`, skipped values),
// into a tree. It is the reference the differential test (JSONScanDifferentialTests) and the fuzz
// target FuzzJSON hold to yajl: whatever the scan accepts, yajl must read as the same value, and
// whatever yajl refuses, the scan must decline.

extension JSONScan {
    /// The value a scan reads from `data`, or nil when the scan declines it.
    ///
    /// With `members`, the scan is made with ``init(members:depth:configuration:)`` and reads
    /// objects member by member, skipping the values for which `skip` says true (a skipped value
    /// is given as yajl reads its bytes alone, so a wrong extent shows as a different tree);
    /// without, it is made with ``init(_:depth:configuration:)`` and captures every value, keys
    /// and strings checked as they are read. Where `skip` says true for a string, it is read as
    /// ``StringContent`` (``stringContent()``, ``checkedStringContent()``) and decoded. A value nested deeper than the configuration's depth
    /// limit is declined (a dialect declares its shape's depth when it makes the scan).
    ///
    /// - Throws: yajl's error when a value the scan skipped is not one JSON value alone: the
    ///   scan's fault, which the callers report.
    package static func tree(
        of data: UnsafeRawBufferPointer, members: Bool, configuration: JSONConfiguration, skip: () -> Bool
    ) throws -> JSONTree? {
        let scan =
            members
            ? JSONScan(members: data, depth: 0, configuration: configuration)
            : JSONScan(data, depth: 0, configuration: configuration)
        guard var scan else { return nil }
        return try withoutActuallyEscaping(skip) { skip in
            let reader = TreeReader(members: members, skip: skip, maxDepth: configuration.maxDepth)
            guard let value = try reader.value(&scan, depth: 0), scan.isAtEnd else { return nil }
            return value
        }
    }
}

/// The reading behind ``JSONScan/tree(of:members:configuration:skip:)``.
private struct TreeReader {
    let members: Bool
    let skip: () -> Bool
    /// The depth limit: a capture that would open a container past it declines (and the reading
    /// never recurses deeper than it).
    let maxDepth: Int

    func value(_ scan: inout JSONScan, depth: Int) throws -> JSONTree? {
        if members, depth > 0, skip() {
            guard let bytes = scan.skippedValue(depth: depth) else { return nil }
            // Alone, with room for its own nesting: the value the skip found, as yajl reads it.
            return try JSONParser().parseValue(bytes)
        }
        switch scan.next {
        case UInt8(ascii: "\""):
            _ = scan.literal("\"")
            // Either way a dialect reads a string that may hold escapes, `skip` choosing which.
            if skip() {
                let content = members ? scan.checkedStringContent() : scan.stringContent()
                return content?.withDecoded { JSONTree.string(String(tapeUTF8: $0)) }
            }
            guard members else { return scan.string().map(JSONTree.string) }
            guard let body = scan.checkedStringBody() else { return nil }
            return JSONScan.withShortEscapesDecoded(body) { JSONTree.string(String(tapeUTF8: $0)) }
        case UInt8(ascii: "{"):
            guard depth < maxDepth, scan.literal("{") else { return nil }
            var object = JSONObject()
            if scan.literal("}") { return .object(object) }
            while true {
                guard let key = self.key(&scan), let member = try value(&scan, depth: depth + 1) else { return nil }
                object[String(tapeUTF8: key)] = member
                if members {
                    guard let more = scan.moreMembers() else { return nil }
                    if !more { return .object(object) }
                } else if !scan.literal(",") {
                    return scan.literal("}") ? .object(object) : nil
                }
            }
        case UInt8(ascii: "["):
            guard depth < maxDepth, scan.literal("[") else { return nil }
            var elements: [JSONTree] = []
            if scan.literal("]") { return .array(elements) }
            while true {
                guard let element = try value(&scan, depth: depth + 1) else { return nil }
                elements.append(element)
                if !scan.literal(",") { return scan.literal("]") ? .array(elements) : nil }
            }
        case UInt8(ascii: "t"):
            return scan.literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"):
            return scan.literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"):
            return scan.literal("null") ? .null : nil
        default:
            return scan.smallInteger().map { .number(JSONNumber($0)) }
        }
    }

    /// A key and its colon: ``JSONScan/memberKey()`` in a members scan, else read as a dialect
    /// reads a key of an exact shape.
    private func key(_ scan: inout JSONScan) -> UnsafeRawBufferPointer? {
        if members { return scan.memberKey() }
        guard scan.literal("\""), let key = scan.plainString(), scan.literal(":") else { return nil }
        return key
    }
}
