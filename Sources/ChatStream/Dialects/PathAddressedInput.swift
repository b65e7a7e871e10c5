// PathAddressedInput: a tool input that arrives as values addressed by JSON paths, written out as
// the JSON text it grows into.
//
// Gemini's streamed function-call arguments (`streamFunctionCallArguments`, Vertex and Gemini 3)
// do not send the input's text: each `functionCall.partialArgs[]` entry names one leaf by a JSON
// path (RFC 9535, `$.location`, `$.stops[1].city`, `$['odd key']`) and carries its value
// (`stringValue`, `numberValue`, `boolValue` or `nullValue`); a string may come in pieces, the
// entry's `willContinue` saying more of the same path follows. ChatStream's tool calls stream as
// JSON text (`toolInputDelta`), so this type writes the text a JSON writer would produce for the
// leaves in the order they come: it keeps the containers that are open (and whether a string is
// open), closes those the next path leaves, opens those it enters, and writes the value. Each
// piece of text is appended once, so the work is proportional to the input, not to the input
// squared. The value itself is built beside the text, so the complete input is exact even when
// the leaves come out of document order (a path re-entering a container already closed, an array
// index that skips ahead): the text then stops growing (``isWritingText`` false) and only the
// complete value, at the end, says what the input is.

import ChatStreamJSON

/// One step of a JSON path: an object member or an array element.
enum JSONPathStep: Hashable, Sendable {
    case member(String)
    case index(Int)

    /// Parses a JSON path of member and index steps (`$`, `.name`, `['name']`, `["name"]`, `[3]`);
    /// nil for anything else (filters, wildcards, slices and descendants name no single leaf).
    static func steps(of path: String) -> [JSONPathStep]? {
        var bytes = Array(path.utf8)[...]
        guard bytes.popFirst() == UInt8(ascii: "$") else { return nil }
        var steps: [JSONPathStep] = []
        while let first = bytes.popFirst() {
            if first == UInt8(ascii: ".") {
                let name = bytes.prefix { $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "[") }
                guard !name.isEmpty else { return nil }
                bytes = bytes.dropFirst(name.count)
                steps.append(.member(String(decoding: name, as: UTF8.self)))
            } else if first == UInt8(ascii: "[") {
                guard let quote = bytes.first else { return nil }
                if quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\"") {
                    bytes = bytes.dropFirst()
                    var name: [UInt8] = []
                    var closed = false
                    while let byte = bytes.popFirst() {
                        if byte == quote {
                            closed = true
                            break
                        }
                        if byte == UInt8(ascii: "\\") {
                            guard let escaped = bytes.popFirst() else { return nil }
                            name.append(escaped)
                        } else {
                            name.append(byte)
                        }
                    }
                    guard closed, bytes.popFirst() == UInt8(ascii: "]") else { return nil }
                    steps.append(.member(String(decoding: name, as: UTF8.self)))
                } else {
                    let digits = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
                    bytes = bytes.dropFirst(digits.count)
                    guard !digits.isEmpty, digits.count < 10, bytes.popFirst() == UInt8(ascii: "]"),
                        let index = Int(String(decoding: digits, as: UTF8.self))
                    else { return nil }
                    steps.append(.index(index))
                }
            } else {
                return nil
            }
        }
        return steps
    }
}

/// A tool input built from path-addressed leaves, with the JSON text written so far.
///
/// ```swift
/// var input = PathAddressedInput()
/// let a = input.set([.member("city")], to: .string("Par"), continues: true)   // {"city":"Par
/// let b = input.set([.member("city")], to: .string("is"), continues: false)   // is"
/// let c = input.finish()                                                       // }
/// // a + b + c == #"{"city":"Paris"}"#, input.value == ["city": "Paris"]
/// ```
struct PathAddressedInput {
    /// An open object or array of the text: its kind, how many members or elements it has so
    /// far, and (an object) their keys.
    private struct Container {
        var isArray: Bool
        var count = 0
        var keys: Set<String> = []
    }

    /// The input as built so far (an object: the root of a function's arguments).
    private(set) var value: JSONTree = .object(JSONObject())
    /// Whether the text written so far is a prefix of the input's JSON text; false once a leaf
    /// came out of document order, and after ``finish()``.
    private(set) var isWritingText = true
    /// The open containers, the root object first (empty until the first leaf opens it).
    private var containers: [Container] = []
    /// The steps that entered the open containers below the root.
    private var openPath: [JSONPathStep] = []
    /// The path of the string left open by a leaf that said more would follow.
    private var openString: [JSONPathStep]?

