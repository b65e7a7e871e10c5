// Pagination as an AsyncSequence: one page is fetched when the items of the previous one run out,
// never ahead. Items are de-duplicated by ID across pages (a list that shifts between requests
// can repeat an item at a page boundary).
//
// A list ordered by last change (conversations) reorders while it is walked: a conversation
// updated mid-walk jumps to the newest end, behind a newest-first walk's cursor, and no later
// page holds it. So a walk of more than one page ends with a catch-up from the top (newest change
// first): it yields what it has not yielded yet and stops at the first page holding an item
// already yielded and unchanged since (everything after it is older still). It repeats while a
// pass yields something, a few times at most. This holds against any server, whatever its cursor.

import Foundation

/// The items of a paged listing, one at a time, fetching each page only when needed.
///
/// Each item is yielded at most once (by `id`). Walking conversations, every conversation that
/// existed when the walk began is yielded, even one updated while the walk went on (it comes at
/// the end, as the server shows it then); conversations started during the walk may come there
/// too. Iteration stops when the task is cancelled.
///
/// ```swift
/// for try await conversation in client.conversations(matching: ConversationQuery().limit(50)) {
///     print(conversation.id)
/// }
/// ```
public struct AsyncPaginatedSequence<Item: Identifiable & Sendable>: AsyncSequence, Sendable
where Item.ID: Sendable {
    public typealias Element = Item

    enum Order: Sendable {
        case pageOrder
        case reversedWithinPage
    }

    /// How a list ordered by last change is caught up at the end of a walk.
    struct Refresh: Sendable {
        /// The first page of the same list, newest change first.
        let top: @Sendable () async throws -> PaginatedResponse<Item>
        /// Whether an item the catch-up brings is the one yielded before, unchanged.
        let isUnchanged: @Sendable (_ yielded: Item, _ now: Item) -> Bool
        /// The most catch-up passes.
        var maxPasses = 3
    }

    let order: Order
    let first: @Sendable () async throws -> PaginatedResponse<Item>
    let refresh: Refresh?
    /// Items to hand over before the first page is fetched (a local cache's, in yield order);
    /// the pages then skip them.
    let cached: (@Sendable () async throws -> [Item])?

    init(
        order: Order, refresh: Refresh? = nil, cached: (@Sendable () async throws -> [Item])? = nil,
        first: @escaping @Sendable () async throws -> PaginatedResponse<Item>
    ) {
        self.order = order
        self.refresh = refresh
        self.cached = cached
        self.first = first
    }

    public func makeAsyncIterator() -> Iterator { Iterator(sequence: self) }

    /// Fetches pages as ``next()`` needs them.
    public struct Iterator: AsyncIteratorProtocol {
        private enum Phase {
            case walk
            /// A catch-up pass: its number, whether it yielded anything, whether its current page
            /// held an item already yielded and unchanged.
            case catchUp(pass: Int, yielded: Bool, reachedUnchanged: Bool)
        }

        let sequence: AsyncPaginatedSequence
        private var page: PaginatedResponse<Item>? = nil
        private var buffer: [Item] = []
        private var position = 0
        private var yieldedCopies: [Item.ID: Item] = [:]
        private var seen: Set<Item.ID> = []
        private var pagesWalked = 0
        private var phase = Phase.walk
        private var finished = false
        private var cachedPending: [Item]? = nil
        private var cacheRead = false

        init(sequence: AsyncPaginatedSequence) { self.sequence = sequence }

        /// The next item not yielded before; nil at the end or once the task is cancelled.
        public mutating func next() async throws -> Item? {
            while !finished {
                if Task.isCancelled {
                    finished = true
                    return nil
                }
                if let item = nextBuffered() { return item }
                if !cacheRead {
                    cacheRead = true
                    // A cache that cannot be read is skipped: the server's pages still come.
                    if let cached = sequence.cached, let items = try? await cached() {
                        cachedPending = items
                    }
                }
                if var pending = cachedPending, !pending.isEmpty {
                    let item = pending.removeFirst()
                    cachedPending = pending
                    guard seen.insert(item.id).inserted else { continue }
                    if sequence.refresh != nil { yieldedCopies[item.id] = item }
                    return item
                }
                do {
                    guard let nextPage = try await fetch() else {
                        finished = true
                        return nil
                    }
                    page = nextPage
                    buffer = sequence.order == .pageOrder ? nextPage.data : nextPage.data.reversed()
                    position = 0
                } catch is CancellationError {
                    finished = true
                    return nil
                } catch {
                    finished = true
                    throw error
                }
            }
            return nil
        }

        /// The next item of the current page to yield, noting what a catch-up pass learns.
        private mutating func nextBuffered() -> Item? {
            while position < buffer.count {
                let item = buffer[position]
                position += 1
                if case .catchUp(let pass, let yielded, _) = phase, let refresh = sequence.refresh {
                    if let before = yieldedCopies[item.id] {
                        if refresh.isUnchanged(before, item) {
                            phase = .catchUp(pass: pass, yielded: yielded, reachedUnchanged: true)
                        }
                        continue
                    }
                    phase = .catchUp(pass: pass, yielded: true, reachedUnchanged: false)
                }
                guard seen.insert(item.id).inserted else { continue }
                if sequence.refresh != nil { yieldedCopies[item.id] = item }
                return item
            }
            return nil
        }

        /// The next page to read: the walk's, then the catch-up passes'; nil at the end.
        private mutating func fetch() async throws -> PaginatedResponse<Item>? {
            switch phase {
            case .walk:
                guard let page else {
                    pagesWalked = 1
                    return try await sequence.first()
                }
                if let next = try await page.loadMore() {
                    pagesWalked += 1
                    return next
                }
                guard let refresh = sequence.refresh, pagesWalked > 1 else { return nil }
                phase = .catchUp(pass: 1, yielded: false, reachedUnchanged: false)
                return try await refresh.top()
            case .catchUp(let pass, let yielded, let reachedUnchanged):
                if !reachedUnchanged, let next = try await page?.loadMore() { return next }
                guard yielded, let refresh = sequence.refresh, pass < refresh.maxPasses else { return nil }
                phase = .catchUp(pass: pass + 1, yielded: false, reachedUnchanged: false)
                return try await refresh.top()
            }
        }
    }
}

@available(*, unavailable)
extension AsyncPaginatedSequence.Iterator: Sendable {}
