// CarriedErrors: the errors a stream carries, followed event by event without assembling the
// messages, so `replay --output events|text|none` decides its exit status in memory that does not
// grow with the reply.

import ChatStream

/// Per choice, the last `error` event: what ``MessageAssembler`` records on that choice's message.
struct CarriedErrors {
    private var current = 0
    private var errors: [Int: StreamErrorInfo] = [:]

    /// Follows one event.
    mutating func apply(_ event: StreamEvent) {
        switch event {
        case .choice(let index): current = index
        case .error(let info): errors[current] = info
        default: break
        }
    }

    /// The error of the first choice (in choice order) that carries one.
    var first: StreamErrorInfo? {
        errors.min { $0.key < $1.key }?.value
    }
}
