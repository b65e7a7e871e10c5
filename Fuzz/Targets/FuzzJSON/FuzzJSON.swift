// FuzzJSON: the JSON layer — yajl tape with JSONElement reads, trees, serialization, and the
// incremental PartialJSONParser.
//
// Options byte: bit 0 selects small limits (depth 8, strings 40 bytes, values 300 bytes).
// Invariants:
// - walking the tape with JSONElement's readers gives the same tree as `jsonValue`/`parseValue`;
//   a key lookup finds the value the tree keeps for that key;
// - `surelyEquals` answers true only where the trees are equal (against the input's own tree,
//   its value with the first key or element dropped, and the previous input's tree);
// - a tree serializes to text that parses back to an equal tree;
// - a parser that failed parses the next value normally (its yajl handle was replaced);
// - PartialJSONParser gives the same value or error whole and chunked, reading `value` after each
//   piece never traps, and it agrees with JSONParser on accept/reject and on the value except for
//   the differences listed in Fuzz/README.md;
// - the scan of the hot shapes (JSONScan, read member by member with values skipped at random,
//   and as an exact shape) reads only what yajl reads, as the same value.

@_spi(JSONScan) import ChatStreamJSON
import FuzzSupport

/// Builds a tree through the public element readers only.
func walk(_ element: JSONElement, depth: Int = 0) -> JSONTree {
    switch element.kind {
    case .null:
        check(element.isNull, "null element is not isNull")
        return .null
    case .bool: return .bool(element.bool!)
    case .number:
        let number = element.number!
        if let int = element.int64 { check(number.int64Value == int, "int64 disagrees with number") }
        return .number(number)
    case .string:
        let string = element.string!
        let count = element.withUTF8 { $0.count }!
        check(count == string.utf8.count, "withUTF8 and string disagree in length")
        return .string(string)
    case .array:
        var elements: [JSONTree] = []
        element.forEachElement { elements.append(walk($0, depth: depth + 1)) }
        check(element.count == elements.count, "array count \(element.count!) != \(elements.count)")
        if let last = elements.indices.last {
            check(element[last]?.jsonValue == elements[last], "subscript by position disagrees")
        }
        check(element[elements.count] == nil, "subscript past the end found an element")
        return .array(elements)
    case .object:
        var object = JSONObject()
        var members = 0
        element.forEachMember { key, value in
            members += 1
            check(key.kind == .string, "a key is not a string")
            object[key.string!] = walk(value, depth: depth + 1)
        }
        check(element.count == members, "object count \(element.count!) != \(members)")
        return .object(object)
    }
}

