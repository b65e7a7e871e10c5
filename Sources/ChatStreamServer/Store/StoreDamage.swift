// StoreDamage: finds a damaged database before the server starts on it, and moves damaged files
// aside when told to recover.
//
// SQLite reads past some damage without a word: a write-ahead log whose header or a frame fails its
// checksum is cut at that point, so the server would start on older data and lose every commit
// after it. So before SQLite opens the file, the log is walked the way SQLite replays it (the
// header's checksum, then each frame's salts and cumulative checksum); a frame that fails while a
// later frame of the same log generation marks a commit means acknowledged commits would be
// dropped. A torn tail (frames of a transaction that never committed, or stale frames of an earlier
// generation) is what a crash leaves and is not damage. The database pages themselves are checked
// by `PRAGMA quick_check` when SQLite opens the file (SQLiteDatabase), and a file that is neither
// SQLite nor the earlier JSON format is refused here.

import Foundation

/// Checks a database file and its write-ahead log, and moves them aside on `--recover`.
enum StoreDamage {
    /// Why the file at `path` (or its `-wal`) cannot be trusted, or nil when nothing was found.
    static func problem(at path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        let database = (try? handle.read(upToCount: 64)) ?? Data()
        try? handle.close()
        guard !database.isEmpty else { return nil }
        let sqliteHeader = Array("SQLite format 3\0".utf8)
        if database.count >= 16, Array(database.prefix(16)) != sqliteHeader {
            // Not SQLite: only a JSON document of the earlier format (imported at start) is expected.
            let first = database.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
            if first != UInt8(ascii: "{") { return "the file is neither a SQLite database nor a JSON data file" }
        }
        guard let log = FileManager.default.contents(atPath: path + "-wal") else { return nil }
        return logProblem([UInt8](log))
    }

    /// Why a write-ahead log's content would make SQLite drop committed transactions, or nil.
    static func logProblem(_ log: [UInt8]) -> String? {
        guard !log.isEmpty else { return nil }
        guard log.count >= 32 else { return "the write-ahead log is \(log.count) bytes, shorter than its header" }
        let magic = word(log, 0)
        guard magic == 0x377f_0682 || magic == 0x377f_0683 else {
            return "the write-ahead log's header is damaged (bad magic number)"
        }
        let bigEndian = magic & 1 == 1
        var sums = Checksum()
        sums.add(log, 0, 24, bigEndian: bigEndian)
        guard sums.s0 == word(log, 24), sums.s1 == word(log, 28) else {
            return "the write-ahead log's header fails its checksum"
        }
        let pageSize = Int(word(log, 8))
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            return "the write-ahead log's header names an impossible page size \(pageSize)"
        }
        let salts = (word(log, 16), word(log, 20))
        let frameSize = 24 + pageSize
        var offset = 32
        var frame = 0
        // Replay: frames whose salts and cumulative checksum hold.
        while offset + frameSize <= log.count {
            guard word(log, offset + 8) == salts.0, word(log, offset + 12) == salts.1 else { return nil }
            var next = sums
            next.add(log, offset, 8, bigEndian: bigEndian)
            next.add(log, offset + 24, pageSize, bigEndian: bigEndian)
            guard next.s0 == word(log, offset + 16), next.s1 == word(log, offset + 20) else { break }
            sums = next
            offset += frameSize
            frame += 1
        }
        let failed = frame
        // A commit of this generation after the failed frame would be lost with it.
        var later = offset + frameSize
        while later + frameSize <= log.count {
            if word(log, later + 8) == salts.0, word(log, later + 12) == salts.1, word(log, later + 4) != 0 {
                return "the write-ahead log's frame \(failed) (byte \(32 + failed * frameSize)) fails its checksum, "
                    + "and the commits logged after it would be lost"
            }
            later += frameSize
        }
        return nil
    }

    /// Moves the database at `path` and its `-wal` and `-shm` files aside to
    /// `<path>.damaged-<UTC time>` (with the same suffixes); returns the new paths.
    static func moveAside(_ path: String, now: Date = Date()) throws -> [String] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var base = "\(path).damaged-\(formatter.string(from: now))"
        var attempt = 1
        while FileManager.default.fileExists(atPath: base) {
            attempt += 1
            base = "\(path).damaged-\(formatter.string(from: now))-\(attempt)"
        }
        var moved: [String] = []
        for suffix in StoreFiles.companions where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.moveItem(atPath: path + suffix, toPath: base + suffix)
            moved.append(base + suffix)
        }
        return moved
    }

    private static func word(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    /// SQLite's log checksum: pairs of 32-bit words, in the byte order the log's magic names.
    private struct Checksum {
        var s0: UInt32 = 0
        var s1: UInt32 = 0

        mutating func add(_ bytes: [UInt8], _ start: Int, _ count: Int, bigEndian: Bool) {
            var index = start
            let end = start + count
            bytes.withUnsafeBufferPointer { buffer in
                while index + 8 <= end {
                    let x0 = Self.load(buffer, index, bigEndian)
                    let x1 = Self.load(buffer, index + 4, bigEndian)
                    s0 = s0 &+ x0 &+ s1
                    s1 = s1 &+ x1 &+ s0
                    index += 8
                }
            }
        }

        private static func load(_ buffer: UnsafeBufferPointer<UInt8>, _ offset: Int, _ bigEndian: Bool) -> UInt32 {
            let b0 = UInt32(buffer[offset])
            let b1 = UInt32(buffer[offset + 1])
            let b2 = UInt32(buffer[offset + 2])
            let b3 = UInt32(buffer[offset + 3])
            return bigEndian ? b0 << 24 | b1 << 16 | b2 << 8 | b3 : b3 << 24 | b2 << 16 | b1 << 8 | b0
        }
    }
}
