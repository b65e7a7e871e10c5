// Background and relaunch (issue 28, deliverable 5) against the real server: a reply whose reading
// stopped (the task cancelled, as a suspended or killed app's is) stays recorded in the client's
// store; a new client on the same store (the next launch) finishes it, from the resume route or,
// with section 8 off, from history, into the store, once; ConversationState.loadHistory and
// resume() do it for their conversation. A reply the server cannot be reached for stays recorded.

import ChatStream
import ChatStreamServer
import Foundation
import HTTPTestSupport
import TestSupport
import Testing

@testable import ChatStreamClient

@MainActor
@Suite("A reply left in flight is finished at the next launch, once", .blockingAllowed)
struct ReplyInFlightTests {
    nonisolated static let agent = "agent-in-flight"

    /// A server pacing its replies (about 25 events, 150 ms apart), a proxy in front of it that
    /// holds the reply's rest once the app saw its first text (so the reading stops mid-reply
    /// however late the cancellation takes effect), and a store file for the clients.
    final class Rig {
        let server: RestartableServer
        let proxy: FaultProxy
        let directory: String
        let device = ChatStreamPaths.newDeviceId()

        init(resumableReplies: Bool) throws {
            var configuration = RestartableServer.testConfiguration
            configuration.agentId = ReplyInFlightTests.agent
            configuration.replyDelay = .milliseconds(150)
            configuration.resumableReplies = resumableReplies
            configuration.http.shutdownGracePeriod = .milliseconds(200)
            server = try RestartableServer(configuration: configuration)
            proxy = try FaultProxy(upstreamPort: server.port)
            directory =
                FileManager.default.temporaryDirectory.appendingPathComponent(
                    "chatstream-in-flight-\(UUID().uuidString)"
                ).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }

        /// A client on the rig's store file: each call is a new launch of the app.
        func launch() throws -> ChatbaseClient {
            ChatbaseClient(
                agentId: ReplyInFlightTests.agent, baseURL: URL(string: "http://127.0.0.1:\(proxy.port)")!,
                identityStore: InMemoryIdentityStore(deviceId: device),
                // Enough to wait for history to have a reply still being generated (section 8 off).
                retryPolicy: .init(maxAttempts: 8, baseDelay: .milliseconds(50), totalBudget: .seconds(5)),
                store: try HistoryStore(path: directory + "/history.sqlite"))
        }

        /// Sends `text` into a new conversation and stops reading once some of the reply arrived
        /// (the app suspended or killed); the handed-over text and the conversation. The proxy
        /// holds the reply's rest once the event with "said:" (the demo reply's second word, each
        /// word its own event) was forwarded, until the send has ended.
        func sendAndStopMidReply(_ text: String, client: ChatbaseClient) async throws -> (String, String) {
            let seen = HandedOver()
            let conversationId = ChatbaseClient.newClientMessageId()
            _ = try await client.createConversation(id: conversationId)
            let proxy = self.proxy
            let server = self.server
            proxy.holdReplies(after: "said:")
            let task = Task {
                try await client.send(text, conversationId: conversationId) { callbacks in
                    seen.configure(&callbacks)
                    let handOver = callbacks.onTextDelta
                    callbacks.onTextDelta = { delta in
                        await handOver?(delta)
                        if seen.value.contains("You said") { proxy.holdReplies() }
                    }
                }
            }
            defer { proxy.releaseReplies() }
            // Generous: in CI's first full-suite run after a fresh build, this suite's server took
            // over 20 s to start answering while the other suites ran (the whole suite took 130 s
            // even in a passing run); the proxy's hold keeps the reply from ending meanwhile.
            #expect(
                await eventually(timeout: .seconds(90)) { seen.value.contains("You said") },
                "handed over: \(seen.value.debugDescription), proxy: \(proxy.counters), generating: \(server.server?.generatingReplyCount ?? -1), process: \(ReplyInFlightTests.threadCount())"
            )
            // Nothing more arrives: the cancellation ends the send by itself, soon.
            let cancelled = ContinuousClock.now
            // A send that waited for bytes to notice its cancellation would wait forever: the hold
            // ends after 600 s, and the time it took fails the test. (A loaded CI machine has taken
            // over 5 s to run a cancelled task again: the bound is far from both.)
            let watchdog = Task.detached {
                try? await Task.sleep(for: .seconds(600))
                proxy.releaseReplies()
            }
            defer { watchdog.cancel() }
            task.cancel()
            let result = await task.result
            let took = ContinuousClock.now - cancelled
            #expect(took < .seconds(300), "the cancelled send ended after \(took)")
            #expect(throws: CancellationError.self) { try result.get() }
            return (seen.value, conversationId)
        }

