// ChoiceTexts: `replay --output text` for a reply with several choices (OpenAI `n > 1`).
//
// The choices' deltas arrive interleaved. Printed as they come they would mix into one unreadable
// text, so choice 0 (the only one of most replies) is printed live as before, and the text of
// every other choice is held and printed after it, in choice order, each after a `[choice N]`
// line. Memory grows only with the text of the choices after the first.

import ChatStream

/// Follows the events of a reply: choice 0's text deltas to print now, the others' text held.
struct ChoiceTexts {
    private var current = 0
    private var others: [Int: String] = [:]

    /// The text to print now for `event`, if any; another choice's text is held.
    mutating func apply(_ event: StreamEvent) -> String? {
        switch event {
        case .choice(let index):
            current = index
        case .messageStart:
            current = 0
        case .textDelta(_, let delta):
            if current == 0 { return delta }
            others[current, default: ""] += delta
        default:
            break
        }
        return nil
    }

    /// The held text of the choices after the first, in choice order (choices without text left out).
    var held: [(choice: Int, text: String)] {
        others.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
