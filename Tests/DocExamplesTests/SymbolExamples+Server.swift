// swift-format-ignore-file
// (The examples are kept exactly as the doc comments show them.)
// The Swift examples of the `///` comments in ChatStreamSQLite, ChatStreamServer, compiled (see
// DocBlocksAreCompiledTests and README.md here). Each function holds one example verbatim, under
// a comment naming where it is; its parameters supply what the example uses. The functions are
// never called: compiling them is the test.

import ChatStreamServer
import ChatStreamSQLite
import Foundation

// Sources/ChatStreamServer/Live/ChatAPIServer+LiveEvents.swift:7
func symbolChatAPIServerLiveEvents() {
    var configuration = ChatAPIServer.Configuration()
    configuration.liveEvents.dropEvery = 10  // cut every event connection after 10 events
    _ = configuration
}

// Sources/ChatStreamServer/Live/ChatAPIServer+Replies.swift:8
func symbolChatAPIServerReplies() {
    var configuration = ChatAPIServer.Configuration()
    configuration.replies.retention = .seconds(30 * 60)  // hold ended replies for 30 minutes
    _ = configuration
}

// Sources/ChatStreamServer/Routes/ChatAPIServer+Configuration.swift:16
func symbolChatAPIServerConfiguration() {
    var configuration = ChatAPIServer.Configuration()
    configuration.port = 0            // any free port
    configuration.replyDelay = .zero  // no pacing in tests
    let server = ChatAPIServer(configuration: configuration)
    _ = server
}

// Sources/ChatStreamServer/Routes/ChatAPIServer+Configuration.swift:77
func symbolChatAPIServerConfiguration2(server: ChatAPIServer) {
    server.injectFault(.init(status: 429, retryAfterSeconds: 2, count: 2))  // the next two chats get 429
    server.injectFault(.init(dropAfterBytes: 200))                          // the next reply is cut short
}

// Sources/ChatStreamServer/Routes/ChatAPIServer+Quotas.swift:15
func symbolChatAPIServerQuotas() {
    var configuration = ChatAPIServer.Configuration()
    configuration.quotas.conversationsPerIdentity = 50
    _ = configuration
}

// Sources/ChatStreamServer/Routes/ChatAPIServer.swift:13
func symbolChatAPIServer() throws {
    var configuration = ChatAPIServer.Configuration()
    configuration.port = 0
    let server = ChatAPIServer(configuration: configuration)
    try server.start()
    print("http://127.0.0.1:\(server.port)/api/sdk/agents/demo-agent/chat")
    server.injectFault(.init(status: 429))  // the next chat answers 429 with Retry-After: 2
    server.stop()
}

// Sources/ChatStreamServer/HTTP/HTTPServer.swift:23
func symbolHTTPServer() throws {
    let server = HTTPServer { request, response in
        try response.respond(status: 200, headers: [("Content-Type", "text/plain")], body: Array("hi\n".utf8))
    }
    try server.start()
    print("listening on http://127.0.0.1:\(server.port)/")
    // ...
    server.stop()
}

// Sources/ChatStreamServer/HTTP/HTTPServerRequest.swift:5
func symbolHTTPServerRequest() {
    let server = HTTPServer { request, response in
        let limit = request.queryValue("limit").flatMap(Int.init) ?? 20
        try response.respond(status: 200, headers: [("Content-Type", "text/plain")], body: Array("\(limit)".utf8))
    }
    _ = server
}

// Sources/ChatStreamServer/HTTP/HTTPServerResponseWriter.swift:15
func symbolHTTPServerResponseWriter() {
    let server = HTTPServer { request, response in
        try response.startStream(status: 200, headers: [("Content-Type", "text/event-stream")])
        for word in ["Hello", "world"] {
            try response.write(Array("data: \(word)\n\n".utf8))
            Thread.sleep(forTimeInterval: 0.05)
        }
        try response.finishStream()
    }
    _ = server
}

// Sources/ChatStreamSQLite/SQLiteDatabase.swift:21
func symbolSQLiteDatabase() throws {
    let database = try SQLiteDatabase(path: "/tmp/x.sqlite", options: .durable)
    try database.transaction {
        try database.run("INSERT INTO notes(text) VALUES (?1)", ["hello"])
    }
    let texts = try database.query("SELECT text FROM notes") { $0.text(0) }
    _ = texts
}

// Sources/ChatStreamServer/Agents/AgentDefinition.swift:13
func symbolAgentDefinition() throws {
    let agents = try AgentDefinition.load(contentsOf: "Fixtures/agents/ollama.json")
    var configuration = ChatAPIServer.Configuration()
    configuration.agents = agents
}
