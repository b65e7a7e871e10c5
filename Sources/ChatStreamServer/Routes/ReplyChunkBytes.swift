// ReplyChunkBytes: a reply's UI message stream chunks (ReplyChunks.swift) written straight to
// their JSON bytes, without a tree per chunk and the public encoder's merging of events.
//
// The bytes equal ReplyChunks.chunks(for:metadata:) written out, chunk for chunk
// (ReplyChunkBytesTests holds them equal for text, tool calls, escapes and every finish reason);
// the encoder stays the definition. A streamed chat with no pacing counts and keeps its reply's
// chunks before its write (CountedReply), and building them through trees was, after the store's
// commit, the largest cost of such a chat (about a sixth of the server's time under load).

import ChatStream

/// Writes the chunks of a reply as JSON bytes.
enum ReplyChunkBytes {
    /// The JSON bytes of each chunk of `plan` (`finish` last, no `[DONE]`), in order.
    static func chunks(for plan: ReplyPlan, metadata: ReplyMetadata) -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        forEachChunk(of: plan, metadata: metadata) { chunks.append($0) }
        return chunks
    }

    /// Calls `body` with the JSON bytes of each chunk of `plan` in order (`finish` last, no
    /// `[DONE]`), one at a time: a long reply is never held whole.
    static func forEachChunk(of plan: ReplyPlan, metadata: ReplyMetadata, _ body: ([UInt8]) -> Void) {
        var chunk: [UInt8] = []
        chunk.reserveCapacity(256)
        /// Starts a chunk of `type`: `{"type":"<type>"` (the type needs no escape).
        func open(_ type: StaticString) {
            chunk.removeAll(keepingCapacity: true)
            chunk.append(contentsOf: #"{"type":""#.utf8)
            chunk.append(contentsOf: UnsafeBufferPointer(start: type.utf8Start, count: type.utf8CodeUnitCount))
            chunk.append(UInt8(ascii: "\""))
        }
        /// Appends `,"<name>":` (the name needs no escape).
        func key(_ name: StaticString) {
            chunk.append(contentsOf: #",""#.utf8)
            chunk.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            chunk.append(contentsOf: #"":"#.utf8)
        }
        func string(_ name: StaticString, _ value: String) {
            key(name)
            JSONTree.writeString(value, to: &chunk)
        }
        func close() {
            chunk.append(UInt8(ascii: "}"))
            body(chunk)
        }

        open("start")
        string("messageId", metadata.messageId)
        key("messageMetadata")
        ReplyChunks.startMetadata(metadata).write(to: &chunk)
        close()
        open("start-step")
        close()
        for (index, part) in plan.parts.enumerated() {
            switch part {
            case .text(let text):
                let id = "text-\(index)"
                open("text-start")
                string("id", id)
                close()
                forEachWord(of: text) { word in
                    open("text-delta")
                    string("id", id)
                    key("delta")
                    chunk.append(UInt8(ascii: "\""))
                    JSONTree.writeEscaped(word, to: &chunk)
                    chunk.append(UInt8(ascii: "\""))
                    close()
                }
                open("text-end")
                string("id", id)
                close()
            case .toolCall(let callId, let name, let input):
                open("tool-input-start")
                string("toolCallId", callId)
                string("toolName", name)
                close()
                for piece in ReplyChunks.pieces(of: input.jsonText, count: 3) {
                    open("tool-input-delta")
                    string("toolCallId", callId)
                    string("inputTextDelta", piece)
                    close()
                }
                open("tool-input-available")
                string("toolCallId", callId)
                string("toolName", name)
                key("input")
                input.write(to: &chunk)
                close()
            }
        }
        open("finish-step")
        close()
        open("finish")
        string("finishReason", StreamFinishReason(normalizing: plan.finishReason).rawValue)
        key("messageMetadata")
        metadata.finishMetadata(reason: plan.finishReason).write(to: &chunk)
        close()
    }

    /// Calls `body` with the UTF-8 bytes of each word of `text` as ``ReplyGenerator/words(_:)``
    /// cuts it (each word with the space that ends it): an ASCII text is cut at its space bytes,
    /// any other by characters (a space a combining mark follows is no word's end there).
    static func forEachWord(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var text = text
        let cut = text.withUTF8 { bytes -> Bool in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return false }
            var start = 0
            for index in bytes.indices where bytes[index] == UInt8(ascii: " ") {
                body(UnsafeBufferPointer(rebasing: bytes[start...index]))
                start = index + 1
            }
            if start < bytes.count { body(UnsafeBufferPointer(rebasing: bytes[start...])) }
            return true
        }
        guard !cut else { return }
        for var word in ReplyGenerator.words(text) { word.withUTF8 { body($0) } }
    }
}
