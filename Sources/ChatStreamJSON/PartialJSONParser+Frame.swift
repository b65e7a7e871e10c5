// PartialJSONParser.Frame: one open object or array of the incremental parser.
//
// The parser keeps a stack of these. A frame holds the members completed so far, only ever
// appended to, so a value read while the container is open shares them (copy-on-write) instead
// of copying; for an object also the key whose value is under way and, past a few members, an
// index of key positions so that a repeated key (its last value kept at its first position) is
// found in O(1). To show the partial member in a snapshot, `hold` places it in the container and
// `release` takes it out before the next piece is read.
//
// For example, after `{"a":1,"b":"x` the top frame is an object with the member a = 1 and the
// key `b` under way; reading `value` holds b = "x" in it, giving {"a":1,"b":"x"}, and the next
// `append` releases it again.

extension PartialJSONParser {
    /// An open container.
    struct Frame: Sendable {
        let isObject: Bool
        /// Where its `[` or `{` is, for messages.
        let openOffset: Int
        var elements: [JSONTree] = []
        var object = JSONObject()
        /// The key whose value is under way (objects).
        var key: String?
        /// Where a member named ``key`` already is (a repeated key), found once when the key ends.
        var keyPosition: Int?
        /// Key positions, kept once the object has more than `linearLookupLimit` members so that
        /// repeated-key checks stay O(1).
        var keyIndex: [JSONKey: Int] = [:]
        /// The partial member ``PartialJSONParser/currentValue()`` placed in the container, which
        /// the next byte read takes out again.
        var held = Held.none
        /// The completed member a repeated key's partial value stands in for while held.
        var heldReplaced = JSONTree.null

        /// How the partial member is held: not, appended last, or in a repeated key's place.
        enum Held: UInt8, Sendable { case none, appended, replaced }

        static let linearLookupLimit = 16

        init(isObject: Bool, openOffset: Int) {
            self.isObject = isObject
            self.openOffset = openOffset
        }

        func index(of key: String) -> Int? {
            object.count <= Self.linearLookupLimit ? object.index(ofKey: key) : keyIndex[JSONKey(key)]
        }

        /// Sets the key of the member under way (and where that key already is, if anywhere).
        mutating func setKey(_ key: String) {
            keyPosition = index(of: key)
            self.key = key
        }

        /// Adds the completed member under way; a repeated key keeps its last value at its first
        /// position.
        mutating func completeMember(_ value: JSONTree) {
            let key = self.key ?? ""
            self.key = nil
            if let position = keyPosition {
                keyPosition = nil
                object.replaceValue(at: position, with: value)
                return
            }
            object.appendUnchecked(key: key, value: value)
            let count = object.count
            if count == Self.linearLookupLimit + 1 {
                for (position, name) in object.keys.enumerated() { keyIndex[JSONKey(name)] = position }
            } else if count > Self.linearLookupLimit + 1 {
                keyIndex[JSONKey(key)] = count - 1
            }
        }

        /// Places `child` (the partial member under way) in the container, where a snapshot
        /// would show it.
        mutating func hold(_ child: JSONTree?) {
            guard let child else { return }
            guard isObject else {
                elements.append(child)
                held = .appended
                return
            }
            guard let key else { return }
            if let position = keyPosition {
                heldReplaced = object.values[position]
                object.replaceValue(at: position, with: child)
                held = .replaced
            } else {
                object.appendUnchecked(key: key, value: child)
                held = .appended
            }
        }

        /// Takes the held partial member out again (in place while no value read shares the
        /// container).
        mutating func release() {
            switch held {
            case .none: return
            case .appended:
                if isObject { object.removeLastUnchecked() } else { elements.removeLast() }
            case .replaced:
                if let position = keyPosition { object.replaceValue(at: position, with: heldReplaced) }
                heldReplaced = .null
            }
            held = .none
        }

        /// The container as a value.
        var containerValue: JSONTree { isObject ? .object(object) : .array(elements) }
    }

}
