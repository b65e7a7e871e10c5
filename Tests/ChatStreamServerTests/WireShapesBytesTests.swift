// A conversation list page is written straight to bytes (WireShapes+Bytes.swift); the JSON trees
// of WireShapes.swift are the definition they must equal, byte for byte, with and without the
// extensions, for every optional field present and absent and for text that needs escapes.

import ChatStream
import Testing

@testable import ChatStreamServer

@Suite("Conversation pages written straight to bytes")
struct WireShapesBytesTests {
    static func record(_ index: Int, title: String?, user: String?, status: String = "ongoing") -> ConversationRecord {
        ConversationRecord(
            id: "0190-\(index)", title: title, createdAt: 1_700_000_000 + index, updatedAt: 1_700_000_100 + index,
            updateSequence: index, ownerDevice: "device", ownerUser: user, status: status)
    }

    static let previews: [MessagePreview?] = [
        nil,
        MessagePreview(id: "m-1", role: "user", createdAt: 5, clientMessageId: nil, text: "hello", truncated: false),
        MessagePreview(id: "m-2", role: "assistant", createdAt: 6, clientMessageId: nil, text: "", truncated: false),
        MessagePreview(
            id: "m-3", role: "user", createdAt: 7, clientMessageId: "c-3", text: "quote \" slash \\ line\n\u{1} é 👍🏽",
            truncated: true),
        MessagePreview(
            id: "m-4", role: "assistant", createdAt: -8, clientMessageId: "c-4", text: "x", truncated: false),
    ]

    static var views: [ConversationView] {
        var views: [ConversationView] = []
        for (index, preview) in previews.enumerated() {
            views.append(
                ConversationView(
                    record: record(
                        index, title: index % 2 == 0 ? nil : "title \"\(index)\" ñ",
                        user: index % 3 == 0 ? nil : "user\n\(index)",
                        status: ["ongoing", "ended", "taken_over"][index % 3]),
                    tags: Array(["vip", "a \"tag\"", "ü"].prefix(index % 4)), unreadCount: index * 7,
                    lastMessage: preview))
        }
        return views
    }

    @Test(arguments: [true, false])
    func eachConversationIsItsTreesBytes(extensions: Bool) {
        for view in Self.views {
            var written: [UInt8] = []
            WireShapes.writeConversation(view, extensions: extensions, to: &written)
            let tree = WireShapes.conversation(view, extensions: extensions).jsonBytes
            #expect(
                written == tree,
                "\(String(decoding: written, as: UTF8.self)) != \(String(decoding: tree, as: UTF8.self))")
        }
    }

    @Test(arguments: [(nil, false, 0), ("cursor \"x\"", true, 42), (nil, false, 5)] as [(String?, Bool, Int)])
    func aPageIsItsTreesBytes(cursor: String?, hasMore: Bool, total: Int) {
        for extensions in [true, false] {
            for count in [0, 1, Self.views.count] {
                let views = Array(Self.views.prefix(count))
                let written = WireShapes.conversationPageBytes(
                    views, extensions: extensions, cursor: cursor, hasMore: hasMore, total: total)
                let tree = WireShapes.page(
                    views.map { WireShapes.conversation($0, extensions: extensions) }, cursor: cursor, hasMore: hasMore,
                    total: total
                ).jsonBytes
                #expect(written == tree, "\(String(decoding: written, as: UTF8.self))")
            }
        }
    }

    @Test func aPreviewShowsAStoredTextWholeUpToItsLengthAndCutsALongerOne() {
        #expect(MessagePreview.shown("short", length: 5) == "short")
        #expect(MessagePreview.shown("e\u{301}e\u{301}e\u{301}", length: 2) == "e\u{301}e\u{301}")
        #expect(MessagePreview.shown("abcdef", length: 5) == "abcde")
        // At most four bytes per character: a character of two scalars is cut between them.
        #expect(MessagePreview.shown("👍🏽👍🏽", length: 1) == "👍")
    }
}
