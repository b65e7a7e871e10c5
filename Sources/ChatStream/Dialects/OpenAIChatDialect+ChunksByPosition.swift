// Content chunks read by position: a streamed reply sends one chunk per token,
// `{"id":…,"object":"chat.completion.chunk","created":…,"model":…,"system_fingerprint":…,
// "choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]}`, and a
// streamed tool call one per piece of its arguments, `…"delta":{"tool_calls":[{"index":0,
// "function":{"arguments":"x"}}]}…`; parsing each with the JSON parser costs more than the rest
// of the work on it. The usual chunk is scanned member by member (ChatStreamJSON's JSONScan): its
// one choice's text is lent straight from the unit (or, when it holds two-character escapes such
// as `\n`, from a decoded copy), and a piece of a started call's arguments is taken with its
// two-character escapes decoded; every member the general path does not read is skipped
// (checked); any other shape (a call not yet started, a `\u` escape) goes the general way, which
// yields the same events (or the same error). A chunk whose bytes around its text or arguments,
// up to the end of `choices`, are the last such chunk's (the envelope repeats token after
// token) is read through that shape (ChatStreamJSON's JSONScan.RepeatedShape): one comparison
// instead of the read of `id`, `object`, `created`, `model` and the path down to the text.
//
// What the general path reads of a chunk once the message has started, and so what this read
// must understand rather than skip: `error`, `choices` and `usage` at the top (`finish_reason`
// there only when `choices` is empty); a choice's `index`, `delta` and `finish_reason`; a delta's
// `content`, `refusal`, `tool_calls`, `reasoning_content`, `reasoning` and `reasoning_details`.

import ChatStreamBytes
import ChatStreamFraming
@_spi(JSONScan) import ChatStreamJSON

extension OpenAIChatDialect {
    /// What the one choice's delta of a chunk read by position holds.
    private enum DeltaPiece {
        /// A non-empty text, its escapes (two-character ones only) decoded when it is taken.
        case text(JSONScan.StringContent)
        /// A piece of the arguments of the tool call at wire index `index`: its JSON string's
        /// content, escapes and all (decoded when the piece is taken).
        case toolArguments(index: Int, piece: UnsafeRawBufferPointer)
    }

    /// Reads `unit` as a chunk of one choice whose delta's only content is a non-empty text
    /// (no `\u` escape), or one piece of a started tool call's arguments (its other readable
    /// members null or absent, no usage object, no error), and does what the general path does
    /// with it; false, with nothing done, otherwise. Only once the message has started (the
    /// general path reads the first chunk's `id`).
    mutating func decodeContentChunkByPosition(
        _ unit: FramedUnit, textDelta: TextDeltaSink, emit: EventSink
    ) throws -> Bool {
        // A tool call's function is 7 levels deep: read by position only within the limit.
        let toolCalls = parser.configuration.maxDepth >= 7
        let read: (index: Int, piece: DeltaPiece)
        if let repeated = readRepeatedChunk(unit.data, toolCalls: toolCalls) {
            read = repeated
        } else if let chunk = readChunk(unit, toolCalls: toolCalls) {
            read = chunk
        } else {
            return false
        }
        let (k, piece) = read
        switch piece {
        case .text(let text):
            // What the general path does with it, in its order.
            if choices.count <= k {
                choices.append(contentsOf: repeatElement(Choice(), count: k + 1 - choices.count))
            }
            choices[k].seen = true
            let part = try openText(k, textDelta: textDelta, emit: emit)
            try text.withDecoded { try textDelta(part, CheckedUTF8(unchecked: $0)) }
        case .toolArguments(let index, let piece):
            // Only a call already started (its ID and name known, so the general path would read
            // neither again); its arguments' escapes decoded as the parser decodes them.
            guard k < choices.count, choices[k].seen,
                let slot = choices[k].toolCalls.firstIndex(where: { $0.index == index }),
                choices[k].toolCalls[slot].call.started, choices[k].toolCalls[slot].call.id != nil,
                choices[k].toolCalls[slot].call.name != nil
            else { return false }
            // The general path selects the choice even for an empty piece; a `\u` escape goes its way.
            let taken = try JSONScan.withShortEscapesDecoded(piece) { arguments -> Bool in
                try select(k, textDelta: textDelta, emit: emit)
                try choices[k].toolCalls[slot].call.append(arguments, textDelta: textDelta, emit: emit)
                return true
            }
            guard taken == true else { return false }
        }
        return true
    }

