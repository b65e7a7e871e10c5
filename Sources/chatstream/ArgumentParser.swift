/// A small parser for `--flag value`, `--flag=value`, `--switch` and positional arguments.
struct ArgumentParser {
    struct UsageError: Error {
        var message: String
    }

    private(set) var options: [String: [String]] = [:]
    private(set) var switches: Set<String> = []
    private(set) var positional: [String] = []

    /// Parses `arguments`, knowing which flags take a value and which are switches.
    init(_ arguments: [String], valued: Set<String>, switches known: Set<String>) throws {
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
            if valued.contains(name) {
                if value == nil {
                    guard index < arguments.count else { throw UsageError(message: "--\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                options[name, default: []].append(value!)
            } else if known.contains(name), value == nil {
                switches.insert(name)
            } else {
                throw UsageError(message: "unknown option --\(name)")
            }
        }
    }

    /// The last value of `--name`.
    func value(_ name: String) -> String? { options[name]?.last }

    /// Every value of a repeatable `--name`.
    func values(_ name: String) -> [String] { options[name] ?? [] }

    func has(_ name: String) -> Bool { switches.contains(name) }
}
