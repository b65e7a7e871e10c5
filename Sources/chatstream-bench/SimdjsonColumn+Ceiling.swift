// SimdjsonColumn+Ceiling: `--ceiling-file FORMAT PATH`, the yajl copy ceiling as a whole process
// beside the simdjson program and ChatStream's `--decode-file`: it reads the file in one go, frames
// it in one pass over its lines (JSONUnits, as the simdjson program frames with memchr) and runs
// the copy ceiling (Ceilings.swift: every string, key and number copied into an arena) over each
// unit's JSON. It prints "FORMAT: N JSON units", which the report checks against the payload's count.

import ChatStreamBenchSupport
import Foundation

extension SimdjsonColumn {
    /// Returns the exit status.
    static func ceilingFile(format: String, path: String) -> Int32 {
        guard let bytes = FileManager.default.contents(atPath: path) else {
            print("chatstream-bench: cannot read \(path)")
            return 1
        }
        let ceiling = YajlCeiling(copying: true)
        let units: Int? = bytes.withUnsafeBytes { raw in
            guard let ranges = JSONUnits.ranges(in: raw, format: format) else { return nil }
            blackHole(ceiling.run(raw, ranges))
            return ranges.count
        }
        guard let units else {
            print("chatstream-bench: --ceiling-file does not frame \(format)")
            return 2
        }
        print("\(format): \(units) JSON units")
        return 0
    }
}
