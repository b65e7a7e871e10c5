// The two ways out of a dialect: a text delta with its text lent, or any other event owned.
//
// A dialect is compiled once, in this module, for every reader, so it writes to plain
// non-escaping closures rather than to a sink generic over the reader: a dialect generic over
// its sink would run unspecialised from a client module (a dialect's code is not inlinable),
// paying for generic metadata on every unit (measured at 6% of the home stream's lent path and
// 16% of AI SDK v4's owned path). A struct holding the reader's closures would have to make them
// escaping, which cost a heap allocation per `decode` call (`withoutActuallyEscaping` boxes the
// closure once its storage is passed on); one closure taking an enum of the two cost 2-5% on the
// owned paths (copying and destroying the enum). Closure parameters stay on the stack, and
// `StreamDecoder` makes them where it is specialised for the reader, so the reader's code is
// inlined into them.

/// Where a ``StreamDialect`` hands a text delta of part `id`, the text valid only during the
/// call. Every text delta a dialect decodes comes this way, never as
/// ``StreamEvent/textDelta(id:delta:)`` through its ``EventSink``. (The ID is a `String`:
/// dialects hold it as one, or make it once while it repeats, so a reader of owned events takes
/// it as it is.)
public typealias TextDeltaSink = (_ id: consuming String, _ delta: CheckedUTF8) throws -> Void

/// Where a ``StreamDialect`` hands every event but a text delta.
public typealias EventSink = (StreamEvent) throws -> Void
