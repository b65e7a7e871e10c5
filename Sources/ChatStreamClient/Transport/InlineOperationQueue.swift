// InlineOperationQueue: a delegate queue that runs URLSession's callbacks on the calling thread.
//
// swift-corelibs-foundation hands each delegate callback to `delegateQueue.addOperation { ... }`
// from the queue that drives libcurl (one serial queue shared by every URLSession in the process).
// Running them inline there puts the body callback where libcurl's receive pause may be called
// (CurlReceivePause), and saves a hop per chunk. So these callbacks must be quick and never wait,
// and must not call into a session synchronously (`cancel()` waits for that queue): the exchange
// cancels from another queue.

import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// Runs every block added with `addOperation(_:)` at once, on the caller's thread.
    final class InlineOperationQueue: OperationQueue, @unchecked Sendable {
        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            block()
        }
    }
#endif
