// The two ways out of a dialect: a text delta with its text lent, or any other event owned.
//
// A dialect is compiled once, in this module, for every reader (owned events, lent views,
// MessageDecoder, a caller's StreamEventSink), so it writes to two plain non-escaping closures
// rather than to a sink generic over the reader. A dialect generic over its sink would run
// unspecialised from a client module (a dialect's code is not inlinable) and look up generic
// metadata on every unit; a struct holding the reader's closures would have to make them
// escaping, a heap allocation per `decode` call; one closure taking an enum of the two would copy
// and destroy the enum per event. Closure parameters stay on the stack, and `StreamDecoder` makes
// them where it is specialised for the reader, so the reader's code is inlined into them. (What
// each alternative cost is in BENCHMARKS.md's history in git: "Issue 17: one dialect entry point".)
//
// For example, the owned-events reader gives a dialect these two, making the one `String` a text
// delta needs and passing every other event on as it is:
//
//     try dialect.decode(
//         unit, textDelta: { id, delta in try emit(.textDelta(id: id, delta: delta.string)) }, emit: emit)

/// Where a ``StreamDialect`` hands a text delta of part `id`, the text valid only during the
/// call. Every text delta a dialect decodes comes this way, never as
/// ``StreamEvent/textDelta(id:delta:)`` through its ``EventSink``. (The ID is a `String`:
/// dialects hold it as one, or make it once while it repeats, so a reader of owned events takes
/// it as it is.)
public typealias TextDeltaSink = (_ id: consuming String, _ delta: CheckedUTF8) throws -> Void

/// Where a ``StreamDialect`` hands every event but a text delta.
public typealias EventSink = (StreamEvent) throws -> Void
