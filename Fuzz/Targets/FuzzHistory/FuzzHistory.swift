// FuzzHistory: history pages, `{"data":[message...],"pagination":{...}}`, read as the client reads them.
//
// The page is parsed once with JSONParser; messages and parts are read through JSONElement into
// JSONTree and AssembledPart(json:). Options byte: bit 0 selects small JSON limits. Invariants:
// - reading a page never traps, whatever the shape (missing fields, wrong types, unknown parts);
// - a part read from a message equals one read from the part's own JSON text (element and tree
//   paths agree), and a part survives `jsonValue` -> AssembledPart(json:) unchanged;
// - the page value survives serialization; no more parts than the input has bytes.

import ChatStream
import ChatStreamJSON
import FuzzSupport

struct Page: Equatable {
    var messages: [[AssembledPart]] = []
    var ids: [String?] = []
    var cursor: String?
    var hasMore: Bool?
    var total: Int?
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let input = FuzzInput(data, size) else { return 0 }
    let configuration =
        input.bit(0) ? JSONConfiguration(maxDepth: 8, maxValueBytes: 400, maxStringBytes: 64) : JSONConfiguration()
    let parser = JSONParser(configuration: configuration)
    let payload = input.payload
    var page = Page()
    var tree: JSONTree?
    do {
        try parser.parse(payload) { root in
            tree = root.jsonValue
            root["data"]?.forEachElement { message in
                var parts: [AssembledPart] = []
                message["parts"]?.forEachElement { part in parts.append(AssembledPart(json: part.jsonValue)) }
                guard !parts.isEmpty else { return }  // a message with no parts is skipped
                page.messages.append(parts)
                page.ids.append(message["id"]?.string)
                _ = message["role"]?.string
                _ = message["createdAt"]?.double
                _ = message["metadata"]?["score"]?.double
            }
            if let pagination = root["pagination"] {
                page.cursor = pagination["cursor"]?.string
                page.hasMore = pagination["hasMore"]?.bool
                page.total = pagination["total"]?.int
            }
        }
    } catch is JSONError {
        return 0
    } catch {
        check(false, "unexpected error type \(error)")
    }
    guard let tree else { return 0 }

    // The same page read from the tree.
    var fromTree = Page()
    for message in tree["data"]?.arrayValue ?? [] {
        let parts = (message["parts"]?.arrayValue ?? []).map(AssembledPart.init(json:))
        guard !parts.isEmpty else { continue }
        fromTree.messages.append(parts)
        fromTree.ids.append(message["id"]?.stringValue)
    }
    if let pagination = tree["pagination"] {
        fromTree.cursor = pagination["cursor"]?.stringValue
        fromTree.hasMore = pagination["hasMore"]?.boolValue
        fromTree.total = pagination["total"]?.intValue
    }
    check(page == fromTree, "element and tree readings of the page differ:\n\(page)\n\(fromTree)")

    var partCount = 0
    for parts in page.messages {
        for part in parts {
            partCount += 1
            let again = AssembledPart(json: part.jsonValue)
            check(again == part, "part changed through its wire shape: \(part) -> \(again)")
        }
    }
    check(partCount <= payload.count, "more parts than input bytes")
    do {
        let back = try JSONParser().parseValue(tree.jsonBytes)
        check(back == tree, "page changed through serialization")
    } catch {
        check(false, "serialized page does not parse: \(error)")
    }
    return 0
}
