// Ceilings: the least work any decoder of these streams can do, measured on the same bytes.
//
// - yajl lexing only: one reused handle with NULL callbacks, fed each event's JSON payload.
// - the copy ceiling: the same handle with callbacks that copy every string, key and number into
//   a per-event arena (reset per event): the least a decoder that reads its strings can do.
// - a newline scan (memchr) over the whole stream.
// The payload boundaries are found before timing (a ceiling need not frame).

internal import CYajl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A yajl handle reused for every event of a stream, with or without copying callbacks.
final class YajlCeiling {
    private var handle: yajl_handle
    private let arena: UnsafeMutableRawPointer
    private let arenaCapacity = 1 << 20
    @exclusivity(unchecked) private var arenaCount = 0
    /// Tokens seen (copy mode), so the work cannot be optimised away.
    @exclusivity(unchecked) private(set) var tokens = 0

    init(copying: Bool) {
        arena = UnsafeMutableRawPointer.allocate(byteCount: arenaCapacity, alignment: 16)
        handle = yajl_alloc(nil, nil, nil)  // replaced below once `self` is ready
        yajl_free(handle)
        let context = Unmanaged.passUnretained(self).toOpaque()
        handle = yajl_alloc(copying ? YajlCeiling.copyingCallbacks : nil, nil, context)
        _ = chatstream_yajl_allow_multiple_values(handle)
    }

    deinit {
        yajl_free(handle)
        arena.deallocate()
    }

    /// Parses each payload of `bytes` named by `ranges`; returns the tokens copied (0 without callbacks).
    func run(_ bytes: UnsafeRawBufferPointer, _ ranges: [(Int, Int)]) -> Int {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for (offset, length) in ranges {
            arenaCount = 0
            let status = yajl_parse(handle, base + offset, length)
            if status != yajl_status_ok { fatalError("yajl ceiling: parse failed at \(offset)") }
        }
        return tokens
    }

    @inline(__always)
    fileprivate func copy(_ pointer: UnsafeRawPointer?, _ length: Int) -> Int32 {
        tokens &+= 1
        guard length > 0, let pointer, arenaCount + length <= arenaCapacity else { return 1 }
        memcpy(arena + arenaCount, pointer, length)
        arenaCount += length
        return 1
    }

    fileprivate func token() -> Int32 {
        tokens &+= 1
        return 1
    }

    private nonisolated(unsafe) static let copyingCallbacks: UnsafeMutablePointer<yajl_callbacks> = {
        let pointer = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
        pointer.initialize(
            to: yajl_callbacks(
                yajl_null: { context in withCeiling(context) { $0.token() } },
                yajl_boolean: { context, _ in withCeiling(context) { $0.token() } },
                yajl_integer: nil,
                yajl_double: nil,
                yajl_number: { context, text, length in withCeiling(context) { $0.copy(text, Int(length)) } },
                yajl_string: { context, text, length in withCeiling(context) { $0.copy(text, Int(length)) } },
                yajl_start_map: { context in withCeiling(context) { $0.token() } },
                yajl_map_key: { context, text, length in withCeiling(context) { $0.copy(text, Int(length)) } },
                yajl_end_map: { context in withCeiling(context) { $0.token() } },
                yajl_start_array: { context in withCeiling(context) { $0.token() } },
                yajl_end_array: { context in withCeiling(context) { $0.token() } }
            ))
        return pointer
    }()
}

/// The ceiling behind yajl's context pointer, borrowed without a retain (as the parser does), so
/// the ceiling carries no reference counting that a decoder need not do.
@inline(__always)
private func withCeiling(_ context: UnsafeMutableRawPointer?, _ body: (YajlCeiling) -> Int32) -> Int32 {
    Unmanaged<YajlCeiling>.fromOpaque(context!)._withUnsafeGuaranteedRef(body)
}

enum Ceilings {
    /// yajl with NULL callbacks over each payload; returns the payload count.
    static func yajlLexOnly(_ payload: StreamPayload) -> Int {
        let ceiling = YajlCeiling(copying: false)
        return payload.bytes.withUnsafeBytes { ceiling.run($0, payload.jsonRanges) } + payload.jsonRanges.count
    }

    /// yajl copying every string, key and number into a per-event arena; returns the tokens seen.
    static func yajlCopy(_ payload: StreamPayload) -> Int {
        let ceiling = YajlCeiling(copying: true)
        return payload.bytes.withUnsafeBytes { ceiling.run($0, payload.jsonRanges) }
    }

    /// Lines in the stream, counted with memchr.
    static func newlineScan(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { raw in
            guard var cursor = raw.baseAddress else { return 0 }
            let end = cursor + raw.count
            var lines = 0
            while cursor < end, let hit = memchr(cursor, 0x0A, end - cursor) {
                lines += 1
                cursor = UnsafeRawPointer(hit) + 1
            }
            return lines
        }
    }
}
