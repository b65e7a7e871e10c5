// ConversationState+Rows: what one row of a conversation is (a text bubble or a tool call's
// card), who wrote it, and where a user's message stands on its way to the server (pending,
// sending, sent or failed: exactly one at a time).

import ChatStream
import Foundation

extension ConversationState {
    /// A tool call shown in the conversation: what was asked and, once known, the result.
    public struct ToolCallCard: Sendable, Hashable {
        /// Where the call stands.
        public enum Status: Sendable, Hashable {
            /// The tool is running.
            case executing
            /// The tool returned an output without an `error` key.
            case success
            /// The tool returned an object with an `error` key.
            case failure
        }

        /// The call's ID.
        public var toolCallId: String
        /// The tool's name.
        public var toolName: String
        /// What the agent passed to the tool.
        public var input: JSONValue
        /// What the tool returned; nil while it runs.
        public var output: JSONValue?
        /// Where the call stands.
        public var status: Status

        /// A card.
        public init(
            toolCallId: String, toolName: String, input: JSONValue, output: JSONValue? = nil,
            status: Status = .executing
        ) {
            self.toolCallId = toolCallId
            self.toolName = toolName
            self.input = input
            self.output = output
            self.status = status
        }

        /// ``Status/failure`` for an object with an `error` key, ``Status/success`` otherwise.
        static func status(for output: JSONValue) -> Status {
            output["error"] == nil ? .success : .failure
        }
    }

    /// One row of the conversation: a text bubble or a tool card.
    public struct UiMessage: Identifiable, Sendable, Hashable {
        /// What the row shows.
        public enum Kind: Sendable, Hashable {
            /// A text bubble.
            case text(String)
            /// A tool call.
            case toolCall(ToolCallCard)
        }

        /// Where a user's message stands on its way to the server: exactly one at a time
        /// (the "Delivery" article draws the transitions). ChatStream's own.
        public enum Delivery: String, Sendable, Hashable {
            /// Waiting in the client's outbox: it will be sent by itself (same `clientMessageId`).
            case pending
            /// On its way now.
            case sending
            /// The server has it.
            case sent
            /// Not sent, and it will not be sent by itself: it waits for the user
            /// (``ConversationState/resend(rowId:)`` or discard). ``UiMessage/isError`` is true.
            case failed
        }

        /// The row's own ID (stable while it streams).
        public var id: String
        /// The server's ID of the message the row belongs to; nil until the server gave one.
        public var messageId: String?
        /// What the row shows.
        public var kind: Kind
        /// Who wrote it.
        public var sender: MessageSender
        /// When it was written.
        public var date: Date
        /// Whether text is still streaming into it.
        public var isStreaming: Bool
        /// Where a user's message stands (nil on the agent's rows).
        public var delivery: Delivery?
        /// Whether an agent row's reply did not finish.
        private var replyFailed: Bool
        /// Whether it failed: a reply that did not finish, or a user message that will not be sent
        /// by itself (``Delivery/failed``).
        public var isError: Bool {
            get { delivery == .failed || replyFailed }
            set {
                if sender == .user {
                    if newValue { delivery = .failed } else if delivery == .failed { delivery = .sent }
                } else {
                    replyFailed = newValue
                }
            }
        }
        /// Whether it is a user message waiting in the client's outbox, to be sent by itself when the
        /// server can be reached (``Delivery/pending``). ChatStream's own.
        public var isPending: Bool {
            get { delivery == .pending }
            set {
                if newValue { delivery = .pending } else if delivery == .pending { delivery = .sent }
            }
        }
        /// The user's feedback on the message.
        public var feedback: MessageFeedback?

        /// A row; a user's row is ``Delivery/sent`` unless `delivery`, `isError` or `isPending` say otherwise.
        public init(
            id: String, messageId: String? = nil, kind: Kind, sender: MessageSender, date: Date = .now,
            isStreaming: Bool = false, isError: Bool = false, feedback: MessageFeedback? = nil,
            isPending: Bool = false, delivery: Delivery? = nil
        ) {
            self.id = id
            self.messageId = messageId
            self.kind = kind
            self.sender = sender
            self.date = date
            self.isStreaming = isStreaming
            self.feedback = feedback
            self.replyFailed = sender != .user && isError
            if sender == .user {
                self.delivery = delivery ?? (isError ? .failed : isPending ? .pending : .sent)
            } else {
                self.delivery = nil
            }
        }
    }
}
