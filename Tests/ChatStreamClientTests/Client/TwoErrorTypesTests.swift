// Every public throwing path of the client throws one of the Chatbase SDK's two error types,
// APIError or ChatError (their cases exactly the SDK's), keeping the reason and where: a rejected
// argument, a damaged identity file, a local store that cannot be opened, a route the server lacks.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

@Suite("The SDK's two error types (scripted transport)", .blockingAllowed)
struct TwoErrorTypesTests {
    /// Whether `error` is one of the SDK's two types.
    static func isDocumented(_ error: (any Error)?) -> Bool { error is APIError || error is ChatError }

    @Test func anInvalidLimitIsAnInvalidArgumentOnEveryPath() async throws {
        let transport = FakeTransport { request in Wire.page([], request: request) }
        let client = Wire.client(transport)
        let calls: [(String, @Sendable () async throws -> Void)] = [
            ("listConversations(cursor:limit:)", { _ = try await client.listConversations(cursor: nil, limit: 0) }),
            (
                "listConversations(limit:source:)",
                { _ = try await client.listConversations(limit: 101, source: .local) }
            ),
            ("listConversations(query)", { _ = try await client.listConversations(ConversationQuery(limit: 0)) }),
            ("listMessages", { _ = try await client.listMessages(conversationId: "c1", cursor: nil, limit: 0) }),
            ("messagePages", { for try await _ in client.messagePages(conversationId: "c1", limit: 500) {} }),
            ("conversationPages", { for try await _ in client.conversationPages(ConversationQuery(limit: -3)) {} }),
            ("messages(in:)", { for try await _ in client.messages(in: "c1", pageSize: 0, source: .network) {} }),
            (
                "conversations(matching:)",
                {
                    for try await _ in client.conversations(matching: ConversationQuery(limit: 0), source: .network) {}
                }
            ),
        ]
        for (name, call) in calls {
            // What the API answers such a request with, found before sending it.
            let error = await #expect(throws: APIError.self, "\(name)") { try await call() }
            #expect(error?.statusCode == 400, "\(name)")
            #expect(error?.apiCode == "VALIDATION_INVALID_BODY", "\(name)")
            #expect(error?.detail?.finding == .refusedBeforeSending, "\(name)")
            let reason = error?.detail?.details?["limit"] ?? ""
            #expect(reason.hasPrefix("must be between 1 and 100, got "), "\(name): \(reason)")
            #expect(error?.isTransient == false, "\(name)")
        }
        #expect(transport.requests.isEmpty)
        let tags = await #expect(throws: APIError.self) { try await client.setTags(["ok", ""], conversationId: "c1") }
        #expect(tags?.detail?.details?["tags"]?.isEmpty == false)
        #expect(transport.requests.isEmpty)
    }

