// JWTVerifier: checks user tokens (`X-User-Token`, `/verify`'s `token`) as HS256 JWTs (RFC 7519).
//
// With a secret: the header must name `alg` `HS256`, the signature must be the HMAC-SHA256 of
// `header.payload` under the secret (compared in constant time), `exp` (when present) must be in
// the future and `nbf` (when present) in the past, each with a small clock skew; the payload's `sub`
// is the user. Without a secret the server is in development mode: a token needs only the JWT
// shape and a `sub` (signature not checked), and ChatAPIServer refuses to listen beyond loopback.

import ChatStream
import Foundation

/// Verifies user tokens; a failure is 401 `AUTH_INVALID_JWT`.
struct JWTVerifier: Sendable {
    /// The HS256 secret; nil is development mode (unsigned tokens accepted).
    var secret: [UInt8]?
    /// Tolerated clock difference for `exp` and `nbf`.
    var clockSkew: Duration = .seconds(30)
    /// The current time in epoch seconds (a parameter for tests).
    var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    /// Why a token was refused (in the 401's message).
    enum Failure: Error, Equatable {
        case malformed
        case algorithm
        case signature
        case expired
        case notYetValid
        case noSubject
    }

    /// The token's subject (`sub`), or why it is refused.
    func subject(of token: String) -> Result<String, Failure> {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty,
            let headerBytes = Base64URL.decode(String(segments[0])),
            let header = try? JSONTree(parsing: headerBytes), header.objectValue != nil,
            let payloadBytes = Base64URL.decode(String(segments[1])),
            let payload = try? JSONTree(parsing: payloadBytes), payload.objectValue != nil
        else { return .failure(.malformed) }
        if let secret {
            guard header["alg"]?.stringValue == "HS256" else { return .failure(.algorithm) }
            guard let signature = Base64URL.decode(String(segments[2])) else { return .failure(.malformed) }
            let signed = Array("\(segments[0]).\(segments[1])".utf8)
            let expected = HMACSHA256.authenticationCode(for: signed, key: secret)
            guard HMACSHA256.equalInConstantTime(signature, expected) else { return .failure(.signature) }
            let skew = Double(clockSkew.components.seconds)
            let time = now()
            if let exp = payload["exp"] {
                guard let value = exp.doubleValue, time < value + skew else { return .failure(.expired) }
            }
            if let nbf = payload["nbf"] {
                guard let value = nbf.doubleValue, time >= value - skew else { return .failure(.notYetValid) }
            }
        }
        guard let subject = payload["sub"]?.stringValue, !subject.isEmpty else { return .failure(.noSubject) }
        return .success(subject)
    }

    /// The subject, or 401 `AUTH_INVALID_JWT` saying why.
    func verifiedSubject(of token: String) throws(APIError) -> String {
        switch subject(of: token) {
        case .success(let subject): return subject
        case .failure(let failure): throw APIError.invalidJWT(failure)
        }
    }

    /// When a token this verifier accepted stops being accepted (its `exp` plus the clock skew, in
    /// epoch seconds); nil without a secret (development mode checks no dates) or without `exp`.
    func acceptedUntil(_ token: String) -> Double? {
        guard secret != nil else { return nil }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let bytes = Base64URL.decode(String(segments[1])),
            let exp = (try? JSONTree(parsing: bytes))?["exp"]?.doubleValue
        else { return nil }
        return exp + Double(clockSkew.components.seconds)
    }

    /// A signed HS256 token for `payload` under `secret` (for tests and tools).
    static func sign(_ payload: JSONTree, secret: [UInt8]) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let body = Base64URL.encode(payload.jsonBytes)
        let signature = HMACSHA256.authenticationCode(for: Array("\(header).\(body)".utf8), key: secret)
        return "\(header).\(body).\(Base64URL.encode(signature))"
    }
}
