// Issue 31, deliverable 6: the server refuses to start on a damaged database or write-ahead log,
// saying why, unless told to recover (then the damaged files are moved aside and a new store starts).
// A log cut short by a crash (a transaction that never committed) is not damage.

import ChatStreamSQLite
import Foundation
import TestSupport
import Testing

@testable import ChatStreamServer

@Suite("Refusing a damaged database", .blockingAllowed)
struct StoreDamageTests {
    /// A database at `directory/name` with `count` conversations whose commits are still in its
    /// write-ahead log: the files copied while the store is open, as a crash would leave them.
    /// (Without the checkpointer's thread, which could copy the last commit into the database
    /// file before the copy: the test of a cut log then read 5 conversations, not 4.)
    static func loggedStore(in directory: URL, _ name: String, count: Int) throws -> String {
        let source = directory.appendingPathComponent("source-\(name)").path
        let copy = directory.appendingPathComponent(name).path
        let store = try ConversationStore(path: source, checkpointInterval: nil)
        for index in 0..<count {
            try store.write { store in
                _ = try store.createConversation(
                    id: "c\(index)", title: "title \(index)", for: Caller(deviceId: "device-a"), now: index)
            }
        }
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: source + suffix, toPath: copy + suffix) }
        _ = store
        return copy
    }

    static func configuration(_ file: String, recover: Bool = false) -> ChatAPIServer.Configuration {
        StoreOpenTests.configuration(file, recover: recover)
    }

    @Test func anIntactLogOpensWithEveryCommit() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Self.loggedStore(in: directory, "intact.sqlite", count: 5)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file + "-wal")).count > 32)
        #expect(StoreDamage.problem(at: file) == nil)
        let store = try ConversationStore(path: file)
        #expect(try store.read { try $0.conversationCount() } == 5)
        #expect(store.movedAside.isEmpty)
    }

    @Test func aLogCutInItsLastTransactionIsACrashNotDamage() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Self.loggedStore(in: directory, "torn.sqlite", count: 5)
        let log = try Data(contentsOf: URL(fileURLWithPath: file + "-wal"))
        try log.prefix(log.count - 100).write(to: URL(fileURLWithPath: file + "-wal"))
        #expect(StoreDamage.problem(at: file) == nil)
        let store = try ConversationStore(path: file)
        #expect(try store.read { try $0.conversationCount() } == 4)
    }

    @Test func aDamagedLogIsRefusedWithTheReasonAndMovedAsideOnRecover() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Self.loggedStore(in: directory, "damaged.sqlite", count: 5)
        var log = try Data(contentsOf: URL(fileURLWithPath: file + "-wal"))
        log[32 + 24 + 100] ^= 0x5A  // a byte of the first frame's page
        try log.write(to: URL(fileURLWithPath: file + "-wal"))
        let server = ChatAPIServer(configuration: Self.configuration(file))
        let error = #expect(throws: StoreOpenError.self) { try server.start() }
        guard case .damaged(let path, let reason) = error else {
            Issue.record("expected a damaged-file error, got \(String(describing: error))")
            return
        }
        #expect(path == file)
        #expect(reason.contains("frame 0") && reason.contains("checksum"))
        #expect(error?.description.contains("--recover") == true)
        // Refusing touched nothing.
        #expect(try Data(contentsOf: URL(fileURLWithPath: file + "-wal")) == log)

        let recovering = ChatAPIServer(configuration: Self.configuration(file, recover: true))
        try recovering.start()
        defer { recovering.stop() }
        let moved = recovering.movedAsideFiles
        #expect(moved.count == 2)
        #expect(moved.allSatisfy { $0.hasPrefix(file + ".damaged-") && FileManager.default.fileExists(atPath: $0) })
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved[1])) == log)
        #expect(recovering.conversationCount == 0)
    }

    @Test func aDamagedLogHeaderIsRefused() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Self.loggedStore(in: directory, "header.sqlite", count: 2)
        var log = try Data(contentsOf: URL(fileURLWithPath: file + "-wal"))
        log[17] ^= 0x01  // a salt: SQLite would ignore the whole log
        try log.write(to: URL(fileURLWithPath: file + "-wal"))
        let error = #expect(throws: StoreOpenError.self) { try ConversationStore(path: file) }
        #expect(error?.description.contains("header fails its checksum") == true)
    }

    @Test func damagedPagesAreRefusedAndMovedAsideOnRecover() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("pages.sqlite").path
        do {
            let store = try ConversationStore(path: file)
            for index in 0..<200 {
                try store.write { store in
                    _ = try store.createConversation(
                        id: "c\(index)", title: String(repeating: "t", count: 300), for: Caller(deviceId: "d"),
                        now: index)
                }
            }
        }
        #expect(!FileManager.default.fileExists(atPath: file + "-wal"))
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.seek(toOffset: 4096 * 2)
        handle.write(Data(repeating: 0xA5, count: 4096))
        try handle.close()
        let error = #expect(throws: StoreOpenError.self) { try ConversationStore(path: file) }
        guard case .damaged(let path, _) = error else {
            Issue.record("expected a damaged-file error, got \(String(describing: error))")
            return
        }
        #expect(path == file)
        let store = try ConversationStore(path: file, recover: true)
        #expect(store.movedAside.count == 1)
        #expect(try store.read { try $0.conversationCount() } == 0)
    }

    @Test func aFileThatIsNeitherSQLiteNorJSONIsRefused() throws {
        let directory = try SQLiteStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("garbage.sqlite").path
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }).write(to: URL(fileURLWithPath: file))
        let error = #expect(throws: StoreOpenError.self) { try ConversationStore(path: file) }
        #expect(error?.description.contains("neither a SQLite database nor a JSON data file") == true)
    }
}
