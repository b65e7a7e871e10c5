// RequestPerformer: the client's request path, one collaborator of ChatbaseClient. One attempt
// reads a non-2xx answer as the API's error body; `perform` repeats the attempt under a
// RetryPolicy when the request is idempotent and the failure is a passing one (unreachable
// server, connect or head timeout, 429, 502, 503, 504), honouring a clamped `Retry-After`.
// Cancellation ends the waits at once (Task.sleep throws), and nothing else is retried.

import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests through a transport, maps failures to the client's errors and retries the
/// idempotent ones after a passing failure.
struct RequestPerformer: Sendable {
    /// Where requests go.
    let transport: any HTTPTransport
    /// How idempotent requests are retried.
    let retryPolicy: ChatbaseClient.RetryPolicy

    /// One failed attempt: the error to throw, and whether (and after how long at least) the
    /// same request may succeed.
    struct AttemptFailure: Error {
        let error: any Error
        let isPassing: Bool
        let retryAfter: Duration?
    }

    /// Sends `request`; returns the response of a 2xx answer, throws ``APIError`` otherwise
    /// (``APIError/isNotSupportedByServer`` when `extensionRoute` and the server answers
    /// `404 NOT_FOUND`: it lacks the route). An `idempotent` request is retried under
    /// ``retryPolicy``. A ``HTTPRequest/totalTimeout`` counts from the attempt that succeeded.
    func perform(_ request: HTTPRequest, extensionRoute: Bool, idempotent: Bool) async throws -> HTTPResponse {
        let policy = idempotent ? retryPolicy : .none
        var retries = 0
        var waited = Duration.zero
        while true {
            do {
                let started = ContinuousClock.now
                var response = try await attempt(request, extensionRoute: extensionRoute)
                if let total = request.totalTimeout { response.body = response.body.ending(at: started + total) }
                return response
            } catch let failure as AttemptFailure {
                guard failure.isPassing, retries + 1 < policy.maxAttempts, !Task.isCancelled else {
                    if Task.isCancelled { throw CancellationError() }
                    throw failure.error
                }
                let wait = policy.delay(retry: retries, retryAfter: failure.retryAfter)
                guard waited + wait <= policy.totalBudget else { throw failure.error }
                try await policy.sleep(wait)
                try Task.checkCancellation()
                waited += wait
                retries += 1
            }
        }
    }

    /// One attempt; every failure comes as an ``AttemptFailure``.
    func attempt(_ request: HTTPRequest, extensionRoute: Bool) async throws -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw AttemptFailure(
                error: ErrorMapping.wrapping(error), isPassing: Self.isUnreachable(error), retryAfter: nil)
        }
        guard !(200..<300).contains(response.status) else { return response }
        let bytes = (try? await response.body.collect(upTo: 1 << 20)) ?? []
        if Task.isCancelled { throw AttemptFailure(error: CancellationError(), isPassing: false, retryAfter: nil) }
        let retryAfter = ErrorMapping.parseRetryAfter(response.headers["Retry-After"])
        let parsed = WireDecoding.errorBody(bytes)
        let code = parsed?.code ?? "UNKNOWN"
        let message =
            parsed?.message
            ?? (String(decoding: bytes.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        if extensionRoute, response.status == 404, code == "NOT_FOUND" || parsed == nil {
            throw AttemptFailure(
                error: APIError.notSupportedByServer("\(request.method) \(request.url.path)", status: 404),
                isPassing: false, retryAfter: nil)
        }
        let details = parsed?.details ?? [:]
        let error = APIError.httpError(
            statusCode: response.status,
            detail: APIErrorDetail(
                code: code, message: message, details: details.isEmpty ? nil : details, retryAfter: retryAfter))
        throw AttemptFailure(
            error: error, isPassing: [429, 502, 503, 504].contains(response.status),
            retryAfter: retryAfter.map(NetworkDurations.duration(seconds:)))
    }

    /// Whether a request with `method` can be sent twice without doing anything twice.
    static func isIdempotent(method: String) -> Bool {
        ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"].contains(method.uppercased())
    }

    /// Whether a transport failure means the server could not be reached or did not answer in time
    /// (the request may be sent again), rather than a cancellation or a malformed answer.
    static func isUnreachable(_ error: any Error) -> Bool {
        if let error = error as? TransportError {
            return error.kind == .connectionFailed || error.kind == .timedOut || error.kind == .connectionLost
        }
        if let error = error as? URLError {
            switch error.code {
            case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet, .timedOut,
                .networkConnectionLost:
                return true
            default: return false
            }
        }
        return false
    }

    /// Whether `error`, as the client throws it, says the server could not be reached or was
    /// overloaded (no connection, timeout, 429, 500, 502, 503, 504): a message may wait in the
    /// outbox, a list may come from the store.
    static func isPassingFailure(_ error: any Error) -> Bool {
        switch error {
        case let error as APIError:
            switch error {
            case .httpError(let status, _): return [429, 500, 502, 503, 504].contains(status)
            case .networkError(let underlying): return isUnreachable(underlying)
            case .invalidResponse: return false
            }
        default: return isUnreachable(error)
        }
    }
}
