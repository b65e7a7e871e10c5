import ChatStream
import ChatStreamClient
import Foundation
import Synchronization
import TestSupport
import Testing

/// A fresh private directory per test, removed at the end.
struct TemporaryDirectory: ~Copyable {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("chatstream-identity-\(UUID().uuidString)")
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    func mode(_ name: String) throws -> Int {
        let path = name.isEmpty ? url.path : url.appendingPathComponent(name).path
        return try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }
}

@Suite(.blockingAllowed) struct FileIdentityStoreTests {
    /// A client on `store` whose server accepts any token and lists nothing.
    static func client(_ store: any IdentityStore) -> (ChatbaseClient, FakeTransport) {
        let transport = FakeTransport { request in
            request.route == "verify"
                ? Wire.json([:]) : Wire.json(["data": [], "pagination": ["cursor": nil, "hasMore": false]])
        }
        return (
            ChatbaseClient(agentId: "agent-1", baseURL: Wire.base, transport: transport, identityStore: store),
            transport
        )
    }

    @Test func aSignedInUserAndTheDeviceIdSurviveANewClient() async throws {
        let directory = TemporaryDirectory()
        let (first, firstTransport) = Self.client(FileIdentityStore(directory: directory.url, deviceIdDefaults: nil))
        try await first.identify(token: "jwt-persisted")
        _ = try await first.listConversations()

        let (second, secondTransport) = Self.client(FileIdentityStore(directory: directory.url, deviceIdDefaults: nil))
        #expect(second.isIdentified)
        _ = try await second.listConversations()
        let before = try #require(firstTransport.requests.last)
        let after = try #require(secondTransport.requests.last)
        #expect(after.headers["X-User-Token"] == "jwt-persisted")
        #expect(after.headers["X-Device-Id"] == before.headers["X-Device-Id"])
        #expect(UUID(uuidString: after.headers["X-Device-Id"] ?? "") != nil)
    }

