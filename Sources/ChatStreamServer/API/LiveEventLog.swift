// LiveEventLog: the bounded, durable buffer behind `GET /agents/{agentId}/events`.
//
// Events are numbered from one store-wide sequence (so IDs are strictly increasing for every
// caller) and kept per audience (a device, or a signed-in user: see ConversationRecord.audience),
// the last `capacity` of each. The log is part of the store's state, so an event is recorded in
// the same transaction as the change it reports and survives a restart with the data file; the
// subscribers are woken only after that transaction committed. A resume from an ID older than
// what an audience still holds (or an ID this log never gave) answers "reset".

import ChatStream

/// One recorded live event.
struct LiveEventRecord: Codable, Sendable, Equatable {
    var id: Int
    var type: String
    var data: JSONTree
}

/// The live events still held, per audience.
struct LiveEventLog: Codable, Sendable {
    /// The last ID given.
    var lastId = 0
    /// The held events of each audience, oldest first.
    var byAudience: [String: [LiveEventRecord]] = [:]
    /// Per audience, the newest ID no longer held.
    var evictedThrough: [String: Int] = [:]

    /// What a subscriber gets after an ID.
    enum Resumption: Equatable {
        /// Every later event of its audiences, oldest first.
        case events([LiveEventRecord])
        /// The log cannot tell what came after that ID: start again from ``LiveEventLog/lastId``.
        case reset
    }

    /// Records an event for `audience`, keeping at most `capacity` per audience; returns its ID.
    @discardableResult
    mutating func append(audience: String, type: String, data: JSONTree, capacity: Int) -> Int {
        lastId += 1
        byAudience[audience, default: []].append(LiveEventRecord(id: lastId, type: type, data: data))
        let excess = byAudience[audience]!.count - max(1, capacity)
        if excess > 0 {
            evictedThrough[audience] = byAudience[audience]![excess - 1].id
            byAudience[audience]!.removeFirst(excess)
        }
        return lastId
    }

    /// The events of `audiences` after `id`, or ``Resumption/reset`` when some may be missing.
    func events(after id: Int, audiences: [String]) -> Resumption {
        guard id <= lastId, id >= 0 else { return .reset }
        var found: [LiveEventRecord] = []
        for audience in audiences {
            if let evicted = evictedThrough[audience], evicted > id { return .reset }
            guard let held = byAudience[audience], let last = held.last, last.id > id else { continue }
            // Held events are in ID order: find the first one after `id` by bisection.
            var low = 0
            var high = held.count
            while low < high {
                let middle = (low + high) / 2
                if held[middle].id <= id { low = middle + 1 } else { high = middle }
            }
            found.append(contentsOf: held[low...])
        }
        if audiences.count > 1 { found.sort { $0.id < $1.id } }
        return .events(found)
    }
}
