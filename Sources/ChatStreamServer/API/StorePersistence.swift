// StorePersistence: the data file of `chatstream serve --data FILE`.
//
// The whole state is one JSON document. A save writes a temporary file beside the target and
// renames it over the target, so a crash leaves either the old or the new state, never half of one.

import ChatStream
import Foundation

/// Loads and saves a ``StoreState`` as JSON at a path.
struct StorePersistence: Sendable {
    let path: String

    /// The saved state, or an empty one when the file does not exist.
    func load() throws -> StoreState {
        guard FileManager.default.fileExists(atPath: path) else { return StoreState() }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try JSONDecoder().decode(StoreState.self, from: data)
    }

    /// Writes `state` atomically (temporary file + rename). Failures are reported on stderr.
    func save(_ state: StoreState) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(state)
            let temporary = path + ".tmp-\(getpid())"
            try data.write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: reason])
            }
        } catch {
            FileHandle.standardError.write(Data("chatstream: cannot save \(path): \(error)\n".utf8))
        }
    }
}