        func stop() {
            proxy.stop()
            server.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// The test process's thread count and open files (a diagnostic for a send that stalls).
    nonisolated static func threadCount() -> String {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let threads = status.split(separator: "\n").first { $0.hasPrefix("Threads:") } ?? "Threads: ?"
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        return "\(threads), \(files) open files"
    }

    /// The demo agent's whole reply to `text`.
    nonisolated static func reply(to text: String) -> String {
        "You said: \(text). I am the ChatStream demo agent: I repeat what you write, so every reply is predictable."
    }

    @Test(arguments: [true, false])
    func aReplyLeftInFlightIsFinishedByTheNextLaunch(resumableReplies: Bool) async throws {
        let rig = try Rig(resumableReplies: resumableReplies)
        defer { rig.stop() }
        let first = try rig.launch()
        let (before, conversationId) = try await rig.sendAndStopMidReply("left in flight", client: first)
        #expect(!before.contains("predictable."), "the reading stopped mid-reply")
        let recorded = try first.repliesInFlight()
        #expect(recorded.count == 1)
        #expect(recorded.first?.conversationId == conversationId)
        #expect(recorded.first?.userText == "left in flight")

        if !resumableReplies {
            // From history, the next launch finds the reply once it is stored: it comes after that
            // (a reply still generating would stay recorded for a later call, as it should).
            let server = rig.server
            #expect(await eventually(timeout: .seconds(120)) { server.server?.generatingReplyCount == 0 })
        }
        let next = try rig.launch()
        #expect(try next.repliesInFlight() == recorded)
        let finished = try await next.completeRepliesInFlight()
        #expect(finished.map(\.message.text) == [Self.reply(to: "left in flight")])
        #expect(finished.first?.conversationId == conversationId)
        #expect(try next.repliesInFlight().isEmpty)
        // Filed in the store: the message and its whole reply, once each.
        let local = try await next.listMessages(conversationId: conversationId, source: .local)
        #expect(local.data.map(\.text) == ["left in flight", Self.reply(to: "left in flight")])
        // Once: nothing left for a later call.
        #expect(try await next.completeRepliesInFlight().isEmpty)
    }

    @Test func loadHistoryAtTheNextLaunchShowsTheReplyOnce() async throws {
        let rig = try Rig(resumableReplies: true)
        defer { rig.stop() }
        let (_, conversationId) = try await rig.sendAndStopMidReply("shown once", client: try rig.launch())
        let state = ConversationState(client: try rig.launch())
        await state.loadHistory(conversationId: conversationId)
        #expect(state.error == nil)
        #expect(state.messages.map(\.kind) == [.text("shown once"), .text(Self.reply(to: "shown once"))])
        #expect(try state.client.repliesInFlight().isEmpty)
    }

    @Test func resumeFinishesAReplyLeftByASuspensionAndReloads() async throws {
        let rig = try Rig(resumableReplies: true)
        defer { rig.stop() }
        let client = try rig.launch()
        let (_, conversationId) = try await rig.sendAndStopMidReply("suspended", client: client)
        let state = ConversationState(client: client, conversationId: conversationId)
        await state.resume()
        #expect(state.error == nil)
        #expect(state.messages.map(\.kind) == [.text("suspended"), .text(Self.reply(to: "suspended"))])
        #expect(try client.repliesInFlight().isEmpty)
        // Nothing in flight: resume changes nothing.
        let rows = state.messages
        await state.resume()
        #expect(state.messages == rows)
    }

    @Test func aReplyTheServerCannotBeReachedForStaysRecorded() async throws {
        let rig = try Rig(resumableReplies: true)
        defer { rig.stop() }
        let client = try rig.launch()
        _ = try await rig.sendAndStopMidReply("offline", client: client)
        rig.server.stopServer()
        #expect(try await client.completeRepliesInFlight().isEmpty)
        #expect(try client.repliesInFlight().count == 1)
        try rig.server.start()
        // Back: the reply, cut by the stop (stored as interrupted: it ends with an error and is
        // forgotten, history has it as it ended) or finished before it (completed whole), is no
        // longer in flight.
        let finished = try await client.completeRepliesInFlight()
        #expect(finished.allSatisfy { $0.message.text == Self.reply(to: "offline") })
        #expect(try client.repliesInFlight().isEmpty)
    }
}
