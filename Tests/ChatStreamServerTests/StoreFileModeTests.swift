// The store's files are owner-only (issue 31, deliverable 6): the database and its -wal and -shm
// files are 0600 and a directory the server creates for them is 0700, checked by stat.

import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Store file modes", .blockingAllowed)
struct StoreFileModeTests {
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require((attributes[.posixPermissions] as? NSNumber)?.intValue) & 0o777
    }

    @Test func theDatabaseItsCompanionsAndANewDirectoryAreOwnerOnly() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chatstream-modes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("data").path
        let file = directory + "/store.sqlite"
        let fixture = try APIFixture(dataFile: file)
        _ = try fixture.startConversation("hello")
        #expect(try Self.mode(directory) == 0o700)
        for suffix in ["", "-wal", "-shm"] {
            #expect(FileManager.default.fileExists(atPath: file + suffix), "\(suffix)")
            #expect(try Self.mode(file + suffix) == 0o600, "\(file + suffix)")
        }
    }

    @Test func anExistingWorldReadableDatabaseIsTightened() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chatstream-modes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.path + "/store.sqlite"
        do {
            let first = try APIFixture(dataFile: file)
            _ = try first.startConversation("before")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let fixture = try APIFixture(dataFile: file)
        #expect(try fixture.page(fixture.api("conversations")).items.count == 1)
        #expect(try Self.mode(file) == 0o600)
    }
}
