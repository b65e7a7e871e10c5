// NetworkDurations: every wait a server names (`Retry-After`, SSE `retry:`) becomes a Duration
// here, clamped first. A server is not trusted with the client's clock: `Retry-After: inf`,
// `1e300` or twenty digits once trapped converting a Double to Int64 (issue 31).

import Foundation

enum NetworkDurations {
    /// The longest wait a server can ask for: one day. Longer values are read as one day (no
    /// retry budget waits that long, so the request fails at once with the server's answer).
    static let maxServerWait: TimeInterval = 86_400

    /// `seconds` as a Duration: not a number or negative is zero, above ``maxServerWait`` is
    /// ``maxServerWait``; rounded up to the millisecond.
    static func duration(seconds: TimeInterval) -> Duration {
        guard !seconds.isNaN, seconds > 0 else { return .zero }
        let milliseconds = (min(seconds, maxServerWait) * 1000).rounded(.up)
        return .milliseconds(Int64(milliseconds))
    }

    /// An SSE `retry:` value in milliseconds as a Duration, at most ``maxServerWait``.
    static func duration(milliseconds: Int) -> Duration {
        .milliseconds(min(max(0, milliseconds), Int(maxServerWait) * 1000))
    }

    /// Reads `Retry-After` (RFC 9110 section 10.2.3): delay seconds (ASCII digits; a fraction is
    /// accepted) or an HTTP date. Anything else (`inf`, `1e300`, `-1`, `NaN`) is ignored; a
    /// value above ``maxServerWait`` reads as ``maxServerWait``.
    static func retryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if isDelaySeconds(value) {
            // Twenty digits parse as a large (finite) Double; the clamp bounds them.
            guard let seconds = Double(value), seconds.isFinite else { return maxServerWait }
            return min(max(0, seconds), maxServerWait)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), maxServerWait)
    }

    /// Digits, optionally one `.` followed by digits.
    private static func isDelaySeconds(_ value: String) -> Bool {
        let parts = value.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty else { return false }
        return parts.allSatisfy { part in part.allSatisfy { (0x30...0x39).contains($0) } }
            && (parts.count == 1 || !parts[1].isEmpty)
    }
}
