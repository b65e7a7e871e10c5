// Caller: who sent a request (`X-Device-Id`, and `X-User-Token` once identified), and the
// development JWT reading behind `/verify`.
//
// DEVELOPMENT SERVER: a token is accepted when it has the shape of a JWT (three base64url segments,
// a JSON header and a JSON payload with a string `sub`); the signature is NOT checked. Never expose
// this server to untrusted clients.

import ChatStream
import Foundation

/// The identity of a request's sender.
struct Caller: Sendable {
    var deviceId: String
    /// The `sub` of a valid `X-User-Token`, if one was sent.
    var userId: String?

    /// The caller named by `request`'s headers; 400 without `X-Device-Id`, 401 for a malformed token.
    init(request: HTTPServerRequest) throws(APIError) {
        guard let device = request.headers["X-Device-Id"]?.trimmingSpaces(), !device.isEmpty else {
            throw APIError.invalidBody("the X-Device-Id header is required", field: "X-Device-Id")
        }
        deviceId = device
        if let token = request.headers["X-User-Token"]?.trimmingSpaces(), !token.isEmpty {
            guard let subject = DevelopmentJWT.subject(of: token) else { throw APIError.invalidJWT }
            userId = subject
        }
    }

    /// The list partition of this caller's conversations: `u:<user>` when signed in, else `d:<device>`.
    var ownerKey: String { Self.ownerKey(user: userId, device: deviceId) }

    /// The list partition of a conversation owned by `user`, or by `device` while anonymous.
    static func ownerKey(user: String?, device: String) -> String {
        user.map { "u:" + $0 } ?? "d:" + device
    }

    /// Whether this caller may read and write `conversation`: its user's, or its device's while anonymous.
    func owns(_ conversation: ConversationRecord) -> Bool {
        if let owner = conversation.ownerUser { return owner == userId }
        return conversation.ownerDevice == deviceId
    }
}

/// Reads JWTs without checking signatures (development only).
enum DevelopmentJWT {
    /// The payload's `sub`, when `token` has the JWT shape; nil otherwise.
    static func subject(of token: String) -> String? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, !segments[0].isEmpty, !segments[1].isEmpty,
            segments.allSatisfy({ $0.allSatisfy(isBase64URL) }),
            let header = decode(segments[0]), header.objectValue != nil,
            let payload = decode(segments[1]), let subject = payload["sub"]?.stringValue, !subject.isEmpty
        else { return nil }
        return subject
    }

    private static func isBase64URL(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
    }

    private static func decode(_ segment: Substring) -> JSONTree? {
        guard let bytes = Base64URL.decode(String(segment)) else { return nil }
        return try? JSONTree(parsing: bytes)
    }
}

/// base64url without padding (RFC 4648 section 5), as JWTs and cursors use it.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { Array($0) }
    }
}
