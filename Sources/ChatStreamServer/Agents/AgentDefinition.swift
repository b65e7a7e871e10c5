// AgentDefinition: an agent backed by a model, as `chatstream serve --agent-config FILE` reads it
// (PROTOCOLS.md section 9): its ID, name, system prompt, upstream and custom actions.
//
// The file holds no secret: `apiKeyEnv` names the environment variable the key is read from when
// a request is sent. Every field is checked when the file is read, and an error names the agent
// (by position) and the field, so a typo stops the server at start rather than at the first chat.

import ChatStream
import Foundation

/// An agent whose replies come from a model server (OpenAI-compatible or Anthropic).
///
/// ```swift
/// let agents = try AgentDefinition.load(contentsOf: "Fixtures/agents/ollama.json")
/// var configuration = ChatAPIServer.Configuration()
/// configuration.agents = agents
/// ```
public struct AgentDefinition: Sendable, Hashable {
    /// Where the agent's replies come from.
    public struct Upstream: Sendable, Hashable {
        /// The request family, which also names the stream's dialect.
        public var family: ProviderRequest.Family
        /// `http://host:port/v1`: requests go to `{baseURL}/chat/completions` or `{baseURL}/messages`.
        public var baseURL: String
        public var model: String
        /// The name of the environment variable holding the API key; nil sends none.
        public var apiKeyEnv: String?
        /// The longest wait for the upstream to connect, answer, or send its next bytes. Default 120 s.
        public var timeout: Duration
        /// The most tokens a reply may have (Anthropic needs one: 1024 when nil).
        public var maxTokens: Int?
        /// For an `https://` base URL: a PEM file of the certificate authorities to trust instead
        /// of the system's (a private gateway's own authority). Nil: the system's.
        public var caFile: String?

        public init(
            family: ProviderRequest.Family, baseURL: String, model: String, apiKeyEnv: String? = nil,
            timeout: Duration = .seconds(120), maxTokens: Int? = nil, caFile: String? = nil
        ) {
            self.family = family
            self.baseURL = baseURL
            self.model = model
            self.apiKeyEnv = apiKeyEnv
            self.timeout = timeout
            self.maxTokens = maxTokens
            self.caFile = caFile
        }
    }

    /// The `agentId` of every route.
    public var id: String
    public var name: String
    public var systemPrompt: String?
    public var upstream: Upstream
    /// The custom actions: tools the app runs (a call reaches it as a tool call, its posted result
    /// goes into the next upstream request).
    public var actions: [ProviderRequest.Tool]

    public init(
        id: String, name: String, systemPrompt: String? = nil, upstream: Upstream, actions: [ProviderRequest.Tool] = []
    ) {
        self.id = id
        self.name = name
        self.systemPrompt = systemPrompt
        self.upstream = upstream
        self.actions = actions
    }

