// Shared by the client commands (chat, sync, conversations, messages, conversation, close, tag, read):
// the --base-url/--agent options, the embedded local server when no --base-url is given, and the
// error contract (`error: <STATUS> <CODE>: <message>` on stderr, exit 1).

import ChatStreamClient
import ChatStreamServer
import Foundation

enum ClientSupport {
    static let defaultAgent = "demo-agent"

    /// A client for the options' server; with no `--base-url`, an embedded server (stopped by `finish`).
    static func makeClient(_ parsed: ArgumentParser) throws -> (client: ChatbaseClient, finish: @Sendable () -> Void) {
        let agent = parsed.value("agent") ?? defaultAgent
        guard !agent.isEmpty else { throw ArgumentParser.UsageError(message: "--agent needs a value") }
        if let base = parsed.value("base-url") {
            guard let url = URL(string: base), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ArgumentParser.UsageError(message: "--base-url needs an http(s) URL, got \"\(base)\"")
            }
            return (
                configured(
                    ChatbaseClient(
                        agentId: agent, baseURL: url, transport: transport(), identityStore: identityStore(),
                        store: HistoryStore.platformDefault)), {}
            )
        }
        let directory = ChatStreamPaths.dataDirectory
        // Owner only, like the store's files (the embedded server's database lives here).
        try? FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var configuration = ChatAPIServer.Configuration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.agentId = agent
        configuration.replyDelay = .zero
        configuration.dataFile = embeddedDatabase(in: directory)
        let server = ChatAPIServer(configuration: configuration)
        do {
            try server.start()
        } catch {
            throw EmbeddedServerError(message: "cannot start the embedded server: \(error)")
        }
        let url = URL(string: "http://127.0.0.1:\(server.port)")!
        // The embedded server's port changes every run: its history is filed under one name.
        let store = try? HistoryStore(path: HistoryStore.defaultPath, serverName: "embedded")
        return (
            configured(
                ChatbaseClient(
                    agentId: agent, baseURL: url, transport: transport(), identityStore: identityStore(), store: store)),
            { server.stop() }
        )
    }

    /// The CLI's identity: the platform's default store, except that on Linux the device ID is kept
    /// in the data directory's `device-id` file only, not also under the Chatbase SDK's
    /// `UserDefaults` key: that key is shared with an app on Apple platforms, but a command-line
    /// tool's standard defaults are its own (`~/.config/chatstream.plist`), and opening them costs
    /// every command a parse of its whole argument list (Foundation's argument domain; 3.8 million
    /// instructions for the bench's 10,000-word `chat`). The file has held the ID since the first run.
    static func identityStore() -> any IdentityStore {
        #if canImport(Security)
            ChatStreamPaths.defaultIdentityStore
        #else
            FileIdentityStore(deviceIdDefaults: nil)
        #endif
    }

    /// The client's transport: the platform's default (on Linux plain HTTP/1.1 on a socket for
    /// `http://`, libcurl for `https://`), URLSession's with `CHATSTREAM_TRANSPORT=urlsession`, or
    /// libcurl's for every URL with `CHATSTREAM_TRANSPORT=curl` (Linux), to compare them, as
    /// scripts/chat-vs-curl.py does.
    static func transport() -> any HTTPTransport {
        switch getenv("CHATSTREAM_TRANSPORT").map({ String(cString: $0) }) {
        case "urlsession": return URLSessionTransport()
        #if os(Linux)
            case "curl": return CurlTransport()
        #endif
        default: return DefaultHTTPTransport.make()
        }
    }

    /// The CLI's client: a message the server could not be reached for waits in the outbox, sent
    /// by `chatstream sync` only (a command's process may end before a background send would).
    static func configured(_ client: ChatbaseClient) -> ChatbaseClient {
        client.outboxPolicy = .manual
        return client
    }

    /// `--source network|local|auto` (default network).
    static func source(_ parsed: ArgumentParser) throws -> HistorySource {
        switch parsed.value("source") {
        case nil, "network": return .network
        case "local": return .local
        case "auto": return .localThenNetwork
        case let other?:
            throw ArgumentParser.UsageError(message: "--source must be network, local or auto, got \"\(other)\"")
        }
    }

    /// The embedded server's SQLite database in `directory` (`server-data.sqlite`). A JSON data file
    /// of the earlier releases (`server-data.json`) is moved there first, so the server imports it once
    /// and keeps it as `server-data.sqlite.json-backup`.
    static func embeddedDatabase(in directory: URL) -> String {
        let database = directory.appendingPathComponent("server-data.sqlite").path
        let legacy = directory.appendingPathComponent("server-data.json").path
        let files = FileManager.default
        if !files.fileExists(atPath: database) && files.fileExists(atPath: legacy) {
            try? files.moveItem(atPath: legacy, toPath: database)
        }
        return database
    }

    /// Prints `error` as the contract says and returns exit status 1.
    static func report(_ error: any Error) -> Int32 {
        Output.flush()
        // APIError (`<STATUS> <CODE>: <message>`), ChatError and the rest describe themselves.
        Output.standardError("error: \(error)\n")
        return 1
    }

    /// `--limit N` checked for 1...100.
    static func limit(_ parsed: ArgumentParser) throws -> Int? {
        guard let text = parsed.value("limit") else { return nil }
        guard let value = Int(text), ChatbaseClient.limitRange.contains(value) else {
            throw ArgumentParser.UsageError(message: "--limit needs a number in 1...100, got \"\(text)\"")
        }
        return value
    }
}

/// The embedded server could not start.
struct EmbeddedServerError: Error, CustomStringConvertible {
    var message: String
    var description: String { "network: \(message)" }
}
