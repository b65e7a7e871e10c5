import ChatStream
import Foundation
import TestSupport
import Testing

@testable import ChatStreamLive

/// Salesforce's event stream read as Salesforce documents it: every message type's text, the
/// queue, streamed tokens, progress, routing work, participants, client actions, and the hostile
/// variants (Fixtures/live-events/salesforce-*, reconstructed from the sources in SOURCE.txt).
@Suite(.blockingAllowed) struct SalesforceMessagingDialectTests {
    static let conversation = "7c4e2a91-3b5d-4f68-9a0e-1d2c3b4a5f60"

    static func allTypes() throws -> [UInt8] { try ConversationEventDecoderTests.bytes("salesforce-all-types.sse") }

    static func messages(_ events: [ConversationEvent]) -> [String: LiveMessage] {
        var byId: [String: LiveMessage] = [:]
        for event in events {
            if case .messageCreated(let message) = event.kind { byId[message.id] = message }
        }
        return byId
    }

    @Test func everyDocumentedMessageTypeYieldsItsTextAtEveryChunking() throws {
        for chunking in Chunkings.all(of: try Self.allTypes()) {
            let (events, decoder) = try decodeLive(chunking.pieces, format: .salesforceMessaging)
            #expect(decoder.skippedErrorCount == 0, "\(chunking)")
            let byId = Self.messages(events)
            let expected: [(String, String)] = [
                ("3e1f5a7b-0004-4000-8000-000000000004", "Where is my order? \u{e9}\u{4e2d}\u{1F600} \"quoted\"\n"),
                ("1764633604321-REQ-7", "Your order ships tomorrow."),
                ("5392c0d8-0020-4000-8000-000000000020", "Anything else I can help with?"),
                ("6a7b8c9d-0023-4000-8000-000000000023", "Talk to a person"),
                ("5392c0d8-0024-4000-8000-000000000024", "Which order?"),
                ("6a7b8c9d-0027-4000-8000-000000000027", "#1001"),
                ("5392c0d8-0028-4000-8000-000000000028", "Express\nStandard"),
                ("80bb78b1-0029-4000-8000-000000000029", "Here is the label"),
                ("80bb78b1-0031-4000-8000-000000000031", "photo.png"),
                ("712d0f33-0033-4000-8000-000000000033", "Track order #1001\nhttps://example.com/track/1001"),
                ("9d8e7f60-0035-4000-8000-000000000035", "Here are your open cases."),
                ("9d8e7f60-0036-4000-8000-000000000036", #"{"CaseNumber":"00001027","Status":"New"}"#),
                ("9d8e7f60-0037-4000-8000-000000000037", "Pick a delivery slot"),
                ("3e1f5a7b-0044-4000-8000-000000000044", "Hi, I'm Dana. I've changed the address."),
            ]
            #expect(byId.count == expected.count, "\(chunking)")
            for (id, text) in expected {
                #expect(byId[id]?.text == text, "\(id) \(chunking)")
                #expect(byId[id]?.text.isEmpty == false)
            }
        }
    }

    /// Each event of the fixture decoded on its own, at every chunking, is its expected line;
    /// only the two that read earlier events differ alone (the streamed reply's final message
    /// does not complete a stream, the untitled pick has no title).
    @Test func eachDocumentedEventAloneDecodesToItsLineAtEveryChunking() throws {
        let text = String(decoding: try Self.allTypes(), as: UTF8.self)
        let blocks = text.components(separatedBy: "\r\n\r\n").filter { $0.contains("\r\nid: 20") }
        let expected = try ConversationEventDecoderTests.expected("salesforce-all-types.expected.jsonl")
        #expect(blocks.count == expected.count + 1)  // and the unknown type, skipped
        var checked = 0
        for block in blocks {
            let input = Array((block + "\r\n\r\n").utf8)
            let id = String(block.split(separator: "\r\n").first { $0.hasPrefix("id: ") }!.dropFirst(4))
            guard var line = expected.first(where: { $0["id"] == .string(id) }) else { continue }
            if id == "2012" { line = Self.removing("completesStream", fromMessageOf: line) }
            if id == "2014" { line = Self.untitled(line) }
            for chunking in Chunkings.all(of: input, seeds: [4]) {
                let (events, decoder) = try decodeLive(chunking.pieces, format: .salesforceMessaging)
                #expect(events.map(\.jsonValue) == [line], "event \(id) \(chunking)")
                #expect(decoder.skippedErrorCount == 0)
            }
            checked += 1
        }
        #expect(checked == expected.count)
    }

    static func removing(_ key: String, fromMessageOf line: JSONTree) -> JSONTree {
        guard case .object(var object) = line, case .object(var message)? = object["message"] else { return line }
        message[key] = nil
        object["message"] = .object(message)
        return .object(object)
    }

    /// The pick as it decodes alone: no title, so no text part and an untitled selection.
    static func untitled(_ line: JSONTree) -> JSONTree {
        guard case .object(var object) = line, case .object(var message)? = object["message"] else { return line }
        message["parts"] = []
        message["selectedOptions"] = [["id": "94934018-0022-4000-8000-000000000022", "title": ""]]
        object["message"] = .object(message)
        return .object(object)
    }

    @Test func choicesSelectionsAndAttachmentsKeepTheirParts() throws {
        let (events, _) = try decodeLive([try Self.allTypes()], format: .salesforceMessaging)
        let byId = Self.messages(events)
        let buttons = try #require(byId["5392c0d8-0020-4000-8000-000000000020"])
        #expect(buttons.content.messageType == "ChoicesMessage" && buttons.content.formatType == "Buttons")
        #expect(buttons.content.options.map(\.title) == ["Change delivery address", "Talk to a person"])
        #expect(buttons.content.options.map(\.id).last == "94934018-0022-4000-8000-000000000022")
        let quick = try #require(byId["5392c0d8-0024-4000-8000-000000000024"]).content
        #expect(quick.formatType == "QuickReplies" && quick.options.map(\.subtitle) == ["Shoes", "Socks"])
        let carousel = try #require(byId["5392c0d8-0028-4000-8000-000000000028"]).content
        #expect(carousel.options.map(\.id) == ["ship-express", "ship-standard"])
        let experience = try #require(byId["9d8e7f60-0037-4000-8000-000000000037"]).content
        #expect(
            experience.formatType == "ExperienceType" && experience.options.map(\.title) == ["Morning", "Afternoon"])

        // A pick named by its identifier only takes the title offered earlier in the stream.
        let picked = try #require(byId["6a7b8c9d-0023-4000-8000-000000000023"])
        #expect(picked.sender == .user)
        #expect(
            picked.content.selectedOptions == [
                MessageOption(id: "94934018-0022-4000-8000-000000000022", title: "Talk to a person")
            ])
        #expect(picked.content.inReplyToMessageId == "5392c0d8-0020-4000-8000-000000000020")
        let echoed = try #require(byId["6a7b8c9d-0027-4000-8000-000000000027"]).content
        #expect(echoed.selectedOptions.first?.subtitle == "Shoes")

