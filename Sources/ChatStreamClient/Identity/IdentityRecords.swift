// The stored forms of the identity, shared by the file and Keychain stores: the device ID as one
// line of text, the signed-in user as `{"token": "...", "userId": "..." | null}`.

import ChatStream
import Foundation

enum IdentityRecords {
    static let deviceIdRemedy =
        "delete it to start a new anonymous identity (its anonymous conversations are then lost)"
    static let userRemedy = "sign in again with identify(token:) or call logout() to replace it"

    /// The device ID in `bytes`, which must be a UUID (kept exactly as stored).
    static func deviceId(_ bytes: [UInt8], location: String) throws(IdentityStoreError) -> String {
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw IdentityStoreError(.corrupt, location, "the device ID is not UTF-8 text; \(deviceIdRemedy)")
        }
        let trimmed = trimmingWhitespace(text)
        guard UUID(uuidString: trimmed) != nil else {
            let shown = trimmed.count > 40 ? String(trimmed.prefix(40)) + "..." : trimmed
            throw IdentityStoreError(
                .corrupt, location, "the device ID \"\(shown)\" is not a UUID; \(deviceIdRemedy)", byteOffset: 0)
        }
        return trimmed
    }

    static func deviceIdBytes(_ id: String) -> [UInt8] { Array((id + "\n").utf8) }

    /// `text` without the white space and line breaks at its ends (Unicode's White_Space, the set
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` takes away), in Swift alone: Foundation's
    /// goes through NSString, 0.74 million instructions the first time, at every command's start.
    static func trimmingWhitespace(_ text: String) -> String {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
            let last = text.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(text[first...last])
    }

    /// The signed-in user in `bytes`.
    static func user(_ bytes: [UInt8], location: String) throws(IdentityStoreError) -> SignedInUser {
        let value: JSONTree
        do {
            value = try JSONTree(parsing: bytes)
        } catch let error as JSONError {
            throw IdentityStoreError(
                .corrupt, location, "the signed-in user is not valid JSON (\(error.message)); \(userRemedy)",
                byteOffset: error.byteOffset)
        } catch {
            throw IdentityStoreError(.corrupt, location, "the signed-in user cannot be read: \(error); \(userRemedy)")
        }
        guard let token = value["token"]?.stringValue, !token.isEmpty else {
            throw IdentityStoreError(.corrupt, location, "the signed-in user has no \"token\" string; \(userRemedy)")
        }
        let userId = value["userId"]
        guard userId == nil || userId == .null || userId?.stringValue != nil else {
            throw IdentityStoreError(
                .corrupt, location, "the signed-in user's \"userId\" is not a string; \(userRemedy)")
        }
        return SignedInUser(token: token, userId: userId?.stringValue)
    }

    static func userBytes(_ user: SignedInUser) -> [UInt8] {
        let value: JSONTree = ["token": .string(user.token), "userId": user.userId.map(JSONTree.string) ?? .null]
        return value.jsonBytes
    }
}
