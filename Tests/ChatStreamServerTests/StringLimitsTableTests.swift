// Issue 31, deliverable 2: every string a client chooses has a byte limit, and the one table of the
// LimitsAndSecurity article lists them all. This test reads that table and, for each row, sends the
// field at exactly its limit (not refused for length) and one byte over (400 naming the field); a
// row without a probe here, or a probe whose field left the table, fails too.

import ChatStream
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Every client-chosen string has its documented byte limit", .blockingAllowed)
struct StringLimitsTableTests {
    /// The article's table of string limits: field name to bytes.
    static func documentedLimits() throws -> [String: Int] {
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(
                "Sources/ChatStreamServer/ChatStreamServer.docc/LimitsAndSecurity.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        var limits: [String: Int] = [:]
        var inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("| field | where | UTF-8 bytes |") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 3, cells[0].hasPrefix("`"), cells[0].hasSuffix("`") else { continue }
            let name = String(cells[0].dropFirst().dropLast())
            let bytes = try #require(Int(cells[2].replacingOccurrences(of: ",", with: "")), "row \(name)")
            limits[name] = bytes
        }
        return limits
    }

    /// A string of `count` bytes of UTF-8 (ASCII).
    static func text(_ count: Int) -> String { String(repeating: "a", count: count) }

    /// Sends `field` at `bytes` bytes; returns the answer.
    typealias Probe = (APIFixture, Int) throws -> APIResponse

    static func body(_ members: [(String, JSONTree)]) -> String { JSONTree.object(JSONObject(members)).jsonText }

    /// One probe per documented field.
    static func probes(conversation: String) -> [String: Probe] {
        [
            "title": { fixture, bytes in
                try fixture.request(
                    "POST", fixture.api("conversations"),
                    body: body([("id", .string(UUID().uuidString.lowercased())), ("title", .string(text(bytes)))]))
            },
            "tags": { fixture, bytes in
                // At most 64 characters: four-byte emoji, then one character of `rest` bytes (a
                // letter with two-byte combining marks, and one three-byte mark for an odd count).
                let emoji = min(63, bytes / 4)
                let rest = bytes - 4 * emoji
                var tag = String(repeating: "\u{1F600}", count: emoji)
                if rest > 0 {
                    let odd = (rest - 1) % 2 == 1
                    tag += "e" + String(repeating: "\u{0301}", count: (rest - 1 - (odd ? 3 : 0)) / 2)
                    if odd { tag += "\u{20D0}" }
                }
                #expect(tag.utf8.count == bytes && tag.count <= 64)
                return try fixture.request(
                    "PUT", fixture.api("conversations/\(conversation)/tags"), body: body([("tags", [.string(tag)])]))
            },
            "q": { fixture, bytes in try fixture.request("GET", fixture.api("conversations?q=\(text(bytes))")) },
            "message": { fixture, bytes in try fixture.chat(text(bytes), stream: false) },
            "conversationId": { fixture, bytes in
                try fixture.request(
                    "POST", fixture.api("chat"),
                    body: body([("message", "hi"), ("conversationId", .string(text(bytes))), ("stream", false)]))
            },
            "messageId": { fixture, bytes in
                try fixture.request(
                    "POST", fixture.api("conversations/\(conversation)/read"),
                    body: body([("messageId", .string(text(bytes)))]))
            },
            "toolCallId": { fixture, bytes in
                try fixture.request(
                    "POST", fixture.api("conversations/\(conversation)/tool-result"),
                    body: body([("toolCallId", .string(text(bytes))), ("output", 1)]))
            },
            "output": { fixture, bytes in
                // A JSON string of `bytes` bytes with its quotes.
                try fixture.request(
                    "POST", fixture.api("conversations/\(conversation)/tool-result"),
                    body: body([("toolCallId", "none"), ("output", .string(text(bytes - 2)))]))
            },
            "X-Device-Id": { fixture, bytes in
                try fixture.request("GET", fixture.api("conversations"), device: text(bytes))
            },
            "X-User-Token": { fixture, bytes in
                // Not a JWT: at the limit it is refused as a token (401), over it for its length.
                try fixture.request("GET", fixture.api("conversations"), token: text(bytes))
            },
            "token": { fixture, bytes in
                try fixture.request("POST", fixture.api("verify"), body: body([("token", .string(text(bytes)))]))
            },
            "sub": { fixture, bytes in
                try fixture.request("GET", fixture.api("conversations"), token: developmentToken(user: text(bytes)))
            },
        ]
    }

