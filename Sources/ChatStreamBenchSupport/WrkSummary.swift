// WrkSummary: what the report reads from `wrk --latency`'s output (requests per second, the 50th
// and 99th percentile latencies, and the error lines), for the server's figures.
//
// wrk prints latencies with a unit (`812.00us`, `27.41ms`, `1.44s`, `2.00m`) in its "Latency
// Distribution" block, one `  50%   27.41ms` line per percentile, and `Requests/sec:   2255.12`;
// errors come as `Non-2xx or 3xx responses: N` and `Socket errors: connect N, read N, write N,
// timeout N`.

/// One wrk run's figures.
package struct WrkSummary: Sendable, Equatable {
    package var requestsPerSecond: Double
    /// Seconds.
    package var p50: Double
    package var p99: Double
    /// Non-2xx responses plus socket errors of any kind.
    package var errors: Int

    package init(requestsPerSecond: Double, p50: Double, p99: Double, errors: Int) {
        self.requestsPerSecond = requestsPerSecond
        self.p50 = p50
        self.p99 = p99
        self.errors = errors
    }

    /// Reads `wrk --latency`'s output; nil when it lacks the rate or either percentile.
    package init?(wrkOutput text: String) {
        var rate: Double? = nil
        var p50: Double? = nil
        var p99: Double? = nil
        var errors = 0
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first == "Requests/sec:", fields.count == 2 {
                rate = Double(fields[1])
            } else if first == "50%", fields.count == 2 {
                p50 = Self.seconds(fields[1])
            } else if first == "99%", fields.count == 2 {
                p99 = Self.seconds(fields[1])
            } else if line.contains("Non-2xx or 3xx responses:"), let count = fields.last.flatMap({ Int($0) }) {
                errors += count
            } else if first == "Socket", fields.count > 2, fields[1] == "errors:" {
                // "Socket errors: connect 0, read 1, write 0, timeout 3"
                for field in fields.dropFirst(2) {
                    if let count = Int(field.filter { $0 != "," }) { errors += count }
                }
            }
        }
        guard let rate, let p50, let p99 else { return nil }
        self.init(requestsPerSecond: rate, p50: p50, p99: p99, errors: errors)
    }

    /// `812.00us`, `27.41ms`, `1.44s` or `2.00m` in seconds; nil for anything else.
    package static func seconds(_ text: Substring) -> Double? {
        for (suffix, scale) in [("us", 1e-6), ("ms", 1e-3), ("m", 60.0), ("s", 1.0)] where text.hasSuffix(suffix) {
            // "ms" and "us" are tried before "m" and "s".
            return Double(text.dropLast(suffix.count)).map { $0 * scale }
        }
        return nil
    }
}

/// A figure's target (a goal: the suite's `Target` is another type): at most or at least `limit`.
package struct Goal: Sendable, Equatable {
    package var limit: Double
    /// Whether `limit` is a most (else a least).
    package var isUpperBound: Bool

    package static func atMost(_ limit: Double) -> Goal { Goal(limit: limit, isUpperBound: true) }
    package static func atLeast(_ limit: Double) -> Goal { Goal(limit: limit, isUpperBound: false) }

    /// Whether `value` meets the target; nil when there is no value.
    package func holds(_ value: Double?) -> Bool? {
        guard let value else { return nil }
        return isUpperBound ? value <= limit : value >= limit
    }

    /// `<= 1.3` or `>= 0.6`.
    package var text: String {
        var number = String(limit)
        if number.hasSuffix(".0") { number.removeLast(2) }
        return (isUpperBound ? "<= " : ">= ") + number
    }
}
