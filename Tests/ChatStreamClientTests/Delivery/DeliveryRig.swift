// DeliveryRig: the fault rig of the delivery end-to-end tests. A RestartableServer on a data
// file, a FaultProxy in front of it cutting half of the connections somewhere in their first 40 kB
// (a connection is kept alive across requests, so a cut falls in any request or reply on it, its
// HTTP head included), client A (a local store,
// the automatic outbox) and client B (the same device, as a second app would be) through the
// proxy, and a client straight to the server for reading the stored history at the end.

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import Synchronization
import TestSupport
import Testing

@testable import ChatStreamClient

@MainActor
final class DeliveryRig {
    let server: RestartableServer
    let proxy: FaultProxy
    let clientA: ChatbaseClient
    let clientB: ChatbaseClient
    let direct: ChatbaseClient
    private let directory: String

    /// What the run did, for the checks and the figures; `note` names the seed.
    struct Log {
        let seed: UInt64
        var fromB = 0
        var restarts = 0
        var failedByRestart = 0
        var failedReplies = 0
        var retries = 0
        var resends = 0
        var flushes = 0
        var reloads = 0
        var bNotShown: [String] = []
        /// The first step after which the UI's rows were out of the conversation's order, and how.
        var firstDisorder: String?
        var note: String {
            "seed \(seed) (CHATSTREAM_E2E_SEED=\(seed) runs it again)"
                + (firstDisorder.map { "; UI first out of order \($0)" } ?? "")
        }

        /// Records the first step after which `rows` are out of order: each "message N" after
        /// the one before it, each reply right after its message.
        mutating func checkOrder(of rows: [ConversationState.UiMessage], after step: String) {
            guard firstDisorder == nil else { return }
            var lastUser: String?
            var lastNumber = -1
            for (index, row) in rows.enumerated() {
                guard case .text(let text) = row.kind, !row.isError, !row.isStreaming else { continue }
                if row.sender == .user, let number = Int(text.dropFirst("message ".count)) {
                    if number <= lastNumber {
                        firstDisorder = "after \(step): row \(index) \(text) after message \(lastNumber)"
                        return
                    }
                    lastNumber = number
                    lastUser = text
                } else if row.sender == .agent, let lastUser, text != DeliveryRig.reply(to: lastUser) {
                    firstDisorder = "after \(step): row \(index) \(text.prefix(24)) after \(lastUser)"
                    return
                }
            }
        }
    }

    /// One row as the comparison sees it: who, which server message, what it shows.
    struct RowKey: Equatable, CustomStringConvertible {
        var sender: MessageSender
        var messageId: String?
        var kind: ConversationState.UiMessage.Kind
        init(_ row: ConversationState.UiMessage) {
            sender = row.sender
            messageId = row.messageId
            kind = row.kind
        }
        var description: String {
            let shown: String
            switch kind {
            case .text(let text): shown = String(text.prefix(24))
            case .toolCall(let card): shown = "tool \(card.toolName)"
            }
            return "\(sender) \(messageId ?? "nil") \(shown)"
        }
    }

    /// The demo agent's whole reply to `text`.
    nonisolated static func reply(to text: String) -> String {
        "You said: \(text). I am the ChatStream demo agent: I repeat what you write, so every reply is predictable."
    }

    /// Where two row lists first differ.
    static func firstDifference(_ ui: [RowKey], _ server: [RowKey]) -> String {
        guard ui != server else { return "equal" }
        let index =
            zip(ui, server).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(ui.count, server.count)
        let shownUI = index < ui.count ? ui[index].description : "end"
        let shownServer = index < server.count ? server[index].description : "end"
        // Where the server's row sits in the UI, and the rows around the difference, say what moved.
        let moved = index < server.count ? ui.firstIndex(of: server[index]).map(String.init) ?? "absent" : "-"
        let window = ui.indices.clamped(to: max(0, index - 2)..<min(ui.count, index + 3))
            .map { "\($0): \(ui[$0].description.prefix(60))" }.joined(separator: " | ")
        return "UI \(ui.count) rows, server \(server.count); row \(index): UI \(shownUI), server \(shownServer) "
            + "(at UI row \(moved)); UI rows \(window)"
    }

