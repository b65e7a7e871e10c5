// RequestPerformer on its own (issue 28, deliverable 6): which failures are retried, how often,
// and how an answer becomes the client's error, through a scripted transport.

import ChatStream
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("RequestPerformer", .blockingAllowed)
struct RequestPerformerTests {
    static let policy = ChatbaseClient.RetryPolicy(
        maxAttempts: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5), totalBudget: .seconds(1))
    static let request = HTTPRequest(url: URL(string: "http://fake.test/api/agents/a/conversations")!)

    /// A performer whose transport answers the scripted responses in turn (the last one again).
    static func performer(_ answers: [@Sendable () throws -> HTTPResponse]) -> (RequestPerformer, FakeTransport) {
        let index = Atomic<Int>(0)
        let transport = FakeTransport { _ in
            let turn = index.add(1, ordering: .relaxed).oldValue
            return try answers[min(turn, answers.count - 1)]()
        }
        return (RequestPerformer(transport: transport, retryPolicy: policy), transport)
    }

    @Test func anIdempotentRequestIsRetriedAfterAPassingAnswer() async throws {
        let (performer, transport) = Self.performer([
            { Wire.error(503, "SERVER_BUSY") }, { Wire.error(502, "BAD_GATEWAY") }, { Wire.json(["data": []]) },
        ])
        let response = try await performer.perform(Self.request, extensionRoute: false, idempotent: true)
        #expect(response.status == 200)
        #expect(transport.requests.count == 3)
    }

    @Test func aNonIdempotentRequestIsSentOnce() async throws {
        let (performer, transport) = Self.performer([{ Wire.error(503, "SERVER_BUSY") }, { Wire.json([:]) }])
        let error = await #expect(throws: APIError.self) {
            try await performer.perform(Self.request, extensionRoute: false, idempotent: false)
        }
        #expect(error?.statusCode == 503)
        #expect(error?.detail?.code == "SERVER_BUSY")
        #expect(transport.requests.count == 1)
    }

    @Test func aClientErrorIsNeverRetried() async throws {
        let (performer, transport) = Self.performer([{ Wire.error(400, "VALIDATION_INVALID_BODY", "bad limit") }])
        let error = await #expect(throws: APIError.self) {
            try await performer.perform(Self.request, extensionRoute: false, idempotent: true)
        }
        #expect(error?.detail?.message == "bad limit")
        #expect(transport.requests.count == 1)
    }

    @Test func anUnreachableServerIsRetriedUpToTheAttemptLimit() async throws {
        let (performer, transport) = Self.performer([
            { throw TransportError(.connectionFailed, "connection refused") }
        ])
        await #expect(throws: (any Error).self) {
            try await performer.perform(Self.request, extensionRoute: false, idempotent: true)
        }
        #expect(transport.requests.count == Self.policy.maxAttempts)
    }

    @Test func aRetryAfterPastTheBudgetEndsAtOnce() async throws {
        let (performer, transport) = Self.performer([
            { Wire.error(429, "RATE_LIMITED", headers: ["Retry-After": "3600"]) }, { Wire.json([:]) },
        ])
        let started = ContinuousClock.now
        let error = await #expect(throws: APIError.self) {
            try await performer.perform(Self.request, extensionRoute: false, idempotent: true)
        }
        #expect(error?.statusCode == 429)
        #expect(error?.detail?.retryAfter == 3600)
        #expect(transport.requests.count == 1)
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test func aMissingExtensionRouteIsNotSupported() async throws {
        let (performer, _) = Self.performer([{ Wire.error(404, "NOT_FOUND", "no route") }])
        let missing = await #expect(throws: APIError.self) {
            try await performer.perform(Self.request, extensionRoute: true, idempotent: true)
        }
        #expect(missing?.isNotSupportedByServer == true)
        // The same answer on a core route, and an unknown resource on an extension route, stay 404s.
        let (core, _) = Self.performer([{ Wire.error(404, "NOT_FOUND", "no route") }])
        let notFound = await #expect(throws: APIError.self) {
            try await core.perform(Self.request, extensionRoute: false, idempotent: true)
        }
        #expect(notFound?.isNotSupportedByServer == false)
        #expect(notFound?.statusCode == 404)
        let (resource, _) = Self.performer([{ Wire.error(404, "RESOURCE_CONVERSATION_NOT_FOUND") }])
        let unknown = await #expect(throws: APIError.self) {
            try await resource.perform(Self.request, extensionRoute: true, idempotent: true)
        }
        #expect(unknown?.isNotSupportedByServer == false)
    }

    @Test func passingFailuresAreTheOnesAMessageMayWaitFor() {
        #expect(
            RequestPerformer.isPassingFailure(
                APIError.httpError(statusCode: 503, detail: APIErrorDetail(code: "X", message: ""))))
        #expect(
            !RequestPerformer.isPassingFailure(
                APIError.httpError(statusCode: 403, detail: APIErrorDetail(code: "X", message: ""))))
        #expect(RequestPerformer.isPassingFailure(TransportError(.timedOut, "slow")))
        #expect(!RequestPerformer.isPassingFailure(TransportError(.cancelled, "gone")))
        #expect(RequestPerformer.isIdempotent(method: "put"))
        #expect(!RequestPerformer.isIdempotent(method: "POST"))
    }
}
