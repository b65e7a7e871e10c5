@_exported public import struct ChatStreamFraming.AsyncDecodedSequence
@_exported public import struct ChatStreamFraming.FramingError
@_exported public import protocol ChatStreamFraming.IncrementalDecoder
@_exported public import struct ChatStreamFraming.StreamEnd
@_exported public import struct ChatStreamJSON.JSONConfiguration
@_exported public import struct ChatStreamJSON.JSONError
@_exported public import struct ChatStreamJSON.JSONNumber
@_exported public import struct ChatStreamJSON.JSONObject
// What `import ChatStream` brings from the layers below it: the JSON values that events and
// messages carry, the JSON limits a decoder is configured with, and the errors the layers below
// report (a `StreamError` wraps them; a caller may meet them as its `underlying` error), and the
// decoders' common protocol with the report `finish(into:)` returns, and the async sequence
// `streamEvents(format:)` returns. The
// framers, parsers and byte views of `ChatStreamFraming` and `ChatStreamJSON` are for those who
// write a framing or a dialect: they import those modules by name.
@_exported public import enum ChatStreamJSON.JSONTree
