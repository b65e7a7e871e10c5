// Durations a server names are clamped before conversion (issue 31, deliverable 5): absurd
// `Retry-After` values parse to nil or one day, never trap; over loopback a 429 with each of them
// ends with a clear APIError (at once when the clamped wait passes the retry budget).

import ChatStream
import Foundation
import HTTPTestSupport
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient
@testable import ChatStreamServer

@Suite("Durations from the network are clamped", .blockingAllowed)
struct NetworkDurationsTests {
    @Test func retryAfterValuesAreReadOrIgnoredAndClamped() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let cases: [(String, TimeInterval?)] = [
            ("3", 3), ("0", 0), ("0.5", 0.5), (" 7 ", 7), ("inf", nil), ("Infinity", nil), ("1e300", nil),
            ("NaN", nil), ("-1", nil), ("", nil), ("1.", nil), (".5", nil), ("0x10", nil), ("soon", nil),
            ("10000000000000000", 86_400), ("86401", 86_400),
            (String(repeating: "9", count: 400), 86_400),
        ]
        for (value, expected) in cases {
            #expect(NetworkDurations.retryAfter(value, now: now) == expected, "\(value)")
        }
        // A date a century ahead is clamped too.
        #expect(NetworkDurations.retryAfter("Fri, 01 Jan 2123 00:00:00 GMT", now: now) == 86_400)
    }

    @Test func durationsAreClampedBeforeConversion() {
        #expect(NetworkDurations.duration(seconds: .infinity) == .seconds(86_400))
        #expect(NetworkDurations.duration(seconds: 1e300) == .seconds(86_400))
        #expect(NetworkDurations.duration(seconds: .nan) == .zero)
        #expect(NetworkDurations.duration(seconds: -5) == .zero)
        #expect(NetworkDurations.duration(seconds: 0.0004) == .milliseconds(1))
        #expect(NetworkDurations.duration(milliseconds: .max) == .seconds(86_400))
        #expect(NetworkDurations.duration(milliseconds: -1) == .zero)
        #expect(NetworkDurations.duration(milliseconds: 1500) == .milliseconds(1500))
    }

    @Test(arguments: ["inf", "1e300", "10000000000000000", "-1", "NaN", "99999999999999999999999999"])
    func a429WithAnAbsurdRetryAfterEndsWithAClearError(_ value: String) async throws {
        let requests = Atomic<Int>(0)
        try await HTTPTestServer.with(handler: { _, response in
            requests.add(1, ordering: .relaxed)
            try response.respond(
                status: 429, headers: [("Retry-After", value), ("Content-Type", "application/json")],
                body: Array(#"{"error":{"code":"RATE_LIMIT_TOO_MANY_REQUESTS","message":"slow down"}}"#.utf8))
        }) { server in
            let client = ChatbaseClient(
                agentId: "agent-limits", baseURL: HTTPTestServer.url(server, ""),
                identityStore: InMemoryIdentityStore(deviceId: "device-limits"),
                retryPolicy: .init(maxAttempts: 3, baseDelay: .milliseconds(5), totalBudget: .seconds(2)), store: nil)
            let started = ContinuousClock.now
            let error = await #expect(throws: ChatStreamClient.APIError.self) { try await client.listConversations() }
            #expect(error?.isRateLimited == true, "\(value)")
            // Far under a day (what a client that honoured the absurd value would wait); 20 s, not 5:
            // in full parallel runs every case here once took 5.3-5.7 s together (the machine
            // stalled), where alone they take milliseconds.
            #expect(ContinuousClock.now - started < .seconds(20), "\(value)")
            let expected = NetworkDurations.retryAfter(value)
            #expect(error?.retryAfter == expected, "\(value)")
            // A day-long wait passes the 2 s budget: no retry. An ignored value retries under the policy.
            #expect(requests.load(ordering: .relaxed) == (expected == nil ? 3 : 1), "\(value)")
        }
    }
}
