// The entries of Salesforce's event stream other than messages: streamed tokens, progress,
// participants, routing and queue, acknowledgements, session status, typing, client actions.
// Field names follow Salesforce's Messaging API reference and its mobile SDKs' published models
// (see Fixtures/live-events/SOURCE.txt).

import ChatStream
import ChatStreamFraming
import ChatStreamJSON

extension EntryReading {
    /// What an entry with a payload becomes.
    func outcome(
        of type: SalesforceMessagingDialect.EntryEvent, payload: JSONElement, memory: inout LiveStreamMemory
    ) throws -> LiveEventOutcome {
        let id = conversationId
        switch type {
        case .message, .choicesResponse:
            return .event(.messageCreated(try message(payload, memory: &memory)))
        case .streamingToken:
            return try streamingToken(payload, memory: &memory)
        case .progressIndicator:
            return .event(.progress(conversationId: id, status: try progress(payload)))
        case .participantChanged:
            return .event(.participantChanged(conversationId: id, changes: try participantChanges(payload)))
        case .routingResult:
            return .event(.routingResult(conversationId: id, result: try routingResult(payload)))
        case .routingWorkResult:
            guard let workType = payload["workType"]?.string else {
                throw missing("workType", "the routing work result has no workType string")
            }
            let result = RoutingWorkResult(workType: .init(wire: workType), id: payload["id"]?.string)
            return .event(.routingWorkResult(conversationId: id, result: result))
        case .queuePosition:
            guard let position = (payload["position"] ?? payload["queuePosition"])?.int, position >= 0 else {
                throw missing("position", "the queue position has no non-negative integer position")
            }
            return .event(.queuePosition(conversationId: id, position: position))
        case .delivered, .read:
            return .event(.acknowledged(conversationId: id, acknowledgement: try acknowledgement(payload, type)))
        case .sessionStatusChanged:
            guard let status = payload["sessionStatus"]?.string else {
                throw missing("sessionStatus", "the change has no sessionStatus")
            }
            return .event(.sessionStatusChanged(conversationId: id, status: status))
        case .clientAction, .clientMenu:
            var options: [MessageOption] = []
            (payload["options"] ?? payload["optionItems"])?.forEachElement { options.append(Self.option($0)) }
            let action = ClientAction(
                kind: type == .clientMenu ? .menu : .action, options: options, payload: payload.jsonValue)
            return .event(.clientAction(conversationId: id, action: action))
        case .typing, .typingStarted, .typingStopped, .closed:
            preconditionFailure("read without the payload")
        }
    }

    /// A streamed token: a piece of a message's text, or the verdict on the pieces so far.
    private func streamingToken(_ payload: JSONElement, memory: inout LiveStreamMemory) throws -> LiveEventOutcome {
        guard let token = payload["streamingToken"], token.kind == .object else {
            throw missing("streamingToken", "the streaming token entry has no streamingToken object")
        }
        guard let messageId = token["targetMessageIdentifier"]?.string else {
            throw missing(
                "streamingToken.targetMessageIdentifier", "the token names no targetMessageIdentifier string")
        }
        guard let tokenType = token["tokenType"]?.string else {
            throw missing("streamingToken.tokenType", "the token has no tokenType string")
        }
        switch tokenType {
        case "MessageStreamingToken":
            guard let sequence = token["sequenceNumber"]?.int else {
                throw missing("streamingToken.sequenceNumber", "the token has no integer sequenceNumber")
            }
            guard let text = token["token"]?["text"]?.string else {
                throw missing("streamingToken.token.text", "the token has no text string")
            }
            memory.noteStreamed(messageId)
            let delta = MessageDelta(
                messageId: messageId, sequenceNumber: sequence, text: text, id: payload["id"]?.string)
            return .event(.messageDelta(conversationId: conversationId, delta: delta))
        case "StreamingTokenValidation":
            let result = token["result"]
            guard let valid = (result?["valid"] ?? token["valid"])?.bool else {
                throw missing("streamingToken.result.valid", "the validation has no valid Boolean")
            }
            let reason = (result?["reason"] ?? token["reason"])?.string
            let validation = StreamValidation(messageId: messageId, isValid: valid, reason: reason)
            return .event(.messageStreamValidated(conversationId: conversationId, validation: validation))
        default:
            return .unknown
        }
    }

    private func progress(_ payload: JSONElement) throws -> ProgressStatus {
        guard let indicator = payload["progressIndicator"], indicator.kind == .object else {
            throw missing("progressIndicator", "the progress entry has no progressIndicator object")
        }
        let kind = indicator["indicatorType"]?.string.map(ProgressStatus.Kind.init(wire:)) ?? .update
        let text = indicator["progressMessage"]?["text"]?.string ?? ""
        return ProgressStatus(kind: kind, text: text, id: payload["id"]?.string)
    }

    private func participantChanges(_ payload: JSONElement) throws -> [ParticipantChange] {
        guard let entries = payload["entries"], entries.kind == .array else {
            throw missing("entries", "the participant change has no entries array")
        }
        var changes: [ParticipantChange] = []
        var index = 0
        try entries.forEachElement { change in
            guard let operation = change["operation"]?.string else {
                throw missing("entries[\(index)].operation", "the change has no operation string")
            }
            let participant = change["participant"]
            changes.append(
                ParticipantChange(
                    operation: .init(wire: operation),
                    role: SalesforceMessagingDialect.role(participant?["role"]?.string),
                    displayName: (change["displayName"] ?? participant?["displayName"])?.string))
            index += 1
        }
        return changes
    }

    private func routingResult(_ payload: JSONElement) throws -> RoutingResult {
        guard let routingType = payload["routingType"]?.string else {
            throw missing("routingType", "the routing result has no routingType")
        }
        let failure = payload["failureType"]?.string.flatMap { $0 == "None" ? nil : $0 }
        let reason = payload["failureReason"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        // A wait is one only when the deployment asked for it and the server computed it: an
        // unrequested wait comes as -1 with isEWTRequested false.
        let wait = payload["estimatedWaitTime"]
        var seconds: Double?
        if wait?["isEWTRequested"]?.bool == true, let value = wait?["estimatedWaitTimeInSeconds"]?.double, value >= 0 {
            seconds = value
        }
        return RoutingResult(
            routingType: routingType, failure: failure, failureReason: reason, estimatedWaitSeconds: seconds)
    }

    private func acknowledgement(
        _ payload: JSONElement, _ type: SalesforceMessagingDialect.EntryEvent
    ) throws -> Acknowledgement {
        guard let messageId = payload["acknowledgedConversationEntryIdentifier"]?.string else {
            throw missing("acknowledgedConversationEntryIdentifier", "the acknowledgement names no entry")
        }
        let timestamp = payload["acknowledgementTimestamp"]?.double.map { $0 / 1000 }
        return Acknowledgement(kind: type == .read ? .read : .delivered, messageId: messageId, timestamp: timestamp)
    }
}