func checkLookups(_ element: JSONElement, _ tree: JSONTree) {
    guard element.kind == .object, case .object(let object) = tree else { return }
    // Keys compare by bytes in both: canonically equivalent keys ("é" as U+00E9 and as e + U+0301)
    // stay two keys in the tape and in the tree.
    element.forEachMember { key, _ in
        let name = key.string!
        check(element[named: name]?.jsonValue == object[name], "element[\"\(name)\"] disagrees with the tree")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let input = FuzzInput(data, size) else { return 0 }
    let small = input.bit(0)
    let configuration =
        small ? JSONConfiguration(maxDepth: 8, maxValueBytes: 300, maxStringBytes: 40) : JSONConfiguration()
    let payload = input.payload
    let parser = JSONParser(configuration: configuration)

    // Tape and element readers.
    var tree: JSONTree?
    var yajlError: JSONError?
    do {
        tree = try parser.parse(payload) { root -> JSONTree in
            let walked = walk(root)
            let materialized = root.jsonValue
            check(walked == materialized, "walk and jsonValue disagree:\n\(walked)\n\(materialized)")
            checkLookups(root, materialized)
            for other in [materialized, trimmed(materialized), previousTree].compactMap({ $0 })
            where root.surelyEquals(other) {
                check(materialized == other, "surelyEquals claims \(materialized) equals \(other)")
            }
            previousTree = materialized
            return materialized
        }
    } catch let error as JSONError {
        yajlError = error
        check(
            error.byteOffset >= 0 && error.byteOffset <= payload.count, "error offset \(error.byteOffset) outside input"
        )
    } catch {
        check(false, "unexpected error type \(error)")
    }
    // parseValue agrees with parse, and the parser survives a failure.
    do {
        let again = try parser.parseValue(payload)
        check(again == tree, "parseValue differs from parse")
    } catch let error as JSONError {
        check(error == yajlError, "parseValue failed differently: \(error) vs \(String(describing: yajlError))")
    } catch {
        check(false, "unexpected error type \(error)")
    }
    do {
        let simple = try parser.parseValue(Array(#"{"a":[1,"x",null]}"#.utf8))
        check(simple == ["a": [1, "x", nil]], "parser broken after the previous input")
    } catch {
        check(false, "parser broken after the previous input: \(error)")
    }
    // Serialization round trip (default limits: escaping can grow a value past small ones).
    if let tree {
        let text = tree.jsonBytes
        do {
            let back = try JSONParser().parseValue(text)
            check(back == tree, "round trip changed the value: \(tree) -> \(back)")
        } catch {
            check(false, "serialized value does not parse: \(error)\n\(String(decoding: text, as: UTF8.self))")
        }
    }

    // The scan (JSONScan) against yajl: member by member, skipping the values the chunk seed's
    // bits pick, and as an exact shape; whatever it reads, yajl read as the same value.
    var skipBits = UInt64(input.chunkSeed) &* 0x9E37_79B9_7F4A_7C15 | 1
    for members in [true, false] {
        do {
            let scanned = try payload.withUnsafeBytes { data in
                try JSONScan.tree(of: data, members: members, configuration: configuration) {
                    skipBits = skipBits &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return skipBits >> 62 == 0
                }
            }
            if let scanned {
                check(
                    scanned == tree, "the scan read \(scanned), yajl \(String(describing: tree)) (members \(members))")
            }
        } catch {
            check(false, "the scan skipped a value yajl refuses alone: \(error)")
        }
    }

    // PartialJSONParser, whole and chunked.
    func partial(_ pieces: [ArraySlice<UInt8>]) -> Result<JSONTree, PartialJSONError> {
        var parser = PartialJSONParser(maxDepth: configuration.maxDepth, maxBytes: configuration.maxValueBytes)
        do {
            for piece in pieces {
                try parser.append(piece)
                _ = parser.value
            }
            return .success(try parser.finish())
        } catch let error as PartialJSONError {
            return .failure(error)
        } catch {
            check(false, "unexpected error type \(error)")
            fatalError()
        }
    }
    let partialWhole = partial([payload[...]])
    let partialChunked = partial(input.pieces)
    check(
        partialWhole == partialChunked,
        "PartialJSONParser whole and chunked differ:\n\(partialWhole)\n\(partialChunked)")

    // Differential: PartialJSONParser against yajl, when neither hit a limit.
    if !small {
        switch (partialWhole, tree) {
        case (.success(let value), .some(let tree)):
            check(value == tree, "partial and yajl values differ:\n\(value)\n\(tree)")
        case (.success(let value), nil):
            check(false, "partial accepted \(value), yajl rejected: \(yajlError!)")
        case (.failure(let error), .some):
            check(false, "yajl accepted, partial rejected: \(error)")
        case (.failure, nil):
            break
        }
    }
    return 0
}

/// The tree of the previous input, for `surelyEquals` (libFuzzer runs inputs one at a time).
nonisolated(unsafe) var previousTree: JSONTree?

/// `value` with its first member or element dropped (nil for scalars and empty containers).
func trimmed(_ value: JSONTree) -> JSONTree? {
    switch value {
    case .array(let elements) where !elements.isEmpty: return .array(Array(elements.dropFirst()))
    case .object(let object) where !object.isEmpty:
        var rest = JSONObject()
        for (key, member) in object.dropFirst() { rest[key] = member }
        return .object(rest)
    default: return nil
    }
}