    /// Sets the leaf at `path` (appends to it, when it is the open string and `leaf` a string)
    /// and returns the text that extends the input's JSON text ("" once it stopped growing).
    mutating func set(_ path: [JSONPathStep], to leaf: JSONTree, continues: Bool) -> String {
        if let stringPath = openString, stringPath == path, case .string(let piece) = leaf {
            Self.update(&value, at: path[...]) { existing in
                if case .string(let text) = existing { existing = .string(text + piece) }
            }
            guard isWritingText else { return "" }
            if !continues { openString = nil }
            return Self.escaped(piece) + (continues ? "" : "\"")
        }
        Self.update(&value, at: path[...]) { $0 = leaf }
        guard isWritingText else { return "" }
        var text = ""
        if openString != nil {
            openString = nil
            text += "\""
        }
        guard !path.isEmpty else {
            isWritingText = false
            return text
        }
        if containers.isEmpty {
            containers = [Container(isArray: false)]
            text += "{"
        }
        // Close the containers this path leaves, open the ones it enters, then write the leaf.
        var shared = 0
        while shared < openPath.count, shared < path.count - 1, openPath[shared] == path[shared] { shared += 1 }
        while openPath.count > shared {
            openPath.removeLast()
            text += containers.removeLast().isArray ? "]" : "}"
        }
        for depth in shared..<path.count {
            guard let key = enter(path[depth]) else {
                isWritingText = false
                return text
            }
            text += key
            if depth < path.count - 1 {
                let isArray: Bool
                if case .index = path[depth + 1] { isArray = true } else { isArray = false }
                text += isArray ? "[" : "{"
                containers.append(Container(isArray: isArray))
                openPath.append(path[depth])
            }
        }
        if case .string(let string) = leaf, continues {
            openString = path
            text += "\"" + Self.escaped(string)
        } else {
            text += leaf.jsonText
        }
        return text
    }

    /// Ends the input: the text that closes what is open (`{}` when no leaf came; "" once the
    /// text stopped growing).
    mutating func finish() -> String {
        guard isWritingText else { return "" }
        isWritingText = false
        guard !containers.isEmpty else { return "{}" }
        var text = openString != nil ? "\"" : ""
        openString = nil
        while let container = containers.popLast() { text += container.isArray ? "]" : "}" }
        return text
    }

    /// The separator and key that enter `step` in the innermost open container, counting it
    /// there; nil when the step does not come next in document order (a key already written,
    /// an index other than the next, a member of an array or an index of an object).
    private mutating func enter(_ step: JSONPathStep) -> String? {
        var container = containers.removeLast()
        defer { containers.append(container) }
        var text = container.count > 0 ? "," : ""
        switch step {
        case .member(let name):
            guard !container.isArray, container.keys.insert(name).inserted else { return nil }
            text += JSONTree.string(name).jsonText + ":"
        case .index(let index):
            guard container.isArray, index == container.count else { return nil }
        }
        container.count += 1
        return text
    }

    /// `string` as JSON string text without its quotes.
    private static func escaped(_ string: String) -> String {
        String(JSONTree.string(string).jsonText.dropFirst().dropLast())
    }

    /// Applies `change` to the value at `path`, creating the containers on the way (an object
    /// for a member step, an array for an index step; a value of the other kind is replaced, and
    /// an array is padded with nulls up to the index).
    private static func update(
        _ tree: inout JSONTree, at path: ArraySlice<JSONPathStep>, _ change: (inout JSONTree) -> Void
    ) {
        guard let step = path.first else { return change(&tree) }
        switch step {
        case .member(let name):
            var object = tree.objectValue ?? JSONObject()
            var child = object[name] ?? .null
            tree = .null  // the object is uniquely referenced while it changes
            update(&child, at: path.dropFirst(), change)
            object[name] = child
            tree = .object(object)
        case .index(let index):
            var elements = tree.arrayValue ?? []
            tree = .null
            while elements.count <= index { elements.append(.null) }
            update(&elements[index], at: path.dropFirst(), change)
            tree = .array(elements)
        }
    }
}
