// swift-format-ignore-file
// (The examples are kept exactly as the doc comments show them.)
// The `///` examples of ChatStreamClient's internal types (compiled through @testable import; see
// DocBlocksAreCompiledTests and README.md here). Never called: compiling them is the test.

@testable import ChatStreamClient
import ChatStreamHTTP

// Sources/ChatStreamHTTP/HTTPResponseParsing.swift:41
func symbolHTTPResponseHeadParser(buffer: [UInt8]) throws {
    var parser = HTTPResponseHeadParser(maxHeaderBytes: 64 << 10)
    if let (head, bodyStart) = try parser.parse(buffer) { print(head.status, buffer[bodyStart...].count) }
}

// Sources/ChatStreamHTTP/HTTPResponseParsing.swift:247
func symbolChunkedBodyDecoder() throws {
    var decoder = ChunkedBodyDecoder(maxTrailerBytes: 64 << 10)
    var body: [UInt8] = []
    try decoder.decode(Array("5\r\nhello\r\n0\r\n\r\n".utf8)[...], into: &body)
    // body == Array("hello".utf8), decoder.isComplete == true
}
