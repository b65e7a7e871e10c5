// MockProvider: a model provider on loopback for the model-agent tests. It records every request
// it gets (so a test checks the body and headers the server sent) and answers each with the next
// queued answer: a recorded stream written in given pieces, an error status, a stream cut short,
// a stream held open until the client closes it (counted, for the stop test), one that repeats
// a piece without end until the client closes it (for the byte bounds), or one that falls silent
// (for the agent's timeout).

import ChatStream
import Foundation
import TestSupport

@testable import ChatStreamServer

/// A fake OpenAI-compatible or Anthropic server answering with queued recordings.
package final class MockProvider: Sendable {
    /// How the next request is answered.
    package struct Answer: Sendable {
        package enum Ending: Sendable {
            /// The stream ends normally.
            case complete
            /// The connection is dropped after the bytes (a broken upstream).
            case cut
            /// The stream stays open (keep-alive comments) until the client closes it.
            case holdOpen
            /// The bytes are written again and again until the client closes the stream.
            case endless([UInt8])
            /// Nothing more is written (not even keep-alives) until the client closes the stream.
            case silent
        }
        package var status: Int
        package var headers: [(String, String)]
        /// The bytes, in the pieces they are written in.
        package var pieces: [[UInt8]]
        package var ending: Ending

        /// The first two text chunks of Fixtures/agents/streams/openai-chat-error-mid-stream.sse
        /// ("The first half of an answer"), then the stream held open: a reply still streaming.
        package static func firstHalfHeldOpen() throws -> Answer {
            let path = ProjectPaths.fixtures + "/agents/streams/openai-chat-error-mid-stream.sse"
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let text = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).prefix(2)
                .flatMap { Array($0) + Array("\n\n".utf8) }
            return Answer(pieces: [text], ending: .holdOpen)
        }

        package init(
            status: Int = 200, headers: [(String, String)] = [("Content-Type", "text/event-stream")],
            pieces: [[UInt8]], ending: Ending = .complete
        ) {
            self.status = status
            self.headers = headers
            self.pieces = pieces
            self.ending = ending
        }

        /// A recording from `Fixtures/`, written in `pieces` cut as given (whole when nil).
        package static func recording(
            _ path: String, pieces cut: (([UInt8]) -> [[UInt8]])? = nil, ending: Ending = .complete
        )
            -> Answer
        {
            let bytes = Array(FileManager.default.contents(atPath: ProjectPaths.fixtures + "/" + path) ?? Data())
            precondition(!bytes.isEmpty, "no fixture at \(path)")
            return Answer(pieces: cut?(bytes) ?? [bytes], ending: ending)
        }
    }

    /// A request the provider got.
    package struct Received: Sendable {
        package var method: String
        package var path: String
        /// Header names lower-cased.
        package var headers: [String: String]
        package var body: JSONTree
    }

    private struct State: Sendable {
        var answers: [Answer] = []
        var received: [Received] = []
        var closedByClient = 0
        var heldToDeadline = 0
        var stopped = false
    }

    private let state = Shared(State())
    private let server: HTTPServer

    /// Starts a provider on a free loopback port.
    package init() throws {
        let state = self.state
        var configuration = HTTPServerConfiguration()
        configuration.shutdownGracePeriod = .seconds(3)
        server = HTTPServer(configuration: configuration) { request, writer in
            var headers: [String: String] = [:]
            for (name, value) in request.headers { headers[name.lowercased()] = value }
            let received = Received(
                method: request.method, path: request.path, headers: headers,
                body: (try? JSONTree(parsing: request.body)) ?? .null)
            var answer: Answer?
            state.update { state in
                state.received.append(received)
                answer = state.answers.isEmpty ? nil : state.answers.removeFirst()
            }
            guard let answer else {
                try writer.respond(status: 500, body: Array(#"{"error":{"message":"no answer queued"}}"#.utf8))
                return
            }
            guard answer.status == 200 else {
                try writer.respond(status: answer.status, headers: answer.headers, body: answer.pieces.flatMap { $0 })
                return
            }
            try writer.startStream(status: 200, headers: answer.headers)
            for piece in answer.pieces where !piece.isEmpty { try writer.write(piece) }
            switch answer.ending {
            case .complete:
                try writer.finishStream()
            case .cut:
                throw MockProviderCut()
            case .holdOpen:
                // Long enough for CI's slowest first run (see holdCap); a stream that outlives it is
                // counted apart, so the stop test can say which of the two happened.
                let deadline = ContinuousClock.now + Self.holdCap
                while ContinuousClock.now < deadline, !state.value.stopped {
                    Thread.sleep(forTimeInterval: 0.05)
                    do {
                        try writer.write(Array(": keep-alive\n\n".utf8))
                    } catch {
                        state.update { $0.closedByClient += 1 }
                        throw error
                    }
                }
                state.update { $0.heldToDeadline += 1 }
            case .silent:
                // The connection is taken from the server, watched for the client's close, closed.
                guard let (socket, _) = writer.handOff() else { return }
                defer { socket.close() }
                let deadline = ContinuousClock.now + Self.holdCap
                var buffer = [UInt8](repeating: 0, count: 4096)
                while ContinuousClock.now < deadline, !state.value.stopped {
                    guard socket.waitReadable(timeoutMilliseconds: 50) else { continue }
                    if (try? socket.receive(into: &buffer, withoutWaiting: true)) ?? 0 == 0 {
                        state.update { $0.closedByClient += 1 }
                        return
                    }
                }
                state.update { $0.heldToDeadline += 1 }
            case .endless(let piece):
                let deadline = ContinuousClock.now + Self.holdCap
                while ContinuousClock.now < deadline, !state.value.stopped {
                    do {
                        try writer.write(piece)
                    } catch {
                        state.update { $0.closedByClient += 1 }
                        throw error
                    }
                }
                state.update { $0.heldToDeadline += 1 }
            }
        }
        try server.start()
    }

    /// How long a held-open, endless or silent stream waits for the client to close it (or for
    /// ``stop()``): far past what a loaded machine takes (the slowest state a CI run waited for took
    /// 123 s), and twice the 300 s the tests wait, so a stream the server never closes fails its
    /// test in 5 minutes, not past CI's 25.
    package static let holdCap = Duration.seconds(600)

    /// `http://127.0.0.1:<port>/v1`.
    package var baseURL: String { "http://127.0.0.1:\(server.port)/v1" }

    /// Queues the answer to the next request.
    package func enqueue(_ answer: Answer) {
        state.update { $0.answers.append(answer) }
    }

    /// The requests so far.
    package var received: [Received] { state.value.received }

    /// How many held-open, endless or silent streams the client closed.
    package var closedByClient: Int { state.value.closedByClient }

    /// How many held-open, endless or silent streams reached the provider's own deadline without the
    /// client closing them.
    package var heldToDeadline: Int { state.value.heldToDeadline }

    /// Stops the provider.
    package func stop() {
        state.update { $0.stopped = true }
        server.stop()
    }
}

/// Thrown by the handler to drop a connection mid-stream.
private struct MockProviderCut: Error {}
