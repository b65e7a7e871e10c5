// CallgrindTotals: the instruction total of a callgrind out file.
//
// callgrind writes the whole run's cost twice: a `summary:` line in the header and a `totals:`
// line at the end, one number per event (the first is `Ir`, instructions executed, unless
// `--collect` or `--dump-instr` asked for others first). The report reads `totals:` and falls back
// on `summary:` (a file cut short before its end has only the header).

/// Reads the instruction count from the text of a callgrind out file.
package enum CallgrindTotals {
    /// The first event's total (`totals:`, else `summary:`), or nil when the text has neither line
    /// or its first field is not a number.
    package static func instructions(in text: String) -> UInt64? {
        var summary: UInt64? = nil
        var totals: UInt64? = nil
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("totals:") {
                totals = firstNumber(line.dropFirst("totals:".count))
            } else if line.hasPrefix("summary:") {
                summary = firstNumber(line.dropFirst("summary:".count))
            }
        }
        return totals ?? summary
    }

    /// Which event the file counts first (`events: Ir ...`), or nil without an `events:` line.
    package static func firstEvent(in text: String) -> String? {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) where line.hasPrefix("events:") {
            return line.dropFirst("events:".count).split(separator: " ").first.map(String.init)
        }
        return nil
    }

    private static func firstNumber(_ fields: Substring) -> UInt64? {
        fields.split(separator: " ").first.flatMap { UInt64($0) }
    }
}
