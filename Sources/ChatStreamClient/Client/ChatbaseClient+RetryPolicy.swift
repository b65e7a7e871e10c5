// RetryPolicy: when and how long the client waits before sending an idempotent request again.
//
// Backoff is exponential with full jitter: the n-th wait (n from 0) is a uniform draw from
// [0, min(cap, base * 2^n)], so many clients failing together spread out instead of returning in
// step. A `Retry-After` from the server is a floor on the wait. Waits are summed against a total
// budget; a wait that would overrun it is not made, and the last error is thrown instead. The
// jitter source and the sleep are replaceable so tests see exact delays.

import Foundation

extension ChatbaseClient {
    /// How the client retries idempotent requests that failed for a passing reason.
    ///
    /// A request is retried only when sending it twice cannot do anything twice: `GET`s, `PUT`s,
    /// chats that carry a `clientMessageId` (the client sends one with every message), tool-result
    /// posts, and the other posts the API defines as idempotent. It is retried when the server
    /// could not be reached (no connection, connect or head timeout) or answered 429, 502, 503 or
    /// 504; any other answer, a reply that broke off mid-stream, and cancellation end it at once.
    ///
    /// Waits grow exponentially with full jitter (the n-th wait is drawn from
    /// `0...min(maxDelay, baseDelay * 2^n)`); a `Retry-After` (seconds or an HTTP date) is the
    /// least wait. All waits together stay within ``totalBudget``: a wait that would pass it is
    /// not made and the error is thrown.
    ///
    /// ```swift
    /// let client = ChatbaseClient(
    ///     agentId: "my-agent", baseURL: url,
    ///     retryPolicy: .init(maxAttempts: 5, baseDelay: .milliseconds(250), maxDelay: .seconds(4),
    ///                        totalBudget: .seconds(15)))
    /// let quiet = ChatbaseClient(agentId: "my-agent", baseURL: url, retryPolicy: .none)  // never retries
    /// ```
    public struct RetryPolicy: Sendable {
        /// Attempts in all, the first included (1: never retry).
        public var maxAttempts: Int
        /// The backoff's first bound; it doubles after every attempt.
        public var baseDelay: Duration
        /// The cap: no backoff bound exceeds it (a longer `Retry-After` is still waited, within
        /// ``totalBudget``).
        public var maxDelay: Duration
        /// The most time all waits of one request may add up to.
        public var totalBudget: Duration
        /// Where the jitter comes from: a value in `0...1` scaling each backoff bound.
        public var jitter: Jitter

        /// The random numbers that spread the waits.
        public struct Jitter: Sendable {
            let draw: @Sendable () -> Double

            /// A uniform draw from `0...1` per wait (full jitter; the default).
            public static let random = Jitter { Double.random(in: 0...1) }
            /// No jitter: every wait is its full backoff bound.
            public static let none = Jitter { 1 }

            /// Jitter from `source`, whose values are clamped to `0...1` (for tests: a fixed sequence).
            public init(_ source: @escaping @Sendable () -> Double) { self.draw = source }
        }

        /// How the waits are slept (tests record them instead).
        var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

        /// A policy (defaults: 4 attempts, 200 ms doubling, capped at 5 s, 30 s of waiting in all,
        /// random jitter).
        public init(
            maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(5),
            totalBudget: Duration = .seconds(30), jitter: Jitter = .random
        ) {
            self.maxAttempts = max(1, maxAttempts)
            self.baseDelay = max(.zero, baseDelay)
            self.maxDelay = max(.zero, maxDelay)
            self.totalBudget = max(.zero, totalBudget)
            self.jitter = jitter
        }

        /// Never retries: every failure is thrown at once.
        public static let none = RetryPolicy(maxAttempts: 1)

        /// The backoff bound before retry `retry` (0 for the first retry): `baseDelay * 2^retry`,
        /// at most ``maxDelay``.
        public func backoffBound(retry: Int) -> Duration {
            var bound = baseDelay
            for _ in 0..<min(max(0, retry), 62) {
                bound = bound * 2
                if bound >= maxDelay { break }
            }
            return min(bound, maxDelay)
        }

        /// The wait before retry `retry`: a jittered draw under ``backoffBound(retry:)``, and at
        /// least `retryAfter` when the server sent one.
        public func delay(retry: Int, retryAfter: Duration? = nil) -> Duration {
            let fraction = min(1, max(0, jitter.draw()))
            let drawn = backoffBound(retry: retry) * fraction
            guard let retryAfter else { return drawn }
            return max(drawn, retryAfter)
        }
    }
}
