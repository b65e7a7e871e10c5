// A history message, in the wire shape of PROTOCOLS.md section 1.

import ChatStream
import Foundation

/// Who wrote a message: role `user` is the user, every other role the agent.
public enum MessageSender: String, Sendable, Hashable, Codable {
    case user
    case agent
}

/// The user's feedback on a reply.
public enum MessageFeedback: String, Sendable, Hashable, Codable {
    case positive
    case negative
}

/// A message of a conversation's history.
///
/// ```swift
/// let page = try await client.listMessages(conversationId: id, limit: 50)
/// for message in page.data { print(message.sender, message.text) }
/// ```
public struct Message: Identifiable, Hashable, Sendable {
    /// The server's ID.
    public var id: String
    /// Who wrote it.
    public var sender: MessageSender
    /// When it was written.
    public var date: Date
    /// The user's feedback, if any.
    public var feedback: MessageFeedback?
    /// The reply's score (`metadata.score`), when the server gives one.
    public var score: Double?
    /// The parts, in order. A part of an unknown type is kept as ``AssembledPart/unknown(type:raw:)``.
    public var parts: [AssembledPart]

    /// A message.
    public init(
        id: String, sender: MessageSender, date: Date, feedback: MessageFeedback? = nil, score: Double? = nil,
        parts: [AssembledPart]
    ) {
        self.id = id
        self.sender = sender
        self.date = date
        self.feedback = feedback
        self.score = score
        self.parts = parts
    }

    /// The text parts joined.
    public var text: String { parts.compactMap(\.text).joined() }

    /// The message in its wire shape (`role` is `user` or `assistant`).
    public var jsonValue: JSONTree {
        var object = JSONObject()
        object["id"] = .string(id)
        object["role"] = sender == .user ? "user" : "assistant"
        object["parts"] = .array(parts.map(\.jsonValue))
        object["createdAt"] = WireDate.json(date)
        object["feedback"] = feedback.map { .string($0.rawValue) } ?? .null
        if let score { object["metadata"] = ["score": .number(JSONNumber(score))] }
        return .object(object)
    }
}

extension Message: Codable {
    public init(from decoder: any Decoder) throws {
        guard let message = try WireDecoding.decodeValue(JSONTree(from: decoder), WireDecoding.message) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "message has no parts"))
        }
        self = message
    }

    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}
