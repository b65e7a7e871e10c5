// JSONParser+Callbacks: yajl's callbacks, writing each token onto the tape.
//
// What: one static `yajl_callbacks` struct at a fixed address for the process's life; each
// callback recovers the parser from yajl's opaque context (passed unretained; the callbacks
// capture nothing) and appends a token. Numbers arrive through `yajl_number` as text and are
// parsed in Swift later (yajl's own integer path rejects -2^63 and its double path follows the C
// locale). A callback that fails stores the Swift error and returns 0; after `yajl_parse`
// returns, +Driving throws the stored error.
// Why: the hot callbacks (strings, keys, containers) do their usual case without a call, so that
// they keep to scratch registers and save none; everything else leaves through a call in tail
// position to a static function of its own, which takes the parser as an ordinary argument (a
// method would take it in the callee-saved self register, to be saved first).
//
// For example, `[1,{"a":null}]` calls open array, number `1`, open object, key `a`, null, close,
// close: five tokens (array, number, object, key, null); each close writes into its container's
// token where the container ends, and the last close, at depth 0, counts one top-level value.
// With `maxDepth` 1, `[[1]]` fails in the second open with `.depthLimitExceeded` at byte 1.

internal import CYajl

extension JSONParser {
    /// The offset in the stream just past the token yajl has reported.
    var tokenEnd: Int { streamOffset + Int(yajl_get_bytes_consumed(handle)) }

    // The hot callbacks (strings, keys, containers) do their usual case without a call, so that
    // they keep to scratch registers and save none; everything else leaves through a call in
    // tail position to a static function of its own, which takes the parser as an ordinary
    // argument (a method would take it in the callee-saved self register, to be saved first).

    /// Ends a value: at the top level, counts it (the caller returns what this returns).
    @inline(__always)
    func valueDone() -> Int32 {
        depth == 0 ? JSONParser.topLevelValueDone(self) : 1
    }

    @inline(never)
    static func topLevelValueDone(_ parser: JSONParser) -> Int32 {
        parser.countTopLevelValue()
        return 1
    }

    /// Counts a completed top-level value and remembers where the first one ended.
    @inline(__always)
    func countTopLevelValue() {
        completedValues &+= 1
        if completedValues == 1, input.baseAddress != nil {
            firstValueEnd = Int(yajl_get_bytes_consumed(handle))
        }
    }

    @inline(__always)
    func onScalar(_ kind: JSONTapeToken.Kind) -> Int32 {
        tape.appendScalar(kind)
        return valueDone()
    }

    @inline(__always)
    func onNumber(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        tape.appendBytes(.number, UnsafeRawBufferPointer(start: pointer, count: length))
        return valueDone()
    }

    @inline(__always)
    func onOpen(_ kind: JSONTapeToken.Kind) -> Int32 {
        let deeper = depth &+ 1
        if deeper <= configuration.maxDepth, tape.openContainerIfRoom(kind) {
            depth = deeper
            return 1
        }
        return JSONParser.onOpenOther(self, kind)
    }

    /// An open past the depth limit, or one for which the tape must grow.
    @inline(never)
    static func onOpenOther(_ parser: JSONParser, _ kind: JSONTapeToken.Kind) -> Int32 {
        parser.openOther(kind)
    }

    @inline(__always)
    func openOther(_ kind: JSONTapeToken.Kind) -> Int32 {
        depth &+= 1
        guard depth <= configuration.maxDepth else {
            return fail(
                JSONError(
                    .depthLimitExceeded, byteOffset: tokenEnd - 1,
                    message: "nesting deeper than \(configuration.maxDepth)"))
        }
        tape.openContainer(kind)
        return 1
    }

    @inline(__always)
    func onClose() -> Int32 {
        tape.closeContainer()
        depth &-= 1
        return valueDone()
    }

    func fail(_ error: JSONError) -> Int32 {
        failure = error
        return 0
    }

    // MARK: - The callbacks struct

    /// One callbacks struct for every handle, at a fixed address for the life of the process.
    nonisolated(unsafe) static let callbacks: UnsafeMutablePointer<yajl_callbacks> = {
        let pointer = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
        pointer.initialize(
            to: yajl_callbacks(
                yajl_null: { context in withParser(context) { $0.onScalar(.null) } },
                yajl_boolean: { context, value in
                    withParser(context) { $0.onScalar(value != 0 ? .trueValue : .falseValue) }
                },
                yajl_integer: nil,
                yajl_double: nil,
                yajl_number: { context, text, length in withParser(context) { $0.onNumber(text, Int(length)) } },
                yajl_string: { context, text, length in withParser(context) { $0.onString(.string, text, Int(length)) }
                },
                yajl_start_map: { context in withParser(context) { $0.onOpen(.object) } },
                yajl_map_key: { context, text, length in withParser(context) { $0.onString(.key, text, Int(length)) } },
                yajl_end_map: { context in withParser(context) { $0.onClose() } },
                yajl_start_array: { context in withParser(context) { $0.onOpen(.array) } },
                yajl_end_array: { context in withParser(context) { $0.onClose() } }
            ))
        return pointer
    }()
}

/// Calls `body` with the parser behind yajl's context pointer, without retaining it: the
/// parser is alive for the whole `yajl_parse` call that runs the callback. The context is never
/// nil (every handle is made with its parser), so it is unwrapped without a check.
@inline(__always)
private func withParser(_ context: UnsafeMutableRawPointer?, _ body: (JSONParser) -> Int32) -> Int32 {
    Unmanaged<JSONParser>.fromOpaque(context.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
}
