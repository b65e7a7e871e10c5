// ServerSentEventInterpreter: WHATWG "interpret an event stream", one complete line at a time.
//
// Lines come from LineSplitter, which already handled CR/LF/CRLF and pieces. This struct holds the
// block being built (data buffer, event type, retry) and the sticky state (last event ID, the
// reconnection time), and dispatches on a blank line.
//
// Zero copy: the first `data` line of a block is remembered as a pointer into the caller's input
// (`dataInInput`) when the line lies wholly inside it. If the block dispatches before `feed`
// returns, the visitor sees the input bytes directly. A second data line, or the end of `feed`
// (`detachFromInput`), copies those bytes into `data`, the reused buffer, so no pointer to the
// caller's memory ever outlives the call. The `event` value is kept the same way (`typeInInput`,
// copied into `eventType` at the end of `feed`): Anthropic and OpenAI Responses name every event.
//
// For example, the lines of one block, all inside one `feed`:
//   `event: delta`      the type is remembered as a pointer into the input
//   `data: {"a":1}`     the first data line: remembered as a pointer, not copied
//   `data: {"b":2}`     a second one: the first is copied into `data`, then LF and this value
//   ``                  blank: an event of type `delta`, data `{"a":1}\n{"b":2}`, is dispatched
//                       and the block reset; the last event ID and the retry time stay
import ChatStreamBytes

struct ServerSentEventInterpreter: @unchecked Sendable {
    // @unchecked: `dataInInput` and `typeInInput` point into the caller's input, non-nil only
    // inside `feed`.

