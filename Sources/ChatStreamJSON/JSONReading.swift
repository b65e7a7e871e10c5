/// How the JSON layer reads a unit that a reader has a shape for: the parser's mode.
///
/// A dialect never chooses: it asks for a ``JSONScan`` of a unit and falls back to the yajl tape
/// (``JSONParser``) when it gets none. The mode decides whether a scan is offered at all.
///
/// ```swift
/// var limits = JSONConfiguration()
/// limits.reading = .tapeOnly  // every unit through yajl: what the scan is compared with
/// ```
@usableFromInline package enum JSONReading: Sendable, Hashable {
    /// The validating scan (``JSONScan``) when a unit's bytes are plain, the yajl tape otherwise.
    case scanWhenPlain
    /// The yajl tape for every unit: the reference the differential tests and the fuzzers hold
    /// the scan to (they must give the same values and errors).
    case tapeOnly
}
