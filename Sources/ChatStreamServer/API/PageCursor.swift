// PageCursor: the opaque `cursor` of conversation and message pages.
//
// A cursor is base64url of a small JSON object: which list it pages (`k`: conversations or
// messages), the scope (`s`: the conversation of a message list), the anchor (`a`: the sequence
// number of the last item handed out; the next page starts past it, so items added meanwhile do
// not shift pages), and the filters of the first request (`f`). A cursor sent with different
// filters or to a different list is rejected rather than silently paging something else.

import ChatStream

/// The position and filters a page continues from.
struct PageCursor: Sendable, Equatable {
    var kind: String
    var scope: String
    var anchor: Int
    var filters: String

    /// The opaque text sent to clients.
    var encoded: String {
        let value: JSONTree = [
            "k": .string(kind), "s": .string(scope), "a": .number(JSONNumber(anchor)), "f": .string(filters),
        ]
        return Base64URL.encode(value.jsonBytes)
    }

    /// Decodes `text` and checks it belongs to this list with these filters.
    static func decode(_ text: String, kind: String, scope: String, filters: String) throws(APIError) -> PageCursor {
        guard let bytes = Base64URL.decode(text), let value = try? JSONTree(parsing: bytes),
            let decodedKind = value["k"]?.stringValue, let decodedScope = value["s"]?.stringValue,
            let anchor = value["a"]?.intValue, let decodedFilters = value["f"]?.stringValue
        else {
            throw APIError.validation("VALIDATION_INVALID_CURSOR", "the cursor is malformed")
        }
        guard decodedKind == kind, decodedScope == scope else {
            throw APIError.validation("VALIDATION_INVALID_CURSOR", "the cursor belongs to another list")
        }
        guard decodedFilters == filters else {
            throw APIError.validation(
                "VALIDATION_CURSOR_MISMATCH",
                "the cursor was made with other filters; repeat the first request's filters")
        }
        return PageCursor(kind: kind, scope: scope, anchor: anchor, filters: filters)
    }
}
