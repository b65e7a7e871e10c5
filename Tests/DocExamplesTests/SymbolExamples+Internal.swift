// swift-format-ignore-file
// (The examples are kept exactly as the doc comments show them.)
// The `///` examples of internal types (compiled through @testable import; see
// DocBlocksAreCompiledTests and README.md here). Never called: compiling them is the test.

@testable import ChatStream

// Sources/ChatStream/Dialects/PathAddressedInput.swift:75
func symbolPathAddressedInput() {
    var input = PathAddressedInput()
    let a = input.set([.member("city")], to: .string("Par"), continues: true)   // {"city":"Par
    let b = input.set([.member("city")], to: .string("is"), continues: false)   // is"
    let c = input.finish()                                                       // }
    // a + b + c == #"{"city":"Paris"}"#, input.value == ["city": "Paris"]
    _ = (a, b, c)
}
