// What the live-event dialects read, field by field, and what each becomes: the tables the DocC
// article "Live conversation events" prints (a test checks that it prints them exactly).

import ChatStream

extension ConversationEventFormat {
    /// The shapes the format's dialect reads: which field, which shapes, what each becomes.
    public var variants: [DialectVariant] {
        switch self {
        case .home: HomeLiveEventDialect.variants
        case .salesforceMessaging: SalesforceMessagingDialect.variants
        }
    }
}

extension HomeLiveEventDialect {
    static let variants: [DialectVariant] = [
        DialectVariant(
            field: "message.created", shapes: "`{conversationId, message}` (history shape)",
            becomes: "`messageCreated`; text from the text parts"),
        DialectVariant(
            field: "conversation.created / conversation.updated", shapes: "`{conversation}` (list shape)",
            becomes: "`conversationCreated` / `conversationUpdated`"),
        DialectVariant(
            field: "typing", shapes: "`{conversationId, participant, active}`", becomes: "`typing`"),
        DialectVariant(field: "reset", shapes: "`{}`", becomes: "`reset`"),
    ]
}

extension SalesforceMessagingDialect {
    static let variants: [DialectVariant] = [
        DialectVariant(
            field: "data", shapes: "`{conversationId, conversationEntry}`; `entryPayload` a JSON document in a string",
            becomes: "the payload parsed again; not JSON: a `payload not JSON` error naming the event"),
        DialectVariant(
            field: "CONVERSATION_MESSAGE", shapes: "`abstractMessage.staticContent.text` (Text)",
            becomes: "`messageCreated` with the text"),
        DialectVariant(
            field: "staticContent.attachments[]", shapes: "`{name, url, mimeType, id}` (Attachments)",
            becomes: "file parts; the names are the text when there is none"),
        DialectVariant(
            field: "staticContent.message / values", shapes: "Agentforce rich reply (ExperienceType)",
            becomes: "the message as text, else the values as compact JSON"),
        DialectVariant(
            field: "staticContent.linkItem / url / title", shapes: "RichLink, WebView, error message",
            becomes: "title and URL as text"),
        DialectVariant(
            field: "abstractMessage.choices",
            shapes:
                "`text` + `optionItems[].titleItem.title` (Buttons, QuickReplies); `items` (Carousel); `message` + `options` (ExperienceType)",
            becomes: "the text (else the option titles) and the options with their identifiers"),
        DialectVariant(
            field: "CHOICES_RESPONSE_MESSAGE",
            shapes: "`choicesResponse.selectedOptions[]` (Selections), titled or by `optionIdentifier` only",
            becomes: "the picked titles as text (an untitled pick takes the title offered earlier)"),
        DialectVariant(
            field: "CONVERSATION_STREAMING_TOKEN",
            shapes:
                "`streamingToken` MessageStreamingToken (`targetMessageIdentifier`, `sequenceNumber`, `token.text`)",
            becomes: "`messageDelta`; the final message with that ID says `completesStream` (replace, do not append)"),
        DialectVariant(
            field: "streamingToken.result.valid", shapes: "StreamingTokenValidation",
            becomes: "`messageStreamValidated`"),
        DialectVariant(
            field: "CONVERSATION_PROGRESS_INDICATOR",
            shapes: "`progressIndicator.indicatorType`, `progressMessage.text`",
            becomes: "`progress` with a typed kind and the text"),
        DialectVariant(
            field: "CONVERSATION_QUEUE_POSITION", shapes: "`position` (integer ≥ 0)", becomes: "`queuePosition`"),
        DialectVariant(
            field: "CONVERSATION_ROUTING_RESULT",
            shapes: "`routingType`, `failureType` (`None` is success), `failureReason`",
            becomes: "`routingResult`"),
        DialectVariant(
            field: "estimatedWaitTime", shapes: "`{estimatedWaitTimeInSeconds, isEWTRequested}`",
            becomes: "a wait only when requested and ≥ 0 (`-1`/`false` is none)"),
        DialectVariant(
            field: "CONVERSATION_ROUTING_WORK_RESULT", shapes: "`workType` `Assigned`, `Accepted`, `Closed`",
            becomes: "`routingWorkResult`"),
        DialectVariant(
            field: "CONVERSATION_PARTICIPANT_CHANGED", shapes: "`entries[].operation` `add`, `remove`, `update`",
            becomes: "`participantChanged`, one change each (an update is not a join)"),
        DialectVariant(
            field: "CONVERSATION_TYPING_STARTED/STOPPED_INDICATOR, CONVERSATION_TYPING_INDICATOR",
            shapes: "sender role", becomes: "`typing` (the plain indicator: active)"),
        DialectVariant(
            field: "CONVERSATION_CLIENT_ACTION / CLIENT_MENU", shapes: "`ClientAction` / `ClientMenu` entries",
            becomes: "`clientAction` with the payload whole"),
        DialectVariant(
            field: "acknowledgements, session status, close",
            shapes: "`acknowledgedConversationEntryIdentifier`; `sessionStatus`",
            becomes: "`acknowledged`, `sessionStatusChanged`, `conversationClosed`"),
        DialectVariant(
            field: "other `event:` types; `ping`", shapes: "any",
            becomes: "skipped and counted; keep-alives not counted"),
    ]
}
