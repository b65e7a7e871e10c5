// JSONElement+SameValue: comparing an element with a tree without building the element's tree.
//
// A dialect that emits a value only when it changed (Gemini's usage, repeated on every element)
// would otherwise make a tree per element to compare. The walk here answers true only when
// `jsonValue == value` is sure to be true as well, so a false answer is "compare the trees".

import ChatStreamBytes

extension JSONElement {
    /// Whether this element holds `value`; true only when ``jsonValue`` `== value` is certain.
    ///
    /// Strings must be byte-equal (trees compare them by canonical equivalence) and objects must
    /// list the same keys in the same order (trees also accept another order). Anything else
    /// answers false, and the caller compares trees, so the answer never differs from theirs
    /// when it is true. Allocates nothing for nulls, booleans, strings, integers, arrays and objects.
    package func surelyEquals(_ value: JSONTree) -> Bool {
        switch (kind, value) {
        case (.null, .null): return true
        case (.bool, .bool(let other)): return bool == other
        case (.number, .number(let other)): return number == other
        case (.string, .string(let other)):
            return holdsBytes(of: other)
        case (.array, .array(let elements)):
            guard count == elements.count else { return false }
            var index = 0
            var same = true
            forEachElement { element in
                if same { same = element.surelyEquals(elements[index]) }
                index += 1
            }
            return same
        case (.object, .object(let object)):
            // A repeated key makes the element's count larger than its tree's.
            guard count == object.count else { return false }
            var members = object.makeIterator()
            var same = true
            forEachMember { key, member in
                guard same, let (name, otherValue) = members.next() else {
                    same = false
                    return
                }
                same = key.holdsBytes(of: name) && member.surelyEquals(otherValue)
            }
            return same
        default: return false
        }
    }

    /// Whether this string or key has exactly the UTF-8 bytes of `text`.
    private func holdsBytes(of text: String) -> Bool {
        var text = text
        return text.withUTF8 { theirs in withUTF8 { $0.sameBytes(as: UnsafeRawBufferPointer(theirs)) } ?? false }
    }
}
