// UUIDIdentifiers: an identifier that is a UUID names the same thing in any letter case (the
// server stores client-made UUIDs lower-case), so the client writes it lower-case everywhere it
// sends, stores or compares one. Other identifiers are left exactly as given.

enum UUIDIdentifiers {
    /// `id` lower-cased when it is a UUID (8-4-4-4-12 hexadecimal digits), else `id` unchanged.
    static func normalized(_ id: String) -> String {
        needsNormalizing(id) ? id.lowercased() : id
    }

    /// Whether `id` is a UUID with an upper-case letter.
    static func needsNormalizing(_ id: String) -> Bool {
        isUUID(id) && id.utf8.contains { (0x41...0x46).contains($0) }
    }

    /// Whether `a` and `b` name the same thing.
    static func same(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a == b || normalized(a) == normalized(b)
    }

    static func isUUID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let hex = (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
                guard hex else { return false }
            }
        }
        return true
    }
}
