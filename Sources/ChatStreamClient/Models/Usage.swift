import ChatStream

/// What a reply cost.
///
/// ```swift
/// print(response.usage.credits)
/// ```
public struct Usage: Sendable, Hashable {
    /// Credits used.
    public let credits: Double

    /// A usage of `credits`.
    public init(credits: Double) { self.credits = credits }

    /// The usage the server reported (`{"credits": n}`); 0 credits when it reported none.
    /// Everything else in the report is in ``ChatResponse/rawUsage``.
    public init(json: JSONTree?) {
        self.init(credits: json?["credits"]?.doubleValue ?? 0)
    }
}
