// The partial value: the parser's stack seen as a JSONTree.
//
// Cost of one read: O(depth + members of the open containers + length of a number under way).
// Completed members and the string under way are shared with the parser by copy-on-write, not
// copied: `.string(prefix)` retains the parser's `String`, `.array(elements)` its array.
// Only an open container that gets a partial last member is copied (its member list, not the
// members). Holding on to a returned value until after the next append makes that append copy the
// shared storage once (copy-on-write); drop a value before appending to keep the total linear.
//
// `currentValue()` is the same value without that copy: it places the partial members in the open
// containers themselves (each frame's member list gets the partial last member appended, or put in
// a repeated key's place) and returns the outermost container, sharing all of it. The next append
// takes those members out again, outermost first, so each container is left with one owner (the
// parser) before the next is touched, and every change happens in place while no reader holds the
// last value. A read costs O(depth), with no allocation once the member lists have their capacity.

extension PartialJSONParser {
    /// The best value so far, or `nil` when no value has begun (empty or whitespace-only input).
    ///
    /// Open objects and arrays appear with their completed members plus the partial last one:
    /// an unfinished string as its prefix (`{"city":"Par` gives `["city": "Par"]`), an unfinished
    /// number when it is a number so far (`12`; not `-`, `1.` or `1e`); unfinished literals and
    /// keys without a value yet are left out. Once ``isComplete``, the complete value.
    ///
    /// Cost per read: O(depth + members of the open containers), independent of the length of
    /// completed strings and members, so reading after every delta keeps the total work linear.
    /// The result shares storage with the parser: keeping it past the next `append` makes that
    /// append copy the string or member list under way once (copy-on-write); a UI that keeps only
    /// the latest value, released before the next delta, stays linear.
    public var value: JSONTree? {
        var work = 0
        return value(countingWork: &work)
    }

    /// ``value``, adding to `work` the number of nodes and member slots it touched (tests check
    /// the total stays linear).
    func value(countingWork work: inout Int) -> JSONTree? {
        if let root { return root }
        if holdsPartialMembers {
            // The frames already show the partial members (placed by `currentValue()`).
            work += 1
            return stack[0].containerValue
        }
        var current = partialToken(countingWork: &work)
        var index = stack.count - 1
        while index >= 0 {
            current = stack[index].snapshot(adding: current, countingWork: &work)
            index -= 1
        }
        return current
    }

    /// ``value``, placing the partial members in the open containers instead of copying their
    /// member lists: the same value, at O(depth) per read and no allocation.
    ///
    /// The value shares the parser's open containers; the next `append` takes the partial members
    /// out of them again, in place when the value read last has been released by then (keeping
    /// it makes that append copy the member lists under way once, as with ``value``).
    public mutating func currentValue() -> JSONTree? {
        if let root { return root }
        if holdsPartialMembers { return stack[0].containerValue }
        var work = 0
        var current = partialToken(countingWork: &work)
        guard !stack.isEmpty else { return current }
        var index = stack.count - 1
        while index >= 0 {
            stack[index].hold(current)
            current = stack[index].containerValue
            index -= 1
        }
        holdsPartialMembers = true
        return current
    }

    /// Takes the partial members ``currentValue()`` placed out of the open containers,
    /// outermost first (so each inner container has one owner again when its turn comes).
    mutating func releasePartialMembers() {
        guard holdsPartialMembers else { return }
        holdsPartialMembers = false
        for index in stack.indices { stack[index].release() }
    }

    /// The token under way as a value, when it is one so far.
    private func partialToken(countingWork work: inout Int) -> JSONTree? {
        switch state {
        case .string, .escape, .unicode, .afterHighSurrogate, .afterHighSurrogateBackslash:
            work += 1
            return stringIsKey ? nil : .string(string)
        case .number:
            guard numberState.isAccepting else { return nil }
            work += number.count
            return number.withUnsafeBytes { JSONNumber(validLiteral: $0) }.map(JSONTree.number)
        default:
            return nil
        }
    }

    /// Identifies the storage of the string under way (tests check appends do not copy it).
    var stringStorageIdentity: UInt? {
        string.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) }
    }
}

extension PartialJSONParser.Frame {
    /// This container as a value, with `child` (the partial member under way) added last.
    func snapshot(adding child: JSONTree?, countingWork work: inout Int) -> JSONTree {
        work += 1
        if isObject {
            guard let child, let key else { return .object(object) }
            var copy = object
            work += copy.count
            if let index = keyPosition {
                copy.replaceValue(at: index, with: child)
            } else {
                copy.appendUnchecked(key: key, value: child)
            }
            return .object(copy)
        }
        guard let child else { return .array(elements) }
        var copy = elements
        work += copy.count
        copy.append(child)
        return .array(copy)
    }
}
