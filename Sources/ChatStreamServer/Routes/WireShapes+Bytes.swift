// WireShapes+Bytes: a conversation list page written straight to its JSON bytes, without a tree
// per conversation. The list is the API's most frequent read; building each conversation's tree
// (and its last message's), then writing it, was a quarter of the server's time serving it.
// The bytes equal the trees of WireShapes.swift written out (WireShapesBytesTests), which stay
// the definition of each shape.

import ChatStream

extension WireShapes {
    /// ``page(_:cursor:hasMore:total:)`` of ``conversation(_:extensions:)`` items, as JSON bytes.
    static func conversationPageBytes(
        _ views: [ConversationView], extensions: Bool, cursor: String?, hasMore: Bool, total: Int
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + views.count * (extensions ? 480 : 200))
        out.append(contentsOf: #"{"data":["#.utf8)
        for (index, view) in views.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            writeConversation(view, extensions: extensions, to: &out)
        }
        out.append(contentsOf: #"],"pagination":{"cursor":"#.utf8)
        writeOptionalString(cursor, to: &out)
        out.append(contentsOf: (hasMore ? #","hasMore":true,"total":"# : #","hasMore":false,"total":"#).utf8)
        out.append(contentsOf: String(total).utf8)
        out.append(contentsOf: "}}".utf8)
        return out
    }

    /// Appends ``conversation(_:extensions:)`` of `view` as JSON.
    static func writeConversation(_ view: ConversationView, extensions: Bool, to out: inout [UInt8]) {
        let conversation = view.record
        out.append(contentsOf: #"{"id":"#.utf8)
        JSONTree.writeString(conversation.id, to: &out)
        out.append(contentsOf: #","title":"#.utf8)
        writeOptionalString(conversation.title, to: &out)
        out.append(contentsOf: #","createdAt":"#.utf8)
        out.append(contentsOf: String(conversation.createdAt).utf8)
        out.append(contentsOf: #","updatedAt":"#.utf8)
        out.append(contentsOf: String(conversation.updatedAt).utf8)
        out.append(contentsOf: #","userId":"#.utf8)
        writeOptionalString(conversation.ownerUser, to: &out)
        out.append(contentsOf: #","status":"#.utf8)
        JSONTree.writeString(conversation.status, to: &out)
        if extensions {
            out.append(contentsOf: #","tags":["#.utf8)
            for (index, tag) in view.tags.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONTree.writeString(tag, to: &out)
            }
            out.append(contentsOf: #"],"unreadCount":"#.utf8)
            out.append(contentsOf: String(view.unreadCount).utf8)
            out.append(contentsOf: #","lastMessage":"#.utf8)
            if let preview = view.lastMessage {
                writePreview(preview, to: &out)
            } else {
                out.append(contentsOf: "null".utf8)
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends ``preview(_:)`` of `preview` as JSON.
    static func writePreview(_ preview: MessagePreview, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"id":"#.utf8)
        JSONTree.writeString(preview.id, to: &out)
        out.append(contentsOf: #","role":"#.utf8)
        JSONTree.writeString(preview.role, to: &out)
        if preview.text.isEmpty {
            out.append(contentsOf: #","parts":[]"#.utf8)
        } else {
            out.append(contentsOf: #","parts":[{"type":"text","text":"#.utf8)
            JSONTree.writeString(preview.text, to: &out)
            out.append(contentsOf: "}]".utf8)
        }
        out.append(contentsOf: #","createdAt":"#.utf8)
        out.append(contentsOf: String(preview.createdAt).utf8)
        out.append(contentsOf: #","feedback":null,"metadata":{"score":"#.utf8)
        out.append(UInt8(ascii: preview.role == "user" ? "0" : "1"))
        out.append(UInt8(ascii: "}"))
        if let clientMessageId = preview.clientMessageId {
            out.append(contentsOf: #","clientMessageId":"#.utf8)
            JSONTree.writeString(clientMessageId, to: &out)
        }
        if preview.truncated { out.append(contentsOf: #","truncated":true"#.utf8) }
        out.append(UInt8(ascii: "}"))
    }

    private static func writeOptionalString(_ value: String?, to out: inout [UInt8]) {
        if let value { JSONTree.writeString(value, to: &out) } else { out.append(contentsOf: "null".utf8) }
    }
}
