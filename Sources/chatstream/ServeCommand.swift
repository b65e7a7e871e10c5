// `chatstream serve`: runs the local Chatbase-compatible ChatAPIServer until SIGINT or SIGTERM.
//
// The command awaits SIGINT or SIGTERM (TerminationSignal), then stops the server in ordinary
// code, not in a signal handler.

import ChatStream
import ChatStreamServer
import Foundation

enum ServeCommand {
    static let command = Command(
        "serve",
        flags: [
            .value("host", "127.0.0.1"), .value("port", "8787"), .value("agent", "ID"), .value("data", "FILE"),
            .value("agent-config", "FILE"), .value("delay-ms", "N"), .value("chunk-size", "N"),
            .value("drop-after", "N"),
            .value("fail-status", "CODE"), .value("events-drop-every", "N"), .switch("allow-fault-header"),
            .value("jwt-secret", "SECRET"), .value("jwt-secret-file", "PATH"), .value("max-connections", "N"),
            .value("max-connections-per-address", "N"), .value("max-connections-per-network", "N"),
            .value("max-streams", "N"), .value("max-streams-per-address", "N"), .value("max-streams-per-network", "N"),
            .value("store-budget-mib", "N"),
            .switch("no-extensions"), .switch("no-resume"), .switch("recover"),
        ],
        summary: "run the local Chatbase-compatible server until SIGINT/SIGTERM (fault flags for testing clients)",
        "caps: --max-connections* bound request connections (each has a thread; per address, per /24 or /64",
        "network, and in all); live event streams hold no thread after their head and have their own caps,",
        "--max-streams* (defaults 128 per address, 512 per network, 16,384 in all); over a cap: 503 Retry-After",
        run: run)

    @Sendable static func run(_ parsed: ArgumentParser) async throws -> Int32 {
        let configuration = try configuration(parsed)
        let termination = TerminationSignal()
        let server = ChatAPIServer(configuration: configuration)
        do {
            try server.start()
        } catch {
            Output.standardError("error: cannot start the server: \(error)\n")
            return 1
        }
        if !server.movedAsideFiles.isEmpty {
            Output.standardError(
                "warning: the data file was damaged; moved it aside to \(server.movedAsideFiles.joined(separator: ", ")) "
                    + "and started an empty store\n")
        }
        Output.standardError(
            "listening on http://\(configuration.host):\(server.port) (\(agentSummary(configuration)))\n")
        await termination.wait()
        server.stop()
        return 0
    }

    /// The server configuration the flags ask for; throws a usage error for malformed values.
    static func configuration(_ parsed: ArgumentParser) throws -> ChatAPIServer.Configuration {
        guard parsed.positional.isEmpty else {
            throw ArgumentParser.UsageError(message: "unexpected argument \"\(parsed.positional[0])\"")
        }
        func number(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let text = parsed.value(name) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw ArgumentParser.UsageError(message: "--\(name) needs a number in \(range), got \"\(text)\"")
            }
            return value
        }
        var configuration = ChatAPIServer.Configuration()
        if let host = parsed.value("host") {
            guard !host.isEmpty else { throw ArgumentParser.UsageError(message: "--host needs a value") }
            configuration.host = host
        }
        if let port = try number("port", 0...65535) { configuration.port = UInt16(port) }
        if let agent = parsed.value("agent") {
            guard !agent.isEmpty else { throw ArgumentParser.UsageError(message: "--agent needs a value") }
            configuration.agentId = agent
        }
        configuration.dataFile = parsed.value("data")
        if let path = parsed.value("agent-config") {
            do {
                configuration.agents = try AgentDefinition.load(contentsOf: path)
            } catch {
                throw ArgumentParser.UsageError(message: "--agent-config: \(error)")
            }
        }
        if let delay = try number("delay-ms", 0...60_000) { configuration.replyDelay = .milliseconds(delay) }
        configuration.fault.chunkSize = try number("chunk-size", 1...1 << 20)
        configuration.fault.dropAfterBytes = try number("drop-after", 0...Int(Int32.max))
        configuration.fault.status = try number("fail-status", 400...599)
        configuration.liveEvents.dropEvery = try number("events-drop-every", 1...Int(Int32.max))
        configuration.extensionsEnabled = !parsed.has("no-extensions")
        configuration.resumableReplies = !parsed.has("no-resume")
        configuration.recover = parsed.has("recover")
        configuration.jwtSecret = try jwtSecret(parsed, environment: ProcessInfo.processInfo.environment)
        if let cap = try number("max-connections", 1...65_536) { configuration.http.maxConnections = cap }
        if let cap = try number("max-connections-per-address", 1...65_536) {
            configuration.http.maxConnectionsPerAddress = cap
        }
        if let cap = try number("max-connections-per-network", 1...65_536) {
            configuration.http.maxConnectionsPerNetwork = cap
        }
        if let cap = try number("max-streams", 1...1 << 20) { configuration.http.maxStreams = cap }
        if let cap = try number("max-streams-per-address", 1...1 << 20) {
            configuration.http.maxStreamsPerAddress = cap
        }
        if let cap = try number("max-streams-per-network", 1...1 << 20) {
            configuration.http.maxStreamsPerNetwork = cap
        }
        if let budget = try number("store-budget-mib", 0...(1 << 30)) {
            configuration.quotas.storeBudgetBytes = budget == 0 ? nil : budget << 20
        }
        // The fault flags make this a test server: per-request fault headers are honoured too.
        configuration.allowsFaultHeader = parsed.has("allow-fault-header") || !configuration.fault.isEmpty
        return configuration
    }

    /// The agents served, for the start line: the demo agent, or each model agent and its upstream.
    static func agentSummary(_ configuration: ChatAPIServer.Configuration) -> String {
        guard !configuration.agents.isEmpty else { return "agent \(configuration.agentId)" }
        return configuration.agents.map {
            "agent \($0.id): \($0.upstream.family.rawValue) \($0.upstream.model) at \($0.upstream.baseURL)"
        }.joined(separator: "; ")
    }
}