    /// Against the demo agent, and against a model agent (issue 33: the same limits on the model
    /// path; its upstream, a MockProvider, answers the first chat and 500 after, which is 502).
    @Test(arguments: [false, true]) func eachDocumentedLimitIsEnforcedAtItsByte(modelAgent: Bool) throws {
        let limits = try Self.documentedLimits()
        #expect(limits.count >= 12)
        let provider = try MockProvider()
        defer { provider.stop() }
        let fixture = modelAgent ? try ModelAgentRetryTests.fixture(provider) : try APIFixture()
        provider.enqueue(.recording("vendor-streams/openai-chat/huggingface-novita__text.sse"))
        let conversation = try fixture.startConversation("a conversation to probe")
        let probes = Self.probes(conversation: conversation)
        #expect(Set(probes.keys) == Set(limits.keys), "the table and the probes name different fields")
        for (field, limit) in limits.sorted(by: { $0.key < $1.key }) {
            let probe = try #require(probes[field], "no probe for the documented field \(field)")
            let at = try probe(fixture, limit)
            let refusedAt = at.status == 400 && at.json["error"]?["details"]?["field"]?.stringValue == field
            #expect(!refusedAt, "\(field) at its limit of \(limit) bytes was refused: \(at.text.prefix(300))")
            let over = try probe(fixture, limit + 1)
            #expect(over.status == 400, "\(field) over its limit answered \(over.status): \(over.text.prefix(300))")
            #expect(
                over.json["error"]?["details"]?["field"]?.stringValue == field,
                "\(field) over its limit: \(over.text.prefix(300))")
        }
    }

    @Test func aBodyAtTheBodyLimitIsAClientErrorAndOneByteMoreIs413() throws {
        let fixture = try APIFixture()
        let conversation = try fixture.startConversation("a conversation")
        let limit = HTTPServerConfiguration().maxBodyBytes
        // A chat within 70 bytes of the limit (issue 31: it answered 500) and a tool result as large.
        let envelope = Self.body([("message", ""), ("stream", false)]).utf8.count
        let chat = try fixture.request(
            "POST", fixture.api("chat"),
            body: Self.body([("message", .string(Self.text(limit - 70 - envelope))), ("stream", false)]))
        #expect(chat.status == 400)
        #expect(chat.json["error"]?["details"]?["field"] == "message")
        let output = try fixture.request(
            "POST", fixture.api("conversations/\(conversation)/tool-result"),
            body: Self.body([("toolCallId", "none"), ("output", .string(Self.text(limit - 100)))]))
        #expect(output.status == 400)
        // One byte over: the head alone is answered (the server reads no body it will refuse).
        let head =
            "POST \(fixture.api("chat")) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Device-Id: device-a\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(limit + 1)\r\n\r\n"
        let over = try APIFixture.exchange(port: fixture.server.port, bytes: Array(head.utf8))
        #expect(over.status == 413)
        #expect(fixture.server.conversationCount == 1)
    }

    @Test func aToolResultNestedTooDeepIsRefusedAndHistoryStaysReadable() throws {
        let fixture = try APIFixture()
        let conversation = try fixture.startConversation("a conversation")
        var nested: JSONTree = 1
        for _ in 0..<511 { nested = .array([nested]) }
        let answer = try fixture.request(
            "POST", fixture.api("conversations/\(conversation)/tool-result"),
            body: Self.body([("toolCallId", "none"), ("output", nested)]))
        #expect(answer.status == 400)
        #expect(answer.errorCode == "VALIDATION_TOO_DEEP")
        var allowed: JSONTree = 1
        for _ in 0..<StringLimits.toolOutputDepth { allowed = .array([allowed]) }
        #expect(StringLimits.depth(of: allowed) == StringLimits.toolOutputDepth)
        #expect(StringLimits.depth(of: ["a": [1, [2]], "b": [:]]) == 3)
        #expect(try fixture.page(fixture.api("conversations/\(conversation)/messages")).status == 200)
    }
}
