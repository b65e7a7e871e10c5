// Pagination as an AsyncSequence: one page is fetched when the items of the previous one run out,
// never ahead. Items are de-duplicated by ID across pages (a list that shifts between requests
// can repeat an item at a page boundary).

/// The items of a paged listing, one at a time, fetching each page only when needed.
///
/// Each item is yielded at most once (by `id`). Iteration stops when the task is cancelled.
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

    let order: Order
    let first: @Sendable () async throws -> PaginatedResponse<Item>

    init(order: Order, first: @escaping @Sendable () async throws -> PaginatedResponse<Item>) {
        self.order = order
        self.first = first
    }

    public func makeAsyncIterator() -> Iterator { Iterator(sequence: self) }

    /// Fetches pages as ``next()`` needs them.
    public struct Iterator: AsyncIteratorProtocol {
        let sequence: AsyncPaginatedSequence
        var page: PaginatedResponse<Item>? = nil
        var buffer: [Item] = []
        var position = 0
        var seen: Set<Item.ID> = []
        var finished = false

        init(sequence: AsyncPaginatedSequence) { self.sequence = sequence }

        /// The next item not yielded before; nil at the end or once the task is cancelled.
        public mutating func next() async throws -> Item? {
            while !finished {
                if Task.isCancelled {
                    finished = true
                    return nil
                }
                while position < buffer.count {
                    let item = buffer[position]
                    position += 1
                    if seen.insert(item.id).inserted { return item }
                }
                let nextPage: PaginatedResponse<Item>?
                do {
                    if let page {
                        nextPage = try await page.loadMore()
                    } else {
                        nextPage = try await sequence.first()
                    }
                } catch is CancellationError {
                    finished = true
                    return nil
                } catch {
                    finished = true
                    throw error
                }
                guard let nextPage else {
                    finished = true
                    return nil
                }
                page = nextPage
                buffer = sequence.order == .pageOrder ? nextPage.data : nextPage.data.reversed()
                position = 0
            }
            return nil
        }
    }
}

@available(*, unavailable)
extension AsyncPaginatedSequence.Iterator: Sendable {}
