// `chatstream serve`: runs the local Chatbase-compatible ChatAPIServer until SIGINT or SIGTERM.
//
// The signals are blocked before the server starts (its threads inherit the mask) and the main
// thread waits for them with sigwait, so shutdown runs in ordinary code, not in a signal handler.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import ChatStreamServer

/// `chatstream serve [--host H] [--port P] [--agent ID] [--data FILE] [--delay-ms N] [--chunk-size N]
/// [--drop-after N] [--fail-status CODE] [--no-extensions]`.
enum ServeCommand {
    static let usage = """
        usage: chatstream serve [--host 127.0.0.1] [--port 8787] [--agent ID] [--data FILE] [--delay-ms N]
                                [--chunk-size N] [--drop-after N] [--fail-status CODE] [--no-extensions]

        """

    static func run(_ arguments: [String]) -> Int32 {
        let configuration: ChatAPIServer.Configuration
        do {
            configuration = try parse(arguments)
        } catch let error as ArgumentParser.UsageError {
            Output.standardError("error: \(error.message)\n" + usage)
            return 2
        } catch {
            Output.standardError("error: \(error)\n" + usage)
            return 2
        }
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let server = ChatAPIServer(configuration: configuration)
        do {
            try server.start()
        } catch {
            Output.standardError("error: cannot start the server: \(error)\n")
            return 1
        }
        Output.standardError(
            "listening on http://\(configuration.host):\(server.port) (agent \(configuration.agentId))\n")
        var received: Int32 = 0
        sigwait(&signals, &received)
        server.stop()
        return 0
    }

    /// The server configuration the flags ask for; throws a usage error for unknown or malformed flags.
    static func parse(_ arguments: [String]) throws -> ChatAPIServer.Configuration {
        let parser = try ArgumentParser(
            arguments,
            valued: ["host", "port", "agent", "data", "delay-ms", "chunk-size", "drop-after", "fail-status"],
            switches: ["no-extensions"])
        guard parser.positional.isEmpty else {
            throw ArgumentParser.UsageError(message: "unexpected argument \"\(parser.positional[0])\"")
        }
        func number(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let text = parser.value(name) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw ArgumentParser.UsageError(message: "--\(name) needs a number in \(range), got \"\(text)\"")
            }
            return value
        }
        var configuration = ChatAPIServer.Configuration()
        if let host = parser.value("host") {
            guard !host.isEmpty else { throw ArgumentParser.UsageError(message: "--host needs a value") }
            configuration.host = host
        }
        if let port = try number("port", 0...65535) { configuration.port = UInt16(port) }
        if let agent = parser.value("agent") {
            guard !agent.isEmpty else { throw ArgumentParser.UsageError(message: "--agent needs a value") }
            configuration.agentId = agent
        }
        configuration.dataFile = parser.value("data")
        if let delay = try number("delay-ms", 0...60_000) { configuration.replyDelay = .milliseconds(delay) }
        configuration.fault.chunkSize = try number("chunk-size", 1...1 << 20)
        configuration.fault.dropAfterBytes = try number("drop-after", 0...Int(Int32.max))
        configuration.fault.status = try number("fail-status", 400...599)
        configuration.extensionsEnabled = !parser.has("no-extensions")
        return configuration
    }
}