    /// The chunk read member by member, its shape remembered for the next one (see
    /// JSONScan.RepeatedShape): the bytes around its text or arguments up to the end of `choices`.
    private mutating func readChunk(_ unit: FramedUnit, toolCalls: Bool) -> (index: Int, piece: DeltaPiece)? {
        guard var read = parser.scanMembers(unit, depth: 4), read.literal("{") else { return nil }
        var members = ChunkMembers()
        guard Self.readMembers(&read, &members, toolCalls: toolCalls, afterValue: false), let choice = members.choice
        else { return nil }
        let (content, toolCall): (UnsafeRawBufferPointer, Int?) =
            switch choice.piece {
            case .text(let text): (text.raw, nil)
            case .toolArguments(let index, let piece): (piece, index)
            }
        repeatedChunk.record(unit.data, content: content, suffixEnd: members.choicesEnd)
        repeatedChunkRead = (choice.index, toolCall)
        return choice
    }

    /// The chunk read through the last chunk's shape: the same bytes before its text (or
    /// arguments) and after it up to the end of `choices`, so the same choice and the same kind
    /// of piece; the members after `choices` are read as in full. Nil when the shape does not
    /// match or the rest does not read.
    private func readRepeatedChunk(_ data: UnsafeRawBufferPointer, toolCalls: Bool) -> (index: Int, piece: DeltaPiece)?
    {
        guard let matched = repeatedChunk.match(data, depth: 4, configuration: parser.configuration) else { return nil }
        var read = matched.scan
        let content = matched.content
        var members = ChunkMembers()
        if let toolCall = repeatedChunkRead.toolCall {
            members.choice = (repeatedChunkRead.choice, .toolArguments(index: toolCall, piece: content.raw))
        } else {
            guard !content.raw.isEmpty else { return nil }
            members.choice = (repeatedChunkRead.choice, .text(content))
        }
        guard Self.readMembers(&read, &members, toolCalls: toolCalls, afterValue: true) else { return nil }
        return members.choice
    }

    /// The members of a chunk read so far: its one choice, and where the value of `choices` ends.
    private struct ChunkMembers {
        var choice: (index: Int, piece: DeltaPiece)? = nil
        var choicesEnd = 0
    }

    /// A chunk's members from the scan's place (after its `{`, or after a member's value when
    /// `afterValue`) to its end: `choices` read into `members`, a `usage` that is not an object
    /// and every member the general path does not read skipped; false on an `error`, a second
    /// `choices`, anything else, or bytes after the end.
    private static func readMembers(
        _ read: inout JSONScan, _ members: inout ChunkMembers, toolCalls: Bool, afterValue: Bool
    ) -> Bool {
        var afterValue = afterValue
        while let step = read.nextMember(afterValue: afterValue) {
            guard case .key(let key) = step else { return read.isAtEnd }
            afterValue = true
            if key.sameBytes(as: "choices") {
                guard members.choice == nil, let one = readOnlyChoice(&read, toolCalls: toolCalls) else {
                    return false
                }
                members.choice = one
                members.choicesEnd = read.offset
            } else if key.sameBytes(as: "usage") {
                // Not an object: not read (the general path reads an object only).
                guard read.next != UInt8(ascii: "{"), read.skipValue(depth: 1) else { return false }
            } else if key.sameBytes(as: "error") {
                return false
            } else {
                guard read.skipValue(depth: 1) else { return false }
            }
        }
        return false
    }

