// LiveEventWarnings: the events-table rows the server could not read back, counted and reported
// once each on standard error, so a damaged row is skipped without stalling subscribers and
// without going unnoticed.

import Foundation
import Synchronization

/// Counts the live-event rows skipped because they no longer parse.
enum LiveEventWarnings {
    private static let skipped = Mutex<(count: Int, reported: Set<Int>)>((0, []))

    /// How many times a subscriber's read skipped an unreadable row since the process started.
    static var unreadableRowCount: Int { skipped.withLock { $0.count } }

    /// Counts one skipped row; the first time a row is skipped, says so on standard error.
    static func unreadableRow(id: Int, type: String) {
        let first = skipped.withLock { state in
            state.count += 1
            return state.reported.count < 1_000 && state.reported.insert(id).inserted
        }
        guard first else { return }
        FileHandle.standardError.write(
            Data("warning: live event \(id) (\(type)) in the events table is not valid JSON; skipped\n".utf8))
    }
}
