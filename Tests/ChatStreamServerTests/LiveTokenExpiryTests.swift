// Issue 31, deliverable 7: a live event stream outlives no token. A stream opened with a user token
// ends when the token expires (its `exp` plus the clock skew), and the reconnect is refused.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Live streams end with their token", .blockingAllowed)
struct LiveTokenExpiryTests {
    @Test func anEventStreamClosesWhenItsTokenExpires() throws {
        let fixture = try APIFixture(jwtSecret: IdentityTests.secret) { $0.jwtClockSkew = .zero }
        let exp = Int(IdentityTests.now) + 2
        let token = IdentityTests.token(["sub": "user-exp", "exp": .number(JSONNumber(exp))])
        let start = ContinuousClock.now
        // Without the close, the stream stays open until the test client's 10 s read timeout.
        let stream = try fixture.request("GET", fixture.api("events"), token: token)
        let elapsed = ContinuousClock.now - start
        #expect(stream.status == 200)
        #expect(stream.text.contains("event: subscribed"))
        #expect(elapsed < .seconds(6), "the stream stayed open \(elapsed) past its token's expiry")
        #expect(Date().timeIntervalSince1970 >= Double(exp))
        let again = try fixture.request("GET", fixture.api("events"), token: token)
        #expect(again.status == 401)
        // A token without `exp` keeps its stream (it is cut here by the test client's timeout only).
        let lasting = IdentityTests.token(["sub": "user-lasting"])
        #expect(JWTVerifier(secret: Array(IdentityTests.secret.utf8)).acceptedUntil(lasting) == nil)
        #expect(JWTVerifier(secret: nil).acceptedUntil(token) == nil)
        #expect(JWTVerifier(secret: Array(IdentityTests.secret.utf8)).acceptedUntil(token) == Double(exp) + 30)
    }
}