    /// A configuration file that cannot be used: what is wrong and where.
    public struct FileError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The agents of a configuration file (`{"agents": [...]}`, PROTOCOLS.md section 9); a
    /// relative `caFile` is read from the file's folder.
    public static func load(contentsOf path: String) throws -> [AgentDefinition] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError(message: "\(path): cannot be read")
        }
        let root: JSONTree
        do {
            root = try JSONTree(parsing: Array(data))
        } catch {
            throw FileError(message: "\(path): not valid JSON: \(error)")
        }
        do {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            return try agents(in: root).map { agent in
                var agent = agent
                if let caFile = agent.upstream.caFile, !caFile.hasPrefix("/") {
                    agent.upstream.caFile = folder.appendingPathComponent(caFile).path
                }
                return agent
            }
        } catch let error as FileError {
            throw FileError(message: "\(path): \(error.message)")
        }
    }

    /// The agents of a parsed configuration.
    public static func agents(in root: JSONTree) throws -> [AgentDefinition] {
        guard let list = root["agents"]?.arrayValue else { throw FileError(message: "\"agents\" must be an array") }
        guard !list.isEmpty else { throw FileError(message: "\"agents\" names no agent") }
        var agents: [AgentDefinition] = []
        for (index, item) in list.enumerated() {
            let agent = try AgentDefinition(json: item, path: "agents[\(index)]")
            guard !agents.contains(where: { $0.id == agent.id }) else {
                throw FileError(message: "agents[\(index)].id: \"\(agent.id)\" is used twice")
            }
            agents.append(agent)
        }
        return agents
    }

    init(json: JSONTree, path: String) throws {
        func string(_ value: JSONTree?, _ field: String, required: Bool = true) throws -> String? {
            guard let value, !value.isNull else {
                if required { throw FileError(message: "\(field) is required") }
                return nil
            }
            guard let text = value.stringValue, !text.isEmpty else {
                throw FileError(message: "\(field) must be a non-empty string")
            }
            return text
        }
        func positive(_ value: JSONTree?, _ field: String) throws -> Int? {
            guard let value, !value.isNull else { return nil }
            guard let number = value.intValue, number > 0 else {
                throw FileError(message: "\(field) must be a positive whole number")
            }
            return number
        }
        guard json.objectValue != nil else { throw FileError(message: "\(path) must be an object") }
        id = try string(json["id"], path + ".id")!
        name = try string(json["name"], path + ".name", required: false) ?? id
        systemPrompt = try string(json["systemPrompt"], path + ".systemPrompt", required: false)
        let upstreamPath = path + ".upstream"
        guard let upstream = json["upstream"], upstream.objectValue != nil else {
            throw FileError(message: "\(upstreamPath) must be an object")
        }
        let familyName = try string(upstream["family"], upstreamPath + ".family")!
        guard let family = ProviderRequest.Family(rawValue: familyName) else {
            throw FileError(
                message: "\(upstreamPath).family must be \"openai-chat\" or \"anthropic\", got \"\(familyName)\"")
        }
        let baseURL = try string(upstream["baseURL"], upstreamPath + ".baseURL")!
        guard let url = URL(string: baseURL), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw FileError(message: "\(upstreamPath).baseURL must be an http:// or https:// URL, got \"\(baseURL)\"")
        }
        self.upstream = Upstream(
            family: family, baseURL: baseURL, model: try string(upstream["model"], upstreamPath + ".model")!,
            apiKeyEnv: try string(upstream["apiKeyEnv"], upstreamPath + ".apiKeyEnv", required: false),
            timeout: .seconds(try positive(upstream["timeoutSeconds"], upstreamPath + ".timeoutSeconds") ?? 120),
            maxTokens: try positive(upstream["maxTokens"], upstreamPath + ".maxTokens"),
            caFile: try string(upstream["caFile"], upstreamPath + ".caFile", required: false))
        var actions: [ProviderRequest.Tool] = []
        let actionList = json["actions"]
        guard actionList == nil || actionList?.isNull == true || actionList?.arrayValue != nil else {
            throw FileError(message: "\(path).actions must be an array")
        }
        for (index, action) in (actionList?.arrayValue ?? []).enumerated() {
            let actionPath = "\(path).actions[\(index)]"
            let schema = action["inputSchema"] ?? ["type": "object", "properties": [:]]
            guard schema.objectValue != nil else {
                throw FileError(message: "\(actionPath).inputSchema must be a JSON schema object")
            }
            actions.append(
                ProviderRequest.Tool(
                    name: try string(action["name"], actionPath + ".name")!,
                    description: try string(action["description"], actionPath + ".description", required: false) ?? "",
                    inputSchema: schema))
        }
        self.actions = actions
    }
}

extension ChatAPIServer.Configuration {
    /// The agent IDs the routes answer for: the model agents' when there are any, else ``agentId``.
    var servedAgentIds: [String] { agents.isEmpty ? [agentId] : agents.map(\.id) }
}

extension StoreTransaction {
    /// Gives the conversations stored before they were kept per agent (no `agent_id`) to
    /// `agentId`: the server's first agent, so a store made by the demo agent stays its own.
    func claimConversationsWithoutAgent(for agentId: String) throws {
        try database.run("UPDATE conversations SET agent_id = ?1 WHERE agent_id IS NULL", [agentId])
    }
}
