// swift-format-ignore-file
// (The examples are kept exactly as the doc comments show them.)
// The Swift examples of the `///` comments in ChatStreamJSON, compiled (see
// DocBlocksAreCompiledTests and README.md here). Each function holds one example verbatim, under
// a comment naming where it is; its parameters supply what the example uses. The functions are
// never called: compiling them is the test.

import ChatStreamJSON

// Sources/ChatStreamJSON/JSONConfiguration.swift:8
func symbolJSONConfiguration() {
    var limits = JSONConfiguration()
    limits.maxDepth = 64
    let parser = JSONParser(configuration: limits)
    _ = parser
}

// Sources/ChatStreamJSON/JSONElement.swift:9
func symbolJSONElement() throws {
    let parser = JSONParser()
    let delta = try parser.parse(Array(#"{"type":"text-delta","delta":"Hi"}"#.utf8)) { root in
        root["type"]?.isString("text-delta") == true ? root["delta"]?.string : nil
    }
    _ = delta
}

// Sources/ChatStreamJSON/JSONParser.swift:30
func symbolJSONParser() throws {
    let parser = JSONParser()
    let value = try parser.parseValue(Array(#"{"a":[1,2.5,"x"]}"#.utf8))
    let name = try parser.parse(Array(#"{"name":"Ada"}"#.utf8)) { $0["name"]?.string }
    _ = (value, name)
}

// Sources/ChatStreamJSON/JSONReading.swift:6
func symbolJSONReading() {
    var limits = JSONConfiguration()
    limits.reading = .tapeOnly  // every unit through yajl: what the scan is compared with
    _ = limits
}

// Sources/ChatStreamJSON/JSONStreamParser.swift:11
func symbolJSONStreamParser(pieces: [[UInt8]]) throws {
    var stream = JSONStreamParser()
    for piece in pieces {
        for value in try stream.feed(piece) { print(value) }
    }
    for value in try stream.finish() { print(value) }
}

// Sources/ChatStreamJSON/JSONTree+Serialization.swift:7
func symbolJSONTreeSerialization() {
    let value: JSONTree = ["a": [1, "two", nil]]
    value.jsonText  // {"a":[1,"two",null]}
}

// Sources/ChatStreamJSON/JSONTree.swift:12
func symbolJSONTree() {
    let input: JSONTree = ["city": "Paris", "days": 3, "units": nil]
    input["city"]?.stringValue   // "Paris"
    input.jsonText               // {"city":"Paris","days":3,"units":null}
}

// Sources/ChatStreamJSON/PartialJSONParser+Error.swift:3
func symbolPartialJSONParserError(parser: inout PartialJSONParser) throws {
    do {
        let input = try parser.finish()
    } catch let error as PartialJSONError where error.kind == .truncated {
        print("incomplete tool input at byte \(error.byteOffset): \(error.message)")
    }
}

// Sources/ChatStreamJSON/PartialJSONParser.swift:35
func symbolPartialJSONParser() throws {
    var parser = PartialJSONParser()
    try parser.append(#"{"city":"Par"#)
    parser.value            // ["city": "Par"]
    try parser.append(#"is","days":"#)
    parser.value            // ["city": "Paris"]  (a key without a value yet is left out)
    try parser.append("3}")
    let input = try parser.finish()   // ["city": "Paris", "days": 3]
    _ = input
}
