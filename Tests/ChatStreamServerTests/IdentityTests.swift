// Verified identity: HS256 user tokens with a secret, development mode only on loopback, and
// another identity's conversation indistinguishable from a missing one.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Verified identity", .blockingAllowed)
struct IdentityTests {
    static let secret = "test-secret-0123456789"

    static func token(_ claims: JSONTree, secret: String = IdentityTests.secret) -> String {
        JWTVerifier.sign(claims, secret: Array(secret.utf8))
    }

    static var now: Double { Date().timeIntervalSince1970 }

    @Test func aSignedCurrentTokenIsAccepted() throws {
        let fixture = try APIFixture(jwtSecret: Self.secret)
        let token = Self.token(["sub": "user-1", "exp": .number(JSONNumber(Int(Self.now) + 600))])
        let reply = try fixture.chat("hi", token: token)
        #expect(reply.status == 200)
        #expect(reply.streamChunks.chunks.last?["messageMetadata"]?["userId"] == "user-1")
        let verify = try fixture.request("POST", fixture.api("verify"), body: #"{"token":"\#(token)"}"#)
        #expect(verify.status == 200)
    }

    @Test(arguments: ["forged", "wrongSecret", "expired", "notYet", "none", "unsigned"])
    func aTokenThatDoesNotVerifyIs401(_ kind: String) throws {
        let fixture = try APIFixture(jwtSecret: Self.secret)
        let now = Int(Self.now)
        let token: String
        switch kind {
        case "forged":
            // A valid token's payload swapped for another user's: the signature no longer matches.
            let good = Self.token(["sub": "user-1"]).split(separator: ".")
            let payload = Base64URL.encode(Array(#"{"sub":"user-2"}"#.utf8))
            token = "\(good[0]).\(payload).\(good[2])"
        case "wrongSecret": token = Self.token(["sub": "user-1"], secret: "another")
        case "expired": token = Self.token(["sub": "user-1", "exp": .number(JSONNumber(now - 120))])
        case "notYet": token = Self.token(["sub": "user-1", "nbf": .number(JSONNumber(now + 120))])
        case "none":
            let header = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8))
            token = "\(header).\(Base64URL.encode(Array(#"{"sub":"user-1"}"#.utf8)))."
        default: token = developmentToken(user: "user-1")
        }
        let chat = try fixture.chat("hi", token: token)
        #expect(chat.status == 401)
        #expect(chat.errorCode == "AUTH_INVALID_JWT")
        let verify = try fixture.request("POST", fixture.api("verify"), body: #"{"token":"\#(token)"}"#)
        #expect(verify.status == 401)
        #expect(verify.errorCode == "AUTH_INVALID_JWT")
        #expect(fixture.server.conversationCount == 0)
    }

    @Test func theClockSkewIsTolerated() {
        let verifier = JWTVerifier(secret: Array(Self.secret.utf8), clockSkew: .seconds(30), now: { 1000 })
        let fresh = Self.token(["sub": "u", "exp": 980, "nbf": 1020])
        #expect(verifier.subject(of: fresh) == .success("u"))
        #expect(verifier.subject(of: Self.token(["sub": "u", "exp": 960])) == .failure(.expired))
        #expect(verifier.subject(of: Self.token(["sub": "u", "nbf": 1040])) == .failure(.notYetValid))
    }

    /// HMAC-SHA256 test case 2 of RFC 4231, checking the library binding itself.
    @Test func hmacMatchesRFC4231() {
        let code = HMACSHA256.authenticationCode(
            for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8))
        let hex = code.map { String(format: "%02x", $0) }.joined()
        #expect(hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func developmentModeAcceptsUnsignedTokensOnLoopback() throws {
        let fixture = try APIFixture()
        #expect(try fixture.chat("hi", token: developmentToken(user: "dev")).status == 200)
    }

    @Test func developmentModeRefusesToListenBeyondLoopback() throws {
        var configuration = ChatAPIServer.Configuration()
        configuration.host = "0.0.0.0"
        configuration.port = 0
        let server = ChatAPIServer(configuration: configuration)
        defer { server.stop() }
        #expect {
            try server.start()
        } throws: { error in
            (error as? HTTPServerError) == .insecureBinding
                && "\(error)".contains("without a JWT secret") && "\(error)".contains("--jwt-secret")
        }
        #expect(Socket.isLoopback(host: "127.0.0.1") && Socket.isLoopback(host: "::1"))
        #expect(!Socket.isLoopback(host: "0.0.0.0"))
    }

    @Test func anotherIdentitysConversationLooksMissing() throws {
        let fixture = try APIFixture()
        let id = try fixture.startConversation("mine")
        let missing = "00000000-0000-4000-8000-000000000000"
        for path in ["conversations/\(id)/messages", "conversations/\(id)"] {
            let theirs = try fixture.request("GET", fixture.api(path), device: "device-b")
            let absent = try fixture.request(
                "GET", fixture.api(path.replacingOccurrences(of: id, with: missing)), device: "device-b")
            #expect(theirs.status == 404)
            #expect(theirs.status == absent.status && theirs.body == absent.body, "\(path)")
        }
        let chat = try fixture.chat("hijack", conversation: id, device: "device-b")
        #expect(chat.status == 404)
        #expect(chat.errorCode == "RESOURCE_CONVERSATION_NOT_FOUND")
    }
}
