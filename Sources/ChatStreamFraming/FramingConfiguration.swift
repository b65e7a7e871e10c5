/// The limits that bound every framer's memory, in one struct shared by all of them: each framer
/// reads the fields that apply to it (SSE: lines and events; NDJSON and v4: lines; JSON arrays
/// and sequences: values and depth) and ignores the others, so one configuration can be handed to
/// whichever framer a dialect names.
///
/// ```swift
/// var decoder = ServerSentEventDecoder(configuration: .init(maxLineBytes: 1 << 20, maxEventBytes: 1 << 20))
/// var framer = JSONArrayElementFramer(configuration: .init(maxValueBytes: 1 << 20, maxDepth: 64))
/// ```
public struct FramingConfiguration: Sendable, Hashable {
    /// Longest line accepted, in bytes, not counting its LF (SSE, NDJSON, v4). Default 16 MiB.
    ///
    /// A `data:` line usually carries a whole JSON payload, and some carry large ones (a 5 MiB
    /// image is ~7 MiB of base64), so the default equals the event limit. A framer never
    /// buffers more than this for one line: an endless line fails as soon as it passes it.
    public var maxLineBytes: Int
    /// Most data one server-sent event may carry (its data lines joined with LF), in bytes.
    /// Default 16 MiB.
    public var maxEventBytes: Int
    /// Most bytes one JSON value (an array element, a value of a sequence) may have; it also
    /// bounds the carry buffer. Default 16 MiB.
    public var maxValueBytes: Int
    /// The deepest nesting allowed inside one JSON value (an enclosing array does not count).
    /// Default 512.
    public var maxDepth: Int

    /// The default limits: 16 MiB per line, event and value; depth 512.
    public static let `default` = FramingConfiguration()

    /// Makes a configuration.
    public init(
        maxLineBytes: Int = 16 << 20, maxEventBytes: Int = 16 << 20, maxValueBytes: Int = 16 << 20,
        maxDepth: Int = 512
    ) {
        self.maxLineBytes = maxLineBytes
        self.maxEventBytes = maxEventBytes
        self.maxValueBytes = maxValueBytes
        self.maxDepth = maxDepth
    }

    /// One size limit for every kind of unit (line, event, value), as `StreamDecoder` sets it.
    public init(maxUnitBytes: Int, maxDepth: Int = 512) {
        self.init(
            maxLineBytes: maxUnitBytes, maxEventBytes: maxUnitBytes, maxValueBytes: maxUnitBytes, maxDepth: maxDepth)
    }
}