    @Test func aDamagedIdentityFileIsAChatErrorNamingTheFileOnEveryPath() async throws {
        let directory = TemporaryDirectory()
        let store = FileIdentityStore(directory: directory.url, deviceIdDefaults: nil)
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try Data("{broken".utf8).write(to: store.deviceIdFile)
        let transport = FakeTransport { request in
            request.route == "chat"
                ? Wire.stream(Wire.reply("hi", conversationId: "c1")) : Wire.page([], request: request)
        }
        let client = ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport, identityStore: store, store: nil)
        let calls: [(String, @Sendable () async throws -> Void)] = [
            ("send", { _ = try await client.send("hi") }),
            ("sendNonStreaming", { _ = try await client.sendNonStreaming("hi") }),
            ("retry", { _ = try await client.retry(conversationId: "c1", messageId: "m1") }),
            ("updates", { for try await _ in client.updates(sending: "hi") {} }),
            ("listConversations", { _ = try await client.listConversations() }),
            ("listMessages", { _ = try await client.listMessages(conversationId: "c1") }),
            ("identify", { try await client.identify(token: "jwt") }),
            ("createConversation", { _ = try await client.createConversation() }),
            ("conversation(id:)", { _ = try await client.conversation(id: "c1") }),
            ("events", { for try await _ in client.events() {} }),
        ]
        for (name, call) in calls {
            let error = await #expect(throws: ChatError.self, "\(name)") { try await call() }
            guard case .decodingFailed(let reason)? = error else {
                Issue.record("\(name): not ChatError.decodingFailed: \(String(describing: error))")
                continue
            }
            #expect(reason.hasPrefix("stored identity: \(store.deviceIdFile.path): "), "\(name): \(reason)")
            #expect(reason.contains("is not a UUID"), "\(name): \(reason)")
            #expect(reason.contains("(at byte 0)"), "\(name): \(reason)")
            #expect(error?.localizedDescription.hasPrefix("The stored identity cannot be used: ") == true, "\(name)")
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func aSignedInUserThatCannotBeSavedIsAChatError() async throws {
        struct Unwritable: IdentityStore {
            func deviceId() throws -> String { "0f0e0d0c-0b0a-4908-8706-050403020100" }
            func signedInUser() throws -> SignedInUser? { nil }
            func setSignedInUser(_ user: SignedInUser?) throws {
                throw IdentityStoreError(
                    .io, "/read-only/signed-in-user", "cannot create the file: Read-only file system")
            }
        }
        let transport = FakeTransport { _ in Wire.json(["data": ["userId": "u1"]]) }
        let client = ChatbaseClient(
            agentId: "agent-1", baseURL: Wire.base, transport: transport, identityStore: Unwritable(), store: nil)
        let error = await #expect(throws: ChatError.self) { try await client.identify(token: "jwt") }
        #expect(
            error
                == .decodingFailed(
                    "stored identity: /read-only/signed-in-user: cannot create the file: Read-only file system"))
        // Accepted by the server: signed in until the process ends, as documented.
        #expect(client.isIdentified)
    }

    @Test func aStoreThatCannotBeOpenedIsAChatErrorNamingTheFile() throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("chatstream-not-a-dir-\(UUID())")
        try Data("a file".utf8).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        let path = blocker.appendingPathComponent("history.sqlite").path
        let error = #expect(throws: ChatError.self) { try HistoryStore(path: path) }
        guard case .decodingFailed(let reason)? = error else {
            Issue.record("not ChatError.decodingFailed: \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("local history store: cannot open \(path): "))
        #expect(error?.localizedDescription.hasPrefix("The local history store failed: ") == true)
    }

    @Test func aRouteTheServerLacksIsAChatErrorNamingIt() async throws {
        let transport = FakeTransport { _ in Wire.error(404, "NOT_FOUND") }
        let client = Wire.client(transport)
        let error = await #expect(throws: APIError.self) { try await client.closeConversation(id: "c1") }
        #expect(error?.isNotSupportedByServer == true)
        #expect(error?.statusCode == 404)
        #expect(error?.apiCode == APIErrorDetail.notSupportedCode)
        #expect(error?.detail?.finding == .notSupportedByServer("POST /api/agents/agent-1/conversations/c1/close"))
        #expect(
            error?.localizedDescription
                == "This server does not support POST /api/agents/agent-1/conversations/c1/close.")
        #expect(error?.description == "not supported by this server: POST /api/agents/agent-1/conversations/c1/close")
        #expect(error?.isTransient == false)
    }

    @Test func whatIsBelowTheClientIsMappedIntoTheTwoTypes() {
        #expect(
            ErrorMapping.wrapping(ClientError(.storeFailed, "disk full")) as? ChatError
                == .decodingFailed("local history store: disk full"))
        #expect(
            (ErrorMapping.wrapping(ClientError(.notSupportedByServer, "x")) as? APIError)?.isNotSupportedByServer
                == true)
        #expect((ErrorMapping.wrapping(ClientError(.invalidArgument, "bad")) as? APIError)?.statusCode == 400)
        let identity = IdentityStoreError(.corrupt, "/x/device-id", "not a UUID", byteOffset: 0)
        #expect(
            ErrorMapping.wrapping(identity) as? ChatError
                == .decodingFailed("stored identity: /x/device-id: not a UUID (at byte 0)"))
        #expect(Self.isDocumented(ErrorMapping.wrapping(TransportError(.connectionFailed, "refused"))))
        #expect(ErrorMapping.wrapping(CancellationError()) is CancellationError)
    }
}
