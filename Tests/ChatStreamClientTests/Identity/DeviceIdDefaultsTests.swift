// The device ID under the Chatbase SDK's UserDefaults key, on every platform: each test has a
// defaults suite of its own (removed at the end) standing for the app's standard defaults.

import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamClient

/// A `UserDefaults` suite of the test's own, removed at the end.
struct TemporaryDefaults: ~Copyable {
    let name = "chatstream-tests-\(UUID().uuidString)"
    var defaults: UserDefaults { UserDefaults(suiteName: name)! }
    /// The SDK's key in this suite.
    var key: DeviceIdDefaults { DeviceIdDefaults(suiteName: name) }
    deinit { UserDefaults(suiteName: name)?.removePersistentDomain(forName: name) }
}

@Suite(.blockingAllowed) struct DeviceIdDefaultsTests {
    static let sdkKey = "com.chatbase.sdk.deviceId"

    @Test func theDefaultStoresKeepTheChatbaseKey() {
        #expect(DeviceIdDefaults.chatbaseSDK == DeviceIdDefaults(suiteName: nil, key: Self.sdkKey))
        #expect(FileIdentityStore().deviceIdDefaults == .chatbaseSDK)
        #if !canImport(Security)
            #expect((ChatStreamPaths.defaultIdentityStore as? FileIdentityStore)?.deviceIdDefaults == .chatbaseSDK)
        #endif
    }

    @Test func anAppSwitchingFromTheSDKKeepsItsDevice() async throws {
        let suite = TemporaryDefaults()
        let directory = TemporaryDirectory()
        // What the Chatbase SDK left behind.
        let sdkId = UUID().uuidString
        suite.defaults.set(sdkId, forKey: Self.sdkKey)
        let store = FileIdentityStore(directory: directory.url, deviceIdDefaults: suite.key)
        #expect(try store.deviceId() == sdkId)
        // The file copy is made, the key left as it was.
        #expect(try String(contentsOf: store.deviceIdFile, encoding: .utf8) == sdkId + "\n")
        #expect(suite.defaults.string(forKey: Self.sdkKey) == sdkId)

        let (client, transport) = FileIdentityStoreTests.client(store)
        _ = try await client.listConversations()
        #expect(transport.requests.first?.headers["X-Device-Id"] == sdkId)
    }

    @Test func aNewDeviceIdIsMadeAsTheSDKMakesItAndKeptUnderItsKey() throws {
        let suite = TemporaryDefaults()
        let directory = TemporaryDirectory()
        let id = try FileIdentityStore(directory: directory.url, deviceIdDefaults: suite.key).deviceId()
        #expect(UUID(uuidString: id)?.uuidString == id)  // UUID().uuidString's form
        #expect(suite.defaults.string(forKey: Self.sdkKey) == id)
        #expect(try FileIdentityStore(directory: directory.url, deviceIdDefaults: nil).deviceId() == id)
    }

    @Test func anIdOnlyInTheFileIsWrittenUnderTheKeySoTheSDKFindsIt() throws {
        let suite = TemporaryDefaults()
        let directory = TemporaryDirectory()
        let earlier = try FileIdentityStore(directory: directory.url, deviceIdDefaults: nil).deviceId()
        #expect(suite.defaults.string(forKey: Self.sdkKey) == nil)
        #expect(try FileIdentityStore(directory: directory.url, deviceIdDefaults: suite.key).deviceId() == earlier)
        #expect(suite.defaults.string(forKey: Self.sdkKey) == earlier)
    }

    @Test func theKeyWinsOverADifferentCopyWhichFollowsIt() throws {
        let suite = TemporaryDefaults()
        let directory = TemporaryDirectory()
        let copy = try FileIdentityStore(directory: directory.url, deviceIdDefaults: nil).deviceId()
        let key = UUID().uuidString
        suite.defaults.set(key, forKey: Self.sdkKey)
        let store = FileIdentityStore(directory: directory.url, deviceIdDefaults: suite.key)
        #expect(copy != key)
        #expect(try store.deviceId() == key)
        #expect(try FileIdentityStore(directory: directory.url, deviceIdDefaults: nil).deviceId() == key)
    }

    @Test func aValueUnderTheKeyThatIsNoUUIDIsReplaced() throws {
        let suite = TemporaryDefaults()
        let directory = TemporaryDirectory()
        suite.defaults.set("not a device", forKey: Self.sdkKey)
        let id = try FileIdentityStore(directory: directory.url, deviceIdDefaults: suite.key).deviceId()
        #expect(UUID(uuidString: id) != nil)
        #expect(suite.defaults.string(forKey: Self.sdkKey) == id)
    }

    @Test func aDamagedCopyIsLeftUntouchedWhenTheKeyHoldsTheId() throws {
        let suite = TemporaryDefaults()
        let directory = TemporaryDirectory()
        let key = UUID().uuidString
        suite.defaults.set(key, forKey: Self.sdkKey)
        let store = FileIdentityStore(directory: directory.url, deviceIdDefaults: suite.key)
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        try Data("garbage".utf8).write(to: store.deviceIdFile)
        #expect(try store.deviceId() == key)
        #expect(try String(contentsOf: store.deviceIdFile, encoding: .utf8) == "garbage")
    }
}
