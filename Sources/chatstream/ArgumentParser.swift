/// A small parser for `--flag value`, `--flag=value`, `--switch` and positional arguments,
/// driven by a command's ``Flag`` list.
struct ArgumentParser: Sendable {
    /// A malformed command line: printed with the command's usage, exit status 2.
    struct UsageError: Error {
        var message: String
    }

    private(set) var options: [String: [String]] = [:]
    private(set) var switches: Set<String> = []
    private(set) var positional: [String] = []

    /// Parses `arguments` against `flags`; `command` names the command in errors.
    init(_ arguments: [String], flags: [Flag], command: String) throws {
        let known = Dictionary(flags.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var index = 0
        var onlyPositional = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositional || argument == "-" || !argument.hasPrefix("--") {
                positional.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            var name = String(argument.dropFirst(2))
            var value: String? = nil
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let flag = known[name] else {
                throw UsageError(message: "\(command) does not take --\(name)")
            }
            if flag.placeholder != nil {
                if value == nil {
                    guard index < arguments.count else { throw UsageError(message: "--\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                options[name, default: []].append(value!)
            } else {
                guard value == nil else { throw UsageError(message: "--\(name) takes no value") }
                switches.insert(name)
            }
        }
    }

    /// The last value of `--name`.
    func value(_ name: String) -> String? { options[name]?.last }

    /// Every value of a repeatable `--name`.
    func values(_ name: String) -> [String] { options[name] ?? [] }

    /// Whether the switch `--name` was given.
    func has(_ name: String) -> Bool { switches.contains(name) }

    /// A usage error unless there are exactly `count` non-empty positional arguments.
    func expectPositional(_ count: Int, _ what: String, command: String) throws {
        guard positional.count == count, positional.allSatisfy({ !$0.isEmpty }) else {
            throw UsageError(message: "\(command) needs \(what)")
        }
    }
}