    @Test func filesAreReadableByTheirOwnerOnly() async throws {
        let directory = TemporaryDirectory()
        let store = FileIdentityStore(directory: directory.url.appendingPathComponent("nested"), deviceIdDefaults: nil)
        _ = try store.deviceId()
        try store.setSignedInUser(SignedInUser(token: "jwt", userId: "user-1"))
        #expect(try directory.mode("nested") == 0o700)
        #expect(try directory.mode("nested/device-id") == 0o600)
        #expect(try directory.mode("nested/signed-in-user") == 0o600)
        // Replacing the user keeps the mode; no temporary file is left behind.
        try store.setSignedInUser(SignedInUser(token: "jwt-2"))
        #expect(try directory.mode("nested/signed-in-user") == 0o600)
        let names = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).sorted()
        #expect(names == ["device-id", "signed-in-user"])
        #expect(try store.signedInUser() == SignedInUser(token: "jwt-2"))
    }

    @Test func anOlderFileOthersCouldReadIsMadePrivate() throws {
        let directory = TemporaryDirectory()
        let store = FileIdentityStore(directory: directory.url, deviceIdDefaults: nil)
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let id = "3f2a6c1e-9b4d-4e8f-a1b2-c3d4e5f60718"
        try Data((id + "\n").utf8).write(to: store.deviceIdFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.deviceIdFile.path)
        #expect(try store.deviceId() == id)
        #expect(try directory.mode("device-id") == 0o600)
    }

    @Test func logoutRemovesTheStoredToken() async throws {
        let directory = TemporaryDirectory()
        let store = FileIdentityStore(directory: directory.url, deviceIdDefaults: nil)
        let (client, transport) = Self.client(store)
        try await client.identify(token: "jwt-gone")
        #expect(FileManager.default.fileExists(atPath: store.signedInUserFile.path))
        client.logout()
        #expect(!FileManager.default.fileExists(atPath: store.signedInUserFile.path))
        #expect(try store.signedInUser() == nil)
        _ = try await client.listConversations()
        #expect(transport.requests.last?.headers["X-User-Token"] == nil)

        let (relaunched, relaunchedTransport) = Self.client(
            FileIdentityStore(directory: directory.url, deviceIdDefaults: nil))
        #expect(!relaunched.isIdentified)
        _ = try await relaunched.listConversations()
        #expect(relaunchedTransport.requests.last?.headers["X-User-Token"] == nil)
    }

    @Test func aCorruptDeviceIdIsAClearErrorAndIsNotOverwritten() async throws {
        let directory = TemporaryDirectory()
        let store = FileIdentityStore(directory: directory.url, deviceIdDefaults: nil)
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try Data("not-a-uuid\n".utf8).write(to: store.deviceIdFile)
        let error = try #require(throws: IdentityStoreError.self) { try store.deviceId() }
        #expect(error.kind == .corrupt)
        #expect(error.location == store.deviceIdFile.path)
        #expect(error.description.contains("\"not-a-uuid\" is not a UUID"))
        #expect(error.localizedDescription == error.description)
        #expect(try String(contentsOf: store.deviceIdFile, encoding: .utf8) == "not-a-uuid\n")

        let (client, transport) = Self.client(store)
        let failure = await #expect(throws: ChatError.self) { try await client.listConversations() }
        #expect(failure == .decodingFailed("stored identity: \(error)"))
        #expect(client.deviceId == "")
        #expect(transport.requests.isEmpty)
    }

    /// A device ID file edited by hand: white space and line breaks of any kind around the ID are
    /// not part of it (what `trimmingCharacters(in: .whitespacesAndNewlines)` removes), inside it
    /// they are.
    @Test(arguments: [
        ("A1B2C3D4-E5F6-4789-8ABC-DEF012345678\n", true),
        (" \t A1B2C3D4-E5F6-4789-8ABC-DEF012345678 \r\n\r\n", true),
        ("\u{00A0}\u{2028}A1B2C3D4-E5F6-4789-8ABC-DEF012345678\u{0085}\u{3000}\u{000B}\u{000C}", true),
        ("A1B2C3D4-E5F6-4789-8ABC-DEF0 12345678\n", false),
        ("\u{200B}A1B2C3D4-E5F6-4789-8ABC-DEF012345678\n", false),
        (" \n\t", false),
    ])
    func theDeviceIdFileIsReadWithoutTheWhiteSpaceAroundTheId(_ content: String, _ valid: Bool) throws {
        let directory = TemporaryDirectory()
        let store = FileIdentityStore(directory: directory.url, deviceIdDefaults: nil)
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try Data(content.utf8).write(to: store.deviceIdFile)
        if valid {
            #expect(try store.deviceId() == "A1B2C3D4-E5F6-4789-8ABC-DEF012345678")
        } else {
            let error = try #require(throws: IdentityStoreError.self) { try store.deviceId() }
            #expect(error.kind == .corrupt)
        }
    }

    @Test func aCorruptSignedInUserFailsRequestsUntilLogout() async throws {
        let directory = TemporaryDirectory()
        let store = FileIdentityStore(directory: directory.url, deviceIdDefaults: nil)
        _ = try store.deviceId()
        try Data(#"{"token": "jwt", "userId": 7"#.utf8).write(to: store.signedInUserFile)
        let error = try #require(throws: IdentityStoreError.self) { try store.signedInUser() }
        #expect(error.kind == .corrupt)
        #expect(error.byteOffset != nil)
        #expect(error.description.hasPrefix(store.signedInUserFile.path))

        let (client, transport) = Self.client(store)
        #expect(!client.isIdentified)
        let failure = await #expect(throws: ChatError.self) { try await client.listConversations() }
        #expect(failure == .decodingFailed("stored identity: \(error)"))
        #expect(failure?.localizedDescription.contains("signed-in user") == true)
        #expect(failure?.localizedDescription.contains("at byte \(error.byteOffset ?? -1)") == true)
        #expect(transport.requests.isEmpty)
        client.logout()
        _ = try await client.listConversations()
        #expect(transport.requests.count == 1)
        #expect(!FileManager.default.fileExists(atPath: store.signedInUserFile.path))
    }

    @Test(arguments: [#"{"userId": "u"}"#, #"{"token": "", "userId": null}"#, #"{"token": "t", "userId": 3}"#, "[]"])
    func aSignedInUserWithoutAUsableTokenIsCorrupt(text: String) throws {
        let directory = TemporaryDirectory()
        let store = FileIdentityStore(directory: directory.url, deviceIdDefaults: nil)
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: store.signedInUserFile)
        let error = try #require(throws: IdentityStoreError.self) { try store.signedInUser() }
        #expect(error.kind == .corrupt)
        #expect(error.location == store.signedInUserFile.path)
    }

    @Test func theDeviceIdIsTakenOverFromAnEarlierSDKOnce() throws {
        let directory = TemporaryDirectory()
        let reads = Mutex(0)
        // The Chatbase iOS SDK stores `UUID().uuidString`: upper case, kept exactly.
        let legacy = LegacyDeviceId("test source") {
            reads.withLock { $0 += 1 }
            return "A1B2C3D4-E5F6-4789-8ABC-DEF012345678"
        }
        let empty = LegacyDeviceId("empty source") { nil }
        let store = FileIdentityStore(directory: directory.url, migratingFrom: [empty, legacy], deviceIdDefaults: nil)
        #expect(try store.deviceId() == "A1B2C3D4-E5F6-4789-8ABC-DEF012345678")
        #expect(
            try FileIdentityStore(directory: directory.url, migratingFrom: [legacy], deviceIdDefaults: nil).deviceId()
                == "A1B2C3D4-E5F6-4789-8ABC-DEF012345678")
        #expect(reads.withLock { $0 } == 1)
    }

    @Test func anUnusableLegacyIdIsPassedOver() throws {
        let directory = TemporaryDirectory()
        let store = FileIdentityStore(
            directory: directory.url, migratingFrom: [LegacyDeviceId("junk") { "x\ny" }], deviceIdDefaults: nil)
        let id = try store.deviceId()
        #expect(id != "x\ny")
        #expect(UUID(uuidString: id) != nil)
        #expect(id == id.lowercased())
        #expect(Array(id)[14] == "4")
    }

    @Test func aLegacyFileSourceReadsAnEarlierChatStreamFile() throws {
        let directory = TemporaryDirectory()
        let old = directory.url.appendingPathComponent("old-device-id")
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try Data("5e0c7a8b-1d2f-4a3b-9c4d-5e6f7a8b9c0d\n".utf8).write(to: old)
        let store = FileIdentityStore(
            directory: directory.url.appendingPathComponent("new"), migratingFrom: [.file(old)], deviceIdDefaults: nil)
        #expect(try store.deviceId() == "5e0c7a8b-1d2f-4a3b-9c4d-5e6f7a8b9c0d")
    }

    @Test func clientsStartingTogetherAgreeOnOneDeviceId() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<16 {
                group.addTask { try FileIdentityStore(directory: url, deviceIdDefaults: nil).deviceId() }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        #expect(try FileIdentityStore(directory: url, deviceIdDefaults: nil).deviceId() == ids.first)
    }

    @Test func theUserIdTheServerTellsIsKeptWithTheToken() async throws {
        let directory = TemporaryDirectory()
        let store = FileIdentityStore(directory: directory.url, deviceIdDefaults: nil)
        let transport = FakeTransport { request in
            guard request.route != "verify" else { return Wire.json([:]) }
            var events = Wire.reply("hello", conversationId: "c1")
            events[events.count - 1] = [
                "type": "finish", "finishReason": "stop",
                "messageMetadata": ["conversationId": "c1", "userId": "user-77", "finishReason": "stop"],
            ]
            return Wire.stream(events)
        }
        let client = ChatbaseClient(agentId: "agent-1", baseURL: Wire.base, transport: transport, identityStore: store)
        try await client.identify(token: "jwt-77")
        #expect(try store.signedInUser() == SignedInUser(token: "jwt-77"))
        _ = try await client.send("hi")
        #expect(try store.signedInUser() == SignedInUser(token: "jwt-77", userId: "user-77"))
    }

    @Test func theInMemoryStoreKeepsWhatItIsGiven() throws {
        let store = InMemoryIdentityStore(deviceId: "fixed")
        #expect(try store.deviceId() == "fixed")
        #expect(try store.signedInUser() == nil)
        try store.setSignedInUser(SignedInUser(token: "t"))
        #expect(try store.signedInUser()?.token == "t")
        try store.setSignedInUser(nil)
        #expect(try store.signedInUser() == nil)
    }
}
