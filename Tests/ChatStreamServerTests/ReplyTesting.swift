// Helpers for the resumable-reply suites: SSE events with their IDs, requests from other threads,
// and waiting for a condition.

import ChatStream
import Dispatch
import Foundation
import Synchronization

/// One SSE event of a reply: its `id:` and `data:`.
struct ReplyEvent: Equatable, Sendable {
    var id: Int?
    var data: String

    /// The chunk's JSON (nil for `[DONE]`).
    var json: JSONTree? { try? JSONTree(parsing: Array(data.utf8)) }
    var type: String? { data == "[DONE]" ? "[DONE]" : json?["type"]?.stringValue }

    /// The complete events in an SSE body (an event cut before its blank line is left out).
    static func parse(_ body: [UInt8]) -> [ReplyEvent] {
        let text = String(decoding: body, as: UTF8.self)
        var blocks = text.components(separatedBy: "\n\n")
        blocks.removeLast()  // what follows the last blank line is incomplete (or empty)
        return blocks.compactMap { block in
            var id: Int?
            var data: String?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            return data.map { ReplyEvent(id: id, data: $0) }
        }
    }

    /// The text of the `text-delta` events, joined.
    static func text(_ events: [ReplyEvent]) -> String {
        events.filter { $0.type == "text-delta" }.compactMap { $0.json?["delta"]?.stringValue }.joined()
    }
}

extension APIFixture {
    /// The path of a reply's resume route.
    func replyPath(_ conversationId: String, _ messageId: String, _ action: String = "stream") -> String {
        api("conversations/\(conversationId)/messages/\(messageId)/\(action)")
    }

    /// Resumes a reply after `lastEventId` (nil: none sent).
    func resume(
        _ conversationId: String, _ messageId: String, after lastEventId: String?, device: String = "device-a"
    ) throws -> APIResponse {
        try request(
            "GET", replyPath(conversationId, messageId), device: device,
            headers: lastEventId.map { [("Last-Event-ID", $0)] } ?? [])
    }

    /// Sends a request on another thread; `wait` returns its response.
    func background(
        _ method: String, _ path: String, device: String = "device-a", headers: [(String, String)] = [],
        body: String? = nil
    ) -> BackgroundRequest {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Device-Id: \(device)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let bodyBytes = Array((body ?? "").utf8)
        if body != nil { head += "Content-Type: application/json\r\nContent-Length: \(bodyBytes.count)\r\n" }
        return BackgroundRequest(port: server.port, bytes: Array((head + "\r\n").utf8) + bodyBytes)
    }

    /// A chat body.
    static func chatBody(_ message: String, conversation: String? = nil, clientMessageId: String? = nil) -> String {
        var body = JSONObject()
        body["message"] = .string(message)
        if let conversation { body["conversationId"] = .string(conversation) }
        if let clientMessageId { body["clientMessageId"] = .string(clientMessageId) }
        body["stream"] = true
        return JSONTree.object(body).jsonText
    }
}

/// A request running on a thread of its own.
final class BackgroundRequest: Sendable {
    private let result = Mutex<Result<APIResponse, APITestError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(port: UInt16, bytes: [UInt8]) {
        // A thread of its own: a Dispatch queue's blocks share the cooperative pool's few threads.
        Thread.detachNewThread { [self] in
            let outcome: Result<APIResponse, APITestError>
            do {
                outcome = .success(try APIFixture.exchange(port: port, bytes: bytes))
            } catch {
                outcome = .failure(APITestError(description: "\(error)"))
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
    }

    /// The response, once it is complete (at most 20 s).
    func wait() throws -> APIResponse {
        guard done.wait(timeout: .now() + 20) == .success else { throw APITestError(description: "no answer in 20 s") }
        done.signal()
        return try result.withLock { $0! }.get()
    }
}

/// Polls `condition` every 10 ms for up to `seconds`; true when it held.
func eventually(within seconds: Double = 120, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}
