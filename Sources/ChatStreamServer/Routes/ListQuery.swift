// ListQuery: the query parameters of the conversation and message lists, validated.
//
// `limit` is 1...100 (default 20). With the extensions on, the conversation list also takes
// `status=` (repeatable), `tag=` (repeatable, all must match), `unread=true|false`, `q=` and
// `order=desc|asc`; they combine with AND. Their canonical text (sorted, lowercased where matching
// ignores case) is what a cursor carries. The store applies them in SQL (StoreTransaction+Pages.swift).

import ChatStream

/// The validated parameters of a list request.
struct ListQuery: Sendable {
    static let statuses: Set<String> = ["ongoing", "ended", "taken_over"]

    var limit = 20
    var cursor: String?
    var statuses: Set<String> = []
    var tags: Set<String> = []
    var unreadOnly = false
    var search: String?
    var ascending = false

    /// Reads `request`'s query; filters only when `filters` is true (the extensions are on).
    init(request: HTTPServerRequest, filters: Bool) throws(APIError) {
        if let text = request.queryValue("limit") {
            guard let value = Int(text), (1...100).contains(value) else {
                throw APIError.invalidBody("limit must be an integer from 1 to 100", field: "limit")
            }
            limit = value
        }
        if let text = request.queryValue("cursor"), !text.isEmpty { cursor = text }
        guard filters else { return }
        for status in request.queryValues("status") {
            guard Self.statuses.contains(status) else {
                throw APIError.validation(
                    "VALIDATION_INVALID_STATUS", "status must be ongoing, ended or taken_over, not \"\(status)\"")
            }
            statuses.insert(status)
        }
        let tagValues = request.queryValues("tag")
        try Self.validate(tags: tagValues)
        tags = Set(tagValues)
        switch request.queryValue("unread") {
        case nil, "false": unreadOnly = false
        case "true": unreadOnly = true
        case let other?:
            throw APIError.validation("VALIDATION_INVALID_UNREAD", "unread must be true or false, not \"\(other)\"")
        }
        if let text = request.queryValue("q"), !text.isEmpty {
            try StringLimits.check(text, field: "q", maxBytes: StringLimits.searchBytes)
            search = text.fastLowercased
        }
        switch request.queryValue("order") {
        case nil, "desc": ascending = false
        case "asc": ascending = true
        case let other?:
            throw APIError.validation("VALIDATION_INVALID_ORDER", "order must be desc or asc, not \"\(other)\"")
        }
    }

    /// Checks a tag list: at most 25 tags of 1...64 characters and at most
    /// ``StringLimits/tagBytes`` bytes of UTF-8 each.
    static func validate(tags: [String]) throws(APIError) {
        guard tags.count <= 25 else {
            throw APIError.validation("VALIDATION_TOO_MANY_TAGS", "at most 25 tags are allowed, got \(tags.count)")
        }
        for tag in tags where !(1...64).contains(tag.count) {
            throw APIError.validation("VALIDATION_INVALID_TAG", "each tag must be 1 to 64 characters long")
        }
        for tag in tags where tag.utf8.count > StringLimits.tagBytes {
            throw APIError(
                status: 400, code: "VALIDATION_INVALID_TAG",
                message: "each tag must be at most \(StringLimits.tagBytes) bytes of UTF-8, got \(tag.utf8.count)",
                details: ["field": "tags"])
        }
    }

    /// The filters as canonical text, for cursors.
    var filterKey: String {
        let value: JSONTree = [
            "status": .array(statuses.sorted().map { .string($0) }),
            "tag": .array(tags.sorted().map { .string($0) }),
            "unread": .bool(unreadOnly),
            "q": search.map { .string($0) } ?? .null,
            "order": ascending ? "asc" : "desc",
        ]
        return value.jsonText
    }
}