        let label = try #require(byId["80bb78b1-0029-4000-8000-000000000029"])
        #expect(label.sender == .humanAgent && label.senderName == "Dana (Support)")
        #expect(
            label.content.attachments == [
                MessageAttachment(
                    name: "label.pdf", url: "https://example.my.salesforce-scrt.com/files/label.pdf",
                    mimeType: "application/pdf", id: "4f3c9d65-0030-4000-8000-000000000030")
            ])
        // The history shape carries a text part and a file part the client's decoding reads.
        let parts = try #require(label.json["parts"])
        #expect(
            parts
                == [
                    ["type": "text", "text": "Here is the label"],
                    [
                        "type": "file", "url": "https://example.my.salesforce-scrt.com/files/label.pdf",
                        "filename": "label.pdf", "mediaType": "application/pdf",
                    ],
                ])
        #expect(
            AssembledPart(json: parts[1]!)
                == .file(url: "https://example.my.salesforce-scrt.com/files/label.pdf", mediaType: "application/pdf"))

        // What the model does not name stays readable in the parsed payload.
        let rich = try #require(byId["9d8e7f60-0035-4000-8000-000000000035"]).content.payload
        #expect(rich?["abstractMessage"]?["staticContent"]?["values"]?[0]?["value"]?["CaseNumber"] == "00001026")
        let link = try #require(byId["712d0f33-0033-4000-8000-000000000033"]).content.payload
        #expect(
            link?["abstractMessage"]?["staticContent"]?["image"]?["assetUrl"] == "https://example.com/img/track.png")
    }

    @Test func streamedTokensAreDeltasOfTheirMessageAndTheFinalMessageIsNotDoubled() throws {
        for chunking in Chunkings.all(of: try Self.allTypes()) {
            let (events, _) = try decodeLive(chunking.pieces, format: .salesforceMessaging)
            let deltas = events.compactMap { event -> MessageDelta? in
                if case .messageDelta(_, let delta) = event.kind { return delta }
                return nil
            }
            #expect(deltas.map(\.sequenceNumber) == [1, 3, 2], "\(chunking)")
            #expect(Set(deltas.map(\.messageId)) == ["1764633604321-REQ-7"])

            // A screen that shows drafts and messages shows the reply once, whole.
            var drafts = LiveMessageDrafts()
            var shown: [String] = []
            for event in events {
                drafts.apply(event)
                if case .messageDelta(_, let delta) = event.kind, delta.sequenceNumber == 2 {
                    #expect(drafts.text(of: delta.messageId) == "Your order ships tomorrow.")
                }
                if case .messageCreated(let message) = event.kind { shown.append(message.text) }
            }
            #expect(drafts.messageIds.isEmpty)
            #expect(shown.filter { $0.contains("ships") } == ["Your order ships tomorrow."])
            let final = try #require(Self.messages(events)["1764633604321-REQ-7"])
            #expect(final.content.completesStream && final.sender == .agent)
            #expect(Self.messages(events).values.filter(\.content.completesStream).count == 1)
            let validated = events.contains {
                $0.kind
                    == .messageStreamValidated(
                        conversationId: Self.conversation,
                        validation: StreamValidation(messageId: "1764633604321-REQ-7", isValid: true))
            }
            #expect(validated)
        }
    }

    static let withdrawn = Array(
        #"""
        event: CONVERSATION_STREAMING_TOKEN
        data: {"conversationId":"c","conversationEntry":{"identifier":"t1","entryPayload":"{\"id\":\"t1\",\"streamingToken\":{\"tokenType\":\"MessageStreamingToken\",\"sequenceNumber\":1,\"targetMessageIdentifier\":\"m\",\"token\":{\"formatType\":\"Text\",\"text\":\"Wrong\"}}}"}}

        event: CONVERSATION_STREAMING_TOKEN
        data: {"conversationId":"c","conversationEntry":{"identifier":"t2","entryPayload":"{\"id\":\"t2\",\"streamingToken\":{\"tokenType\":\"StreamingTokenValidation\",\"targetMessageIdentifier\":\"m\",\"result\":{\"valid\":false,\"reason\":\"hallucination\"}}}"}}

        event: CONVERSATION_STREAMING_TOKEN
        data: {"conversationId":"c","conversationEntry":{"identifier":"t3","entryPayload":"{\"id\":\"t3\",\"streamingToken\":{\"tokenType\":\"MessageStreamingToken\",\"sequenceNumber\":5,\"targetMessageIdentifier\":\"m\",\"token\":{\"formatType\":\"Text\",\"text\":\"Right\"}}}"}}


        """#.utf8)

    @Test func aFailedValidationWithdrawsWhatStreamed() throws {
        for chunking in Chunkings.all(of: Self.withdrawn) {
            let (events, _) = try decodeLive(chunking.pieces, format: .salesforceMessaging)
            #expect(events.count == 3, "\(chunking)")
            var drafts = LiveMessageDrafts()
            drafts.apply(events[0])
            #expect(drafts.text(of: "m") == "Wrong")
            #expect(drafts.apply(events[1]) == "m")
            #expect(drafts.text(of: "m") == nil)
            drafts.apply(events[2])
            #expect(drafts.text(of: "m") == "Right")
            #expect(
                events[1].kind
                    == .messageStreamValidated(
                        conversationId: "c",
                        validation: StreamValidation(messageId: "m", isValid: false, reason: "hallucination")))
        }
    }

    @Test func theQueueIsItsOwnEventAndAWaitIsOneOnlyWhenRequested() throws {
        let (events, _) = try decodeLive([try Self.allTypes()], format: .salesforceMessaging)
        let routing = events.compactMap { event -> RoutingResult? in
            if case .routingResult(_, let result) = event.kind { return result }
            return nil
        }
        #expect(
            routing == [
                RoutingResult(routingType: "Initial", estimatedWaitSeconds: 45), RoutingResult(routingType: "Transfer"),
            ])
        #expect(events.contains { $0.kind == .queuePosition(conversationId: Self.conversation, position: 3) })
        #expect(
            events.contains {
                $0.kind
                    == .routingWorkResult(
                        conversationId: Self.conversation,
                        result: RoutingWorkResult(workType: .accepted, id: "a1b2c3d4-0041-4000-8000-000000000041"))
            })
    }

    @Test func participantsJoinLeaveAndChangeAsThreeOperations() throws {
        let (events, _) = try decodeLive([try Self.allTypes()], format: .salesforceMessaging)
        let changes = events.compactMap { event -> [ParticipantChange]? in
            if case .participantChanged(_, let changes) = event.kind { return changes }
            return nil
        }
        #expect(
            changes == [
                [ParticipantChange(operation: .added, role: .agent, displayName: "Agentforce")],
                [
                    ParticipantChange(operation: .added, role: .humanAgent, displayName: "Dana (Support)"),
                    ParticipantChange(operation: .updated, role: .humanAgent, displayName: "Dana"),
                    ParticipantChange(operation: .removed, role: .agent, displayName: "Agentforce"),
                ],
            ])
        #expect(changes.last?.map(\.joined) == [true, false, false])
        #expect(ParticipantChange.Operation(wire: "UPDATE") == .updated)
        #expect(ParticipantChange.Operation(wire: "swap") == .other("swap"))
    }

    @Test func progressTypingAndClientActionsAreTyped() throws {
        let (events, _) = try decodeLive([try Self.allTypes()], format: .salesforceMessaging)
        #expect(
            events.contains {
                $0.kind
                    == .progress(
                        conversationId: Self.conversation,
                        status: ProgressStatus(
                            kind: .update, text: "Calling agent action: Look up order status",
                            id: "a1b2c3d4-0006-4000-8000-000000000006"))
            })
        let typing = events.compactMap { event -> String? in
            if case .typing(_, let who, let active) = event.kind { return "\(who) \(active)" }
            return nil
        }
        #expect(typing == ["agent true", "agent false", "human_agent true"])
        let actions = events.compactMap { event -> ClientAction? in
            if case .clientAction(_, let action) = event.kind { return action }
            return nil
        }
        #expect(actions.map(\.kind) == [.action, .menu])
        #expect(actions[0].payload["url"] == "https://example.com/track/1001")
        #expect(actions[1].options.map(\.title) == ["Help", "End chat"])
        #expect(events.map(\.typeName).filter { $0.hasPrefix("client.") } == ["client.action", "client.menu"])
    }

    @Test func hostileVariantsAreSkippedWithErrorsNamingTheEventAndField() throws {
        let input = try ConversationEventDecoderTests.bytes("salesforce-malformed.sse")
        let text = String(decoding: input, as: UTF8.self)
        let offsets = (2...12).map { number in
            text.utf8.distance(from: text.startIndex, to: text.range(of: "\nid: \(number)\n")!.lowerBound) + 1
        }
        for chunking in Chunkings.all(of: input) {
            let (events, decoder) = try decodeLive(chunking.pieces, format: .salesforceMessaging)
            #expect(events.map(\.id) == ["1", "13"], "\(chunking)")
            #expect(decoder.skippedErrorCount == 11)
            #expect(decoder.skippedErrors.map(\.byteOffset) == offsets, "\(chunking)")
            #expect(
                decoder.skippedErrors.map(\.field) == [
                    "conversationEntry.entryPayload", "conversationEntry.entryPayload",
                    "conversationEntry.entryPayload.abstractMessage",
                    "conversationEntry.entryPayload.abstractMessage.staticContent.text",
                    "conversationEntry.entryPayload.streamingToken.targetMessageIdentifier",
                    "conversationEntry.entryPayload.position", "conversationEntry.entryPayload.routingType",
                    "conversationEntry.entryPayload.entries[0].operation",
                    "conversationEntry.entryPayload.progressIndicator", "data", "conversationId",
                ])
            #expect(
                decoder.skippedErrors.map(\.kind) == [
                    .payloadNotJSON, .missingField, .missingField, .missingField, .missingField, .missingField,
                    .missingField, .missingField, .missingField, .invalidJSON, .missingField,
                ])
            #expect(
                decoder.skippedErrors.map(\.eventType) == [
                    "CONVERSATION_MESSAGE", "CONVERSATION_MESSAGE", "CONVERSATION_MESSAGE", "CONVERSATION_MESSAGE",
                    "CONVERSATION_STREAMING_TOKEN", "CONVERSATION_QUEUE_POSITION", "CONVERSATION_ROUTING_RESULT",
                    "CONVERSATION_PARTICIPANT_CHANGED", "CONVERSATION_PROGRESS_INDICATOR", "CONVERSATION_MESSAGE",
                    "CONVERSATION_MESSAGE",
                ])
            #expect(
                decoder.skippedErrors[4].description
                    == "event CONVERSATION_STREAMING_TOKEN at byte \(offsets[4]): field "
                    + "conversationEntry.entryPayload.streamingToken.targetMessageIdentifier: missing field: "
                    + "the token names no targetMessageIdentifier string")
        }
    }

    @Test func aTypingIndicatorNeedsNoPayload() throws {
        let input = Array(
            """
            event: CONVERSATION_TYPING_INDICATOR
            data: {"conversationId":"c","conversationEntry":{"identifier":"t","sender":{"role":"Agent"}}}


            """.utf8)
        for chunking in Chunkings.all(of: input) {
            let (events, decoder) = try decodeLive(chunking.pieces, format: .salesforceMessaging)
            #expect(events.map(\.kind) == [.typing(conversationId: "c", participant: .humanAgent, active: true)])
            #expect(decoder.skippedErrorCount == 0, "\(chunking)")
        }
    }

    @Test func theOptionMemoryIsBounded() {
        var memory = LiveStreamMemory()
        memory.remember((0..<(LiveStreamMemory.optionLimit + 10)).map { MessageOption(id: "o\($0)", title: "t\($0)") })
        #expect(memory.title(ofOption: "o0") == nil)
        #expect(
            memory.title(ofOption: "o\(LiveStreamMemory.optionLimit + 9)") == "t\(LiveStreamMemory.optionLimit + 9)")
        for index in 0..<(LiveStreamMemory.streamedLimit + 1) { memory.noteStreamed("m\(index)") }
        let oldest = memory.takeStreamed("m0")
        let next = memory.takeStreamed("m1")
        let again = memory.takeStreamed("m1")
        #expect(!oldest && next && !again)
    }

    @Test func theVariantsTableIsPrintedInTheLiveEventsArticle() throws {
        let path = ProjectPaths.root + "/Sources/ChatStreamLive/ChatStreamLive.docc/LiveConversationEvents.md"
        let article = try String(contentsOfFile: path, encoding: .utf8)
        for format in ConversationEventFormat.allCases {
            #expect(!format.variants.isEmpty)
            let table = (["| field | shapes | becomes |", "|---|---|---|"] + format.variants.map(\.markdownRow))
                .joined(separator: "\n")
            #expect(article.contains("`\(format.rawValue)`:\n\n" + table + "\n"), "the article should print:\n\(table)")
        }
    }
}
