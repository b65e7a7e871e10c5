// Caller: who sent a request (`X-Device-Id`, and `X-User-Token` once identified), and to which
// agent (the route's `agentId`: conversations are kept per agent). The token is checked by the
// server's JWTVerifier: an HS256 signature with a configured secret, or only the JWT shape in
// development mode (loopback only).

import ChatStream
import Foundation

/// The identity of a request's sender.
struct Caller: Sendable {
    var deviceId: String
    /// The `sub` of a valid `X-User-Token`, if one was sent.
    var userId: String?
    /// When that token stops being accepted (epoch seconds), when the server checks dates and it has
    /// an `exp`: a live stream opened with it is closed then.
    var tokenAcceptedUntil: Double?
    /// The agent the request names (its route's `agentId`): the caller's conversations with it
    /// are the only ones it lists, reads and continues. Nil: any agent's (the store's own tests).
    var agentId: String?

    /// A caller with these IDs (as a verified request would give).
    init(deviceId: String, userId: String? = nil, agentId: String? = nil) {
        self.deviceId = deviceId
        self.userId = userId
        self.agentId = agentId
    }

    /// The caller named by `request`'s headers; 400 without `X-Device-Id`, 401 `AUTH_INVALID_JWT` for a
    /// token `verifier` refuses.
    init(request: HTTPServerRequest, verifier: JWTVerifier) throws(APIError) {
        guard let device = request.headers["X-Device-Id"]?.trimmingSpaces(), !device.isEmpty else {
            throw APIError.invalidBody("the X-Device-Id header is required", field: "X-Device-Id")
        }
        try StringLimits.check(device, field: "X-Device-Id", maxBytes: StringLimits.deviceIdBytes)
        deviceId = device
        agentId = APIRoute.agentId(of: request)
        if let token = request.headers["X-User-Token"]?.trimmingSpaces(), !token.isEmpty {
            try StringLimits.check(token, field: "X-User-Token", maxBytes: StringLimits.tokenBytes)
            let subject = try verifier.verifiedSubject(of: token)
            try StringLimits.check(subject, field: "sub", maxBytes: StringLimits.subjectBytes)
            userId = subject
            tokenAcceptedUntil = verifier.acceptedUntil(token)
        }
    }

    /// The list partition of this caller's conversations: `u:<user>` when signed in, else `d:<device>`.
    /// It is also the identity that owns tags and read state (PROTOCOLS.md section 6): the signed-in
    /// user's from every device, else the device's.
    var ownerKey: String { Self.ownerKey(user: userId, device: deviceId) }

    /// The list partition of a conversation owned by `user`, or by `device` while anonymous.
    static func ownerKey(user: String?, device: String) -> String {
        user.map { "u:" + $0 } ?? "d:" + device
    }

    /// The live-event audiences this caller hears: its device's anonymous conversations and, when
    /// signed in, its user's (from every device). See ``ConversationRecord/ownerKey``.
    var audiences: [String] { ["d:" + deviceId] + (userId.map { ["u:" + $0] } ?? []) }

    /// Whether this caller may read and write `conversation`: its user's, or its device's while
    /// anonymous, and with the caller's agent.
    func owns(_ conversation: ConversationRecord) -> Bool {
        if let agentId, let other = conversation.agentId, other != agentId { return false }
        if let owner = conversation.ownerUser { return owner == userId }
        return conversation.ownerDevice == deviceId
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
