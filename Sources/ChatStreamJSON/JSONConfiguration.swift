/// Limits the JSON layer enforces before a value can use more memory than intended.
///
/// yajl itself has no depth limit, and Debian's build keeps `assert()` on, so every limit is
/// enforced in Swift: a payload over ``maxValueBytes`` is refused before yajl sees it, and depth
/// and string length are checked as yajl reports each token. Exceeding a limit throws a
/// ``JSONError`` with the matching ``JSONError/Kind`` and the byte offset where it happened.
///
/// ```swift
/// var limits = JSONConfiguration()
/// limits.maxDepth = 64
/// let parser = JSONParser(configuration: limits)
/// ```
public struct JSONConfiguration: Sendable, Hashable {
    /// The deepest nesting of arrays and objects allowed. Default 512.
    public var maxDepth: Int
    /// The largest JSON value, in bytes of its text. Default 16 MiB.
    public var maxValueBytes: Int
    /// The longest string or key, in bytes of UTF-8 after unescaping. Default 8 MiB.
    public var maxStringBytes: Int
    /// Whether units a reader has a shape for are scanned first (``JSONScan``) or always parsed
    /// with yajl. Default ``JSONReading/scanWhenPlain``.
    @usableFromInline package var reading = JSONReading.scanWhenPlain

    /// The defaults: depth 512, values up to 16 MiB, strings up to 8 MiB.
    public init(maxDepth: Int = 512, maxValueBytes: Int = 16 << 20, maxStringBytes: Int = 8 << 20) {
        self.maxDepth = maxDepth
        self.maxValueBytes = min(maxValueBytes, Int(UInt32.max >> 1))
        self.maxStringBytes = maxStringBytes
    }
}