    private static let message: StaticString = "message"
    /// `data` as a little- or big-endian word, as it lies in memory.
    private static var dataWord: UInt32 { UInt32(0x64).littleEndian == 0x64 ? 0x6174_6164 : 0x6461_7461 }
    /// `even` (of `event`) the same way.
    private static var eventWord: UInt32 { UInt32(0x64).littleEndian == 0x64 ? 0x6E65_7665 : 0x6576_656E }
    /// The default event type's bytes.
    private static var messageType: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: message.utf8Start, count: message.utf8CodeUnitCount)
    }

    /// Where the value starts when the `count` bytes at `line` begin with `data:` (after one
    /// optional space), or nil for any other line.
    @inline(__always)
    private static func dataValueStart(_ line: UnsafeRawPointer, count: Int) -> Int? {
        guard count >= 5, line.loadUnaligned(as: UInt32.self) == dataWord,
            line.load(fromByteOffset: 4, as: UInt8.self) == 0x3A
        else { return nil }
        return count > 5 && line.load(fromByteOffset: 5, as: UInt8.self) == 0x20 ? 6 : 5
    }

    let maxEventBytes: Int
    /// Data lines joined so far (when not still in the input).
    private var data: [UInt8] = []
    /// The block's only data line so far, still in the caller's input.
    private var dataInInput: UnsafeRawBufferPointer?
    /// Whether the block had a `data` field (its data may still be empty).
    private var hasData = false
    /// Bytes of data in the block, counting LFs between lines.
    private var dataCount = 0
    private var eventType: [UInt8] = []
    /// The block's `event` value, still in the caller's input (`eventType` is then empty).
    private var typeInInput: UnsafeRawBufferPointer?
    private var blockRetry: Int?
    /// Offset of the block's first field line; `nil` when no field line is pending.
    private(set) var blockStart: Int?
    /// Offset in the stream of the first data line's value.
    private var dataStart = 0
    private(set) var lastEventID: [UInt8] = []
    private(set) var reconnectionTime: Int?
    private var atStreamStart = true

    init(maxEventBytes: Int) {
        self.maxEventBytes = max(0, maxEventBytes)
    }

    var bufferedByteCount: Int { data.count + eventType.count + lastEventID.count }

    /// Interprets one line (without its ending).
    @inline(__always)
    mutating func interpret(
        _ line: UnsafeRawBufferPointer, at offset: Int, inInput: Bool,
        _ onEvent: (ServerSentEventView) throws -> Void,
        _ onComment: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var line = line
        var offset = offset
        if atStreamStart {
            atStreamStart = false
            if line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF {
                line = UnsafeRawBufferPointer(rebasing: line[3...])
                offset += 3
            }
        }
        let count = line.count
        guard count > 0, let base = line.baseAddress else {
            try dispatch(onEvent)
            return
        }
        if let valueStart = Self.dataValueStart(base, count: count) {
            // The common line, `data:`, without the general field parse below.
            if blockStart == nil { blockStart = offset }
            let value = UnsafeRawBufferPointer(start: base + valueStart, count: count - valueStart)
            try appendData(value, inInput: inInput, valueOffset: offset + valueStart)
            return
        }
        if base.load(as: UInt8.self) == 0x3A {  // ':' comment
            try onComment(UnsafeRawBufferPointer(rebasing: line[1...]))
            return
        }
        if blockStart == nil { blockStart = offset }
        var colon = 0
        while colon < count && base.load(fromByteOffset: colon, as: UInt8.self) != 0x3A { colon += 1 }
        var valueStart = colon + 1
        if valueStart < count && base.load(fromByteOffset: valueStart, as: UInt8.self) == 0x20 { valueStart += 1 }
        let value =
            valueStart < count
            ? UnsafeRawBufferPointer(rebasing: line[valueStart...]) : UnsafeRawBufferPointer(start: nil, count: 0)
        switch colon {
        case 4 where Self.matches(base, "data"):
            try appendData(value, inInput: inInput, valueOffset: offset + min(valueStart, count))
        case 5 where Self.matches(base, "event"):
            if !eventType.isEmpty { eventType.removeAll(keepingCapacity: true) }
            if inInput {
                typeInInput = value
            } else {
                typeInInput = nil
                eventType.append(contentsOf: value)
            }
        case 2 where Self.matches(base, "id"):
            if !value.contains(0) {
                lastEventID.removeAll(keepingCapacity: true)
                lastEventID.append(contentsOf: value)
            }
        case 5 where Self.matches(base, "retry"):
            if let milliseconds = Self.digits(value) {
                blockRetry = milliseconds
                reconnectionTime = milliseconds
            }
        default:
            break  // unknown field: ignored
        }
    }

    /// The common blocks in one step: when no block is pending and `input` holds, from `index`,
    /// a `data:` line ended by LF (after an `event:` line ended by LF, as in streams that name
    /// their events: Anthropic, OpenAI Responses; or none) and then an empty line ended by LF,
    /// dispatches it as the line rules would (the event's type, `message` when there is none or it
    /// is empty; no retry) and returns the index after the empty line. Returns nil, touching
    /// nothing the line path reads, for anything else (the general line path then takes it).
    @inline(__always)
    mutating func dispatchOneStepBlock(
        _ input: UnsafeRawBufferPointer, at index: Int, streamOffset: Int, maxLineBytes: Int,
        finder: inout LineEndFinder, _ onEvent: (ServerSentEventView) throws -> Void
    ) throws -> Int? {
        let count = input.count
        guard blockStart == nil, !atStreamStart, index &+ 6 < count, let base = input.baseAddress else { return nil }
        let word = base.loadUnaligned(fromByteOffset: index, as: UInt32.self)
        if word == Self.dataWord {
            return try dispatchDataLine(
                base, count: count, at: index, blockIndex: index, type: Self.messageType, streamOffset: streamOffset,
                maxLineBytes: maxLineBytes, finder: &finder, onEvent)
        }
        guard word == Self.eventWord, base.load(fromByteOffset: index &+ 4, as: UInt8.self) == 0x74,  // t
            base.load(fromByteOffset: index &+ 5, as: UInt8.self) == 0x3A  // :
        else { return nil }
        guard let typeEnd = finder.find(from: index, to: count, orCR: true), typeEnd &- index <= maxLineBytes,
            base.load(fromByteOffset: typeEnd, as: UInt8.self) == ByteScan.lf, typeEnd &+ 7 < count
        else { return nil }
        var typeStart = index &+ 6
        if typeStart < typeEnd && base.load(fromByteOffset: typeStart, as: UInt8.self) == 0x20 { typeStart &+= 1 }
        let type =
            typeStart < typeEnd
            ? UnsafeRawBufferPointer(start: base + typeStart, count: typeEnd &- typeStart) : Self.messageType
        guard base.loadUnaligned(fromByteOffset: typeEnd &+ 1, as: UInt32.self) == Self.dataWord,
            let next = try dispatchDataLine(
                base, count: count, at: typeEnd &+ 1, blockIndex: index, type: type, streamOffset: streamOffset,
                maxLineBytes: maxLineBytes, finder: &finder, onEvent)
        else {
            // The general path starts again at `index`, before the data line searched here.
            finder.rewind(toLF: typeEnd)
            return nil
        }
        return next
    }

    /// The rest of ``dispatchOneStepBlock(_:at:streamOffset:maxLineBytes:finder:_:)`` from the `data` line at
    /// `dataIndex` (its first four bytes already checked, and six bytes of the input's `count`
    /// after it) of the block of type `type` that starts at `blockIndex` (`streamOffset` there).
    @inline(__always)
    private func dispatchDataLine(
        _ base: UnsafeRawPointer, count: Int, at dataIndex: Int, blockIndex: Int, type: UnsafeRawBufferPointer,
        streamOffset: Int, maxLineBytes: Int, finder: inout LineEndFinder,
        _ onEvent: (ServerSentEventView) throws -> Void
    ) throws -> Int? {
        guard let end = finder.find(from: dataIndex, to: count, orCR: true), end &- dataIndex <= maxLineBytes,
            end &+ 1 < count, base.load(fromByteOffset: end, as: UInt8.self) == ByteScan.lf,
            base.load(fromByteOffset: end &+ 1, as: UInt8.self) == ByteScan.lf,
            let lineValueStart = Self.dataValueStart(base + dataIndex, count: end &- dataIndex)
        else { return nil }
        let valueStart = dataIndex &+ lineValueStart
        guard end &- valueStart <= maxEventBytes else { return nil }  // the line path reports it
        try withLastEventID { id in
            try onEvent(
                ServerSentEventView(
                    type: type,
                    data: UnsafeRawBufferPointer(start: base + valueStart, count: end &- valueStart),
                    lastEventID: id, retry: nil, byteOffset: streamOffset,
                    dataOffset: streamOffset &+ (valueStart &- blockIndex)))
        }
        return end &+ 2
    }

    /// Copies a data line and an event type still in the caller's input into the reused buffers.
    @inline(__always)
    mutating func detachFromInput() {
        if let pending = dataInInput {
            dataInInput = nil
            data.append(contentsOf: pending)
        }
        if let type = typeInInput {
            typeInInput = nil
            eventType.append(contentsOf: type)
        }
    }

    /// Forgets the pending block (end of stream); the last event ID and reconnection time stay.
    mutating func dropBlock() {
        resetBlock()
        atStreamStart = true
    }

    @inline(__always)
    private mutating func appendData(_ value: UnsafeRawBufferPointer, inInput: Bool, valueOffset: Int) throws {
        let newCount = hasData ? dataCount + 1 + value.count : value.count
        if newCount > maxEventBytes {
            throw FramingError.eventTooLarge(
                blockStart: blockStart ?? valueOffset, at: valueOffset + (maxEventBytes - (newCount - value.count)),
                limit: maxEventBytes)
        }
        if !hasData {
            hasData = true
            dataStart = valueOffset
            if inInput {
                dataInInput = value
            } else {
                data.append(contentsOf: value)
            }
        } else {
            detachFromInput()
            data.append(ByteScan.lf)
            data.append(contentsOf: value)
        }
        dataCount = newCount
    }

    @inline(__always)
    private mutating func dispatch(_ onEvent: (ServerSentEventView) throws -> Void) throws {
        guard hasData else {
            resetBlock()
            return
        }
        defer { resetBlock() }
        let start = blockStart ?? 0
        let retry = blockRetry
        try withType { type in
            try withLastEventID { id in
                if let pending = dataInInput {
                    try onEvent(
                        ServerSentEventView(
                            type: type, data: pending, lastEventID: id, retry: retry, byteOffset: start,
                            dataOffset: dataStart))
                } else {
                    try data.withUnsafeBytes { data in
                        try onEvent(
                            ServerSentEventView(
                                type: type, data: data, lastEventID: id, retry: retry, byteOffset: start,
                                dataOffset: dataStart))
                    }
                }
            }
        }
    }

    @inline(__always)
    private func withType<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let type = typeInInput, !type.isEmpty { return try body(type) }
        if eventType.isEmpty {
            return try body(Self.messageType)
        }
        return try eventType.withUnsafeBytes(body)
    }

    @inline(__always)
    private func withLastEventID<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if lastEventID.isEmpty { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try lastEventID.withUnsafeBytes(body)
    }

    @inline(__always)
    private mutating func resetBlock() {
        dataInInput = nil
        hasData = false
        dataCount = 0
        // Most blocks never touch these buffers (single data lines are passed from the input).
        if !data.isEmpty { data.removeAll(keepingCapacity: data.capacity <= LineSplitter.retainedCapacity) }
        if !eventType.isEmpty { eventType.removeAll(keepingCapacity: true) }
        typeInInput = nil
        blockRetry = nil
        blockStart = nil
    }

    @inline(__always)
    private static func matches(_ base: UnsafeRawPointer, _ name: StaticString) -> Bool {
        memcmpBytes(base, name.utf8Start, name.utf8CodeUnitCount)
    }

    /// The value as a base-ten integer when it is one or more ASCII digits and fits in `Int`.
    private static func digits(_ value: UnsafeRawBufferPointer) -> Int? {
        guard !value.isEmpty else { return nil }
        var result = 0
        var overflow = false
        for byte in value {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            if !overflow {
                let (times, o1) = result.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times.addingReportingOverflow(Int(byte - 0x30))
                overflow = o1 || o2
                result = sum
            }
        }
        return overflow ? nil : result
    }
}
