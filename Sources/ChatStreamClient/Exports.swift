// The header type of the client's requests and responses lives in ChatStreamHTTP, shared with the
// server; `import ChatStreamClient` brings it. Live updates (`liveEvents()`, `LiveEvent.event`)
// carry the live-event model of ChatStreamLive, which `import ChatStreamClient` brings too.
@_exported public import ChatStreamLive
@_exported public import struct ChatStreamHTTP.HTTPHeaderFields

// On Linux, URLSessionConfiguration (ChatbaseClient's `configuration:`) lives in
// FoundationNetworking: `import ChatStreamClient` brings it, as on Apple platforms.
#if canImport(FoundationNetworking)
    @_exported public import FoundationNetworking
#endif
