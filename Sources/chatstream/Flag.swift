/// One `--name` a command accepts: a switch, or a flag that takes a value (shown as `placeholder`).
///
/// A command lists its flags once; the parser and the usage text both read that list.
struct Flag: Sendable, Hashable {
    /// The name without the leading `--`.
    let name: String
    /// What the value looks like in the usage text (`N`, `URL`, `asc|desc`); nil for a switch.
    let placeholder: String?
    /// Whether the flag may be given more than once (every value is kept).
    let repeatable: Bool

    /// A flag that takes a value.
    static func value(_ name: String, _ placeholder: String, repeatable: Bool = false) -> Flag {
        Flag(name: name, placeholder: placeholder, repeatable: repeatable)
    }

    /// A flag without a value.
    static func `switch`(_ name: String) -> Flag {
        Flag(name: name, placeholder: nil, repeatable: false)
    }

    /// How the flag reads in a usage line: `[--limit N]`, `[--tag T]...`, `[--json]`.
    var synopsis: String {
        let body = placeholder.map { "--\(name) \($0)" } ?? "--\(name)"
        return "[\(body)]" + (repeatable ? "..." : "")
    }

    // The flags several commands share.

    /// `--base-url URL`: the server a client command talks to (none: the embedded local server).
    static let baseURL = Flag.value("base-url", "URL")
    /// `--agent ID`: the agent a client command talks to.
    static let agent = Flag.value("agent", "ID")
    /// `--json`: one JSON object per line instead of the readable form.
    static let json = Flag.switch("json")
}