    /// `[{…}]` after `"choices":`: the one choice's index (0 when absent) and its delta's piece;
    /// nil when there is not exactly one choice of that kind. A tool call is read only when
    /// `toolCalls` says its depth is within the limit.
    private static func readOnlyChoice(_ read: inout JSONScan, toolCalls: Bool) -> (index: Int, piece: DeltaPiece)? {
        guard read.literal("[{") else { return nil }
        var index: Int? = nil
        var piece: DeltaPiece? = nil
        repeat {
            guard let key = read.memberKey() else { return nil }
            if key.sameBytes(as: "index") {
                guard index == nil, let value = read.smallInteger(), value <= maxChoiceIndex else { return nil }
                index = value
            } else if key.sameBytes(as: "delta") {
                guard piece == nil, read.literal("{"), let content = readDelta(&read, toolCalls: toolCalls) else {
                    return nil
                }
                piece = content
            } else if key.sameBytes(as: "finish_reason") {
                guard read.literal("null") else { return nil }
            } else {
                guard read.skipValue(depth: 3) else { return nil }
            }
            guard let more = read.moreMembers() else { return nil }
            if !more { break }
        } while true
        guard let piece, read.literal("]") else { return nil }
        return (index ?? 0, piece)
    }

    /// A delta's members after its `{`: the text of its `content`, when that is a non-empty
    /// string without a `\u` escape, or its one tool call's arguments, when every other member the
    /// general path reads is null.
    private static func readDelta(_ read: inout JSONScan, toolCalls: Bool) -> DeltaPiece? {
        var piece: DeltaPiece? = nil
        repeat {
            guard let key = read.memberKey() else { return nil }
            if key.sameBytes(as: "content") {
                guard piece == nil, read.literal("\""), let content = read.checkedStringContent(),
                    !content.raw.isEmpty
                else { return nil }
                piece = .text(content)
            } else if key.sameBytes(as: "tool_calls") {
                guard toolCalls, piece == nil, let call = readOnlyToolCall(&read) else { return nil }
                piece = call
            } else if key.sameBytes(as: "refusal") || key.sameBytes(as: "reasoning_content")
                || key.sameBytes(as: "reasoning") || key.sameBytes(as: "reasoning_details")
            {
                guard read.literal("null") else { return nil }
            } else {
                guard read.skipValue(depth: 4) else { return nil }
            }
            guard let more = read.moreMembers() else { return nil }
            if !more { break }
        } while true
        return piece
    }

    /// `[{…}]` after `"tool_calls":`: the one call's wire index (0, its position, when absent)
    /// and the content of its `function`'s `arguments` string; nil for anything else (another
    /// kind of arguments, no arguments, more than one call). The call's `id`, `type` and the
    /// function's `name` are skipped: read by position only for a call already started, whose
    /// ID and name the general path would not read again.
    private static func readOnlyToolCall(_ read: inout JSONScan) -> DeltaPiece? {
        guard read.literal("[{") else { return nil }
        var index: Int? = nil
        var arguments: UnsafeRawBufferPointer? = nil
        repeat {
            guard let key = read.memberKey() else { return nil }
            if key.sameBytes(as: "index") {
                guard index == nil, let value = read.smallInteger() else { return nil }
                index = value
            } else if key.sameBytes(as: "function") {
                guard arguments == nil, read.literal("{"), let piece = readArguments(&read) else { return nil }
                arguments = piece
            } else {
                guard read.skipValue(depth: 6) else { return nil }
            }
            guard let more = read.moreMembers() else { return nil }
            if !more { break }
        } while true
        guard let arguments, read.literal("]") else { return nil }
        return .toolArguments(index: index ?? 0, piece: arguments)
    }

    /// A function's members after its `{`: the content of its `arguments` string (escapes
    /// included, checked); nil when that is absent or not a string.
    private static func readArguments(_ read: inout JSONScan) -> UnsafeRawBufferPointer? {
        var arguments: UnsafeRawBufferPointer? = nil
        repeat {
            guard let key = read.memberKey() else { return nil }
            if key.sameBytes(as: "arguments") {
                guard arguments == nil, read.literal("\""), let piece = read.checkedStringBody() else { return nil }
                arguments = piece
            } else {
                guard read.skipValue(depth: 7) else { return nil }
            }
            guard let more = read.moreMembers() else { return nil }
            if !more { break }
        } while true
        return arguments
    }
}
