// Command: one entry of the CLI's command table (CommandTable.swift).
//
// A command states its contract once: its name, its operands, its flags and what it does. The
// parser checks the command line against that list, and the usage text (`chatstream help`, and
// the text a usage error prints) is generated from it, so the two cannot drift apart.

/// One `chatstream` command: its contract and the code that runs it.
struct Command: Sendable {
    /// The word after `chatstream`.
    let name: String
    /// The positional arguments as the usage shows them (`FILE|-`, `ID TAG...`); empty for none.
    let operands: String
    /// Every flag the command accepts, in the order the usage lists them.
    let flags: [Flag]
    /// What the command does, one line or more (shown under its usage in `help`).
    let summary: [String]
    /// Runs the command on its parsed arguments and returns the exit status. A thrown
    /// ``ArgumentParser/UsageError`` prints the usage (exit 2); any other error is reported as
    /// `error: ...` (exit 1).
    let run: @Sendable (ArgumentParser) async throws -> Int32
    /// The same code when it needs no concurrency (`replay`): `main` then runs it before the
    /// concurrency runtime starts its threads, so a short command starts like a C tool.
    let runSynchronously: (@Sendable (ArgumentParser) throws -> Int32)?

    init(
        _ name: String, operands: String = "", flags: [Flag], summary: String...,
        run: @escaping @Sendable (ArgumentParser) async throws -> Int32
    ) {
        self.init(name, operands, flags, summary, run, nil)
    }

    /// A command whose code is synchronous (it blocks on its own reads).
    init(
        _ name: String, operands: String = "", flags: [Flag], summary: String...,
        synchronous run: @escaping @Sendable (ArgumentParser) throws -> Int32
    ) {
        self.init(name, operands, flags, summary, { try run($0) }, run)
    }

    private init(
        _ name: String, _ operands: String, _ flags: [Flag], _ summary: [String],
        _ run: @escaping @Sendable (ArgumentParser) async throws -> Int32,
        _ runSynchronously: (@Sendable (ArgumentParser) throws -> Int32)?
    ) {
        self.name = name
        self.operands = operands
        self.flags = flags
        self.summary = summary
        self.run = run
        self.runSynchronously = runSynchronously
    }

    /// `name OPERANDS [--flag X]...`, wrapped to `width` columns; later lines are indented by `indent`.
    func synopsis(width: Int = 110, indent: Int) -> String {
        var lines: [String] = []
        var line = operands.isEmpty ? name : name + " " + operands
        let pad = String(repeating: " ", count: indent + name.count + 1)
        for flag in flags.map(\.synopsis) {
            if indent + line.count + 1 + flag.count > width, line != pad.dropLast() {
                lines.append(line)
                line = String(pad.dropFirst(indent)) + flag
            } else {
                line += " " + flag
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n" + String(repeating: " ", count: indent))
    }

    /// The text a usage error of this command prints after its message.
    var usage: String {
        "usage: chatstream " + synopsis(indent: "usage: chatstream ".count) + "\n"
    }

    /// Parses `arguments` and runs the command, mapping errors to the exit-status contract.
    func callAsFunction(_ arguments: [String]) async -> Int32 {
        do {
            let parsed = try ArgumentParser(arguments, flags: flags, command: name)
            return try await run(parsed)
        } catch {
            return report(error)
        }
    }

    /// Runs a synchronous command on the calling thread; nil when the command is asynchronous.
    func runOnThisThread(_ arguments: [String]) -> Int32? {
        guard let runSynchronously else { return nil }
        do {
            return try runSynchronously(try ArgumentParser(arguments, flags: flags, command: name))
        } catch {
            return report(error)
        }
    }

    /// A usage error prints the usage (exit 2); any other error is reported as `error: ...`.
    private func report(_ error: any Error) -> Int32 {
        if let error = error as? ArgumentParser.UsageError {
            Output.standardError("error: \(error.message)\n" + usage)
            return 2
        }
        return ClientSupport.report(error)
    }
}
