// The header type of the client's requests and responses lives in the core, shared with the
// server; `import ChatStreamClient` brings it.
@_exported public import struct ChatStream.HTTPHeaderFields

// On Linux, URLSessionConfiguration (ChatbaseClient's `configuration:`) lives in
// FoundationNetworking: `import ChatStreamClient` brings it, as on Apple platforms.
#if canImport(FoundationNetworking)
    @_exported public import FoundationNetworking
#endif
