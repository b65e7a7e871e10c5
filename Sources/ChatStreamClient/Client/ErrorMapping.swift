// What the client throws for what went wrong below it: transport failures are APIError.networkError,
// undecodable bodies ChatError.decodingFailed, a stored identity or local store that cannot be
// used ChatError.decodingFailed naming it, cancellation stays CancellationError. Only the SDK's two
// types (and CancellationError) leave the client.

import ChatStream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum ErrorMapping {
    /// Turns anything a request threw into the documented errors.
    static func wrapping(_ error: any Error) -> any Error {
        switch error {
        case is APIError, is ChatError, is CancellationError: return error
        case let error as ClientError:
            switch error.kind {
            case .notSupportedByServer: return APIError.notSupportedByServer(error.message)
            case .storeFailed: return ChatError.store(error.message)
            default: return APIError.invalidArgument("argument", error.message)
            }
        case let error as IdentityStoreError: return ChatError.identity(error)
        case let error as TransportError:
            if error.kind == .cancelled { return CancellationError() }
            if error.kind == .invalidResponse { return APIError.invalidResponse }
            // As documented, the underlying URLError when there is one.
            if let urlError = error.underlyingError as? URLError { return APIError.networkError(urlError) }
            return APIError.networkError(error)
        case let error as JSONError:
            return decoding(error.message, byteOffset: error.byteOffset)
        default:
            return APIError.networkError(error)
        }
    }

    /// ``ChatError/decodingFailed(_:)`` naming where.
    static func decoding(_ message: String, byteOffset: Int? = nil) -> ChatError {
        .decodingFailed(byteOffset.map { "\(message) (at byte \($0))" } ?? message)
    }

    /// Reads `Retry-After`: delay seconds or an HTTP date, clamped (see ``NetworkDurations``).
    static func parseRetryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        NetworkDurations.retryAfter(value, now: now)
    }
}