    init(resumableReplies: Bool, seed: UInt64, cutProbability: Double = 0.5) throws {
        var configuration = RestartableServer.testConfiguration
        configuration.agentId = FaultProxyEndToEndTests.agent
        configuration.resumableReplies = resumableReplies
        // Paced, so a restart can fall in the middle of a reply (about 25 events a reply).
        configuration.replyDelay = .milliseconds(2)
        configuration.liveEvents.retryMilliseconds = 10
        configuration.http.shutdownGracePeriod = .milliseconds(200)
        server = try RestartableServer(configuration: configuration)
        proxy = try FaultProxy(
            upstreamPort: server.port,
            plan: .init(
                cutProbability: cutProbability, cutOffsets: 1...40_000, stallDuration: .milliseconds(300), seed: seed))
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "chatstream-fault-e2e-\(UUID().uuidString)"
            ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let device = ChatStreamPaths.newDeviceId()
        let throughProxy = URL(string: "http://127.0.0.1:\(proxy.port)")!
        let retries = ChatbaseClient.RetryPolicy(
            maxAttempts: 8, baseDelay: .milliseconds(10), maxDelay: .milliseconds(200), totalBudget: .seconds(10))
        clientA = ChatbaseClient(
            agentId: FaultProxyEndToEndTests.agent, baseURL: throughProxy,
            identityStore: InMemoryIdentityStore(deviceId: device), retryPolicy: retries, idleTimeout: .seconds(5),
            store: try HistoryStore(path: directory + "/a.sqlite"), outbox: .automatic)
        clientB = ChatbaseClient(
            agentId: FaultProxyEndToEndTests.agent, baseURL: throughProxy,
            identityStore: InMemoryIdentityStore(deviceId: device), retryPolicy: retries, idleTimeout: .seconds(5),
            store: nil)
        direct = ChatbaseClient(
            agentId: FaultProxyEndToEndTests.agent, baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            identityStore: InMemoryIdentityStore(deviceId: device), store: nil)
    }

    func stop() {
        proxy.stop()
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Client B sends `text` (once more when its send fails), then waits until A's state shows
    /// B's message and reply from the live stream (so the next send of A comes after them).
    func sendFromB(_ text: String, conversationId: String, shownIn state: ConversationState, log: inout Log) async {
        log.fromB += 1
        let clientMessageId = ChatbaseClient.newClientMessageId()
        var response = try? await clientB.send(text, conversationId: conversationId, clientMessageId: clientMessageId)
        if response == nil {
            response = try? await clientB.send(text, conversationId: conversationId, clientMessageId: clientMessageId)
        }
        guard let replyId = response?.message.id else {
            Issue.record("B's \(text) was not delivered twice; \(log.note)")
            return
        }
        let shown = await eventuallyOnMain(timeout: .seconds(120)) {
            state.messages.contains { $0.messageId == replyId }
        }
        if !shown { log.bNotShown.append(text) }
        #expect(shown, "B's \(text) never reached A's live stream; \(log.note)")
    }

    /// A's send of `text`, with the server restarted as soon as it generates the reply.
    func sendRestartingMidReply(_ text: String, state: ConversationState, log: inout Log) async {
        log.restarts += 1
        let server = self.server
        let sent = Shared(false)
        let restart = Task.detached {
            _ = await eventually(timeout: .seconds(120)) {
                sent.value || (server.server?.generatingReplyCount ?? 0) > 0
            }
            try? server.restart()
        }
        await state.sendMessage(text)
        sent.value = true
        await restart.value
        if state.messages.last?.sender == .agent, state.messages.last?.isError == true { log.failedByRestart += 1 }
        if ProcessInfo.processInfo.environment["CHATSTREAM_E2E_TRACE"] != nil {
            let tail = state.messages.suffix(3).map { row in
                "\(row.sender) \(row.messageId ?? "nil") error=\(row.isError) \(row.delivery.map(\.rawValue) ?? "-") \(RowKey(row))"
            }
            print("restart at \(text): \(tail) error: \(String(describing: state.error))")
        }
    }

    /// The conversation as the server stores it, oldest first (read straight, past the proxy).
    func storedHistory(_ conversationId: String) async throws -> [Message] {
        var newestFirst: [Message] = []
        for try await message in direct.messages(in: conversationId, pageSize: 100, source: .network) {
            newestFirst.append(message)
        }
        return newestFirst.reversed()
    }
}
