#if !canImport(CCurl)
    import Foundation
    import Synchronization

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// The session delegate of ``URLSessionTransport``: routes callbacks to each task's exchange.
    final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
        /// A task, by its session (a transport may run several) and its identifier in that session.
        private struct Key: Hashable {
            let session: ObjectIdentifier
            let task: Int
        }

        private let exchanges = Mutex([Key: URLSessionExchange]())

        func register(_ exchange: URLSessionExchange, for task: URLSessionTask, in session: URLSession) {
            let key = Key(session: ObjectIdentifier(session), task: task.taskIdentifier)
            exchanges.withLock { $0[key] = exchange }
        }

        private func exchange(for task: URLSessionTask, in session: URLSession) -> URLSessionExchange? {
            exchanges.withLock { $0[Key(session: ObjectIdentifier(session), task: task.taskIdentifier)] }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            let accepted = exchange(for: dataTask, in: session)?.receive(response: response) ?? false
            completionHandler(accepted ? .allow : .cancel)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            exchange(for: dataTask, in: session)?.receive(data: data)
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(exchange(for: task, in: session)?.redirect(from: response, to: request))
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let key = Key(session: ObjectIdentifier(session), task: task.taskIdentifier)
            let exchange = exchanges.withLock { $0.removeValue(forKey: key) }
            exchange?.complete(error: error)
        }
    }
#endif
