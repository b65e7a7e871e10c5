// On Linux, URLSessionConfiguration (ChatbaseClient's `configuration:`) lives in
// FoundationNetworking: `import ChatStreamClient` brings it, as on Apple platforms.
#if canImport(FoundationNetworking)
    @_exported public import FoundationNetworking
#endif
