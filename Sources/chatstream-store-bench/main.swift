// chatstream-store-bench: chat and list latency of the local server as its SQLite store grows.
//
// For each store size (default 0, 10,000 and 100,000 conversations, each with two messages,
// spread over 100 other devices) it starts a ChatAPIServer on a fresh database file in WAL mode
// with synchronous=FULL (all of them at once, requests interleaved), and times, over loopback: a list page of 20 of the measured device's 40
// conversations, a second page through its cursor, a `q=` search of them, and a streamed chat that
// continues one of its conversations (stored and synced before the answer). It prints the median
// and p90 of each, and each median's ratio to the empty store's, measured in the same run.
//
//   chatstream-store-bench [--sizes 0,10000,100000] [--requests N] [--json]

import ChatStream
import ChatStreamServer
import Foundation

struct Options {
    var sizes = [0, 10_000, 100_000]
    var requests = 200
    var json = false

    init(_ arguments: [String]) {
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--sizes":
                index += 1
                sizes = arguments[index].split(separator: ",").compactMap { Int($0) }
            case "--requests":
                index += 1
                requests = Int(arguments[index]) ?? requests
            case "--json": json = true
            default:
                FileHandle.standardError.write(
                    Data("usage: chatstream-store-bench [--sizes 0,10000,100000] [--requests N] [--json]\n".utf8))
                exit(2)
            }
            index += 1
        }
    }
}

/// Median and p90 of one operation, in microseconds.
struct Figure {
    var median: Double
    var p90: Double

    init(_ samples: [Duration]) {
        let sorted = samples.map { Double($0.components.attoseconds) / 1e12 + Double($0.components.seconds) * 1e6 }
            .sorted()
        median = sorted[sorted.count / 2]
        p90 = sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
    }
}

/// One store size's server, seeded and warmed, with what its requests need.
struct Subject {
    let size: Int
    let server: ChatAPIServer
    let directory: URL
    let base: String
    let cursor: String
    let conversation: String
    static let device = "bench-device"

    init(size: Int) throws {
        self.size = size
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = ChatAPIServer.Configuration()
        configuration.port = 0
        configuration.replyDelay = .zero
        configuration.dataFile = directory.appendingPathComponent("bench.sqlite").path
        server = ChatAPIServer(configuration: configuration)
        try server.seedConversations(count: size, devices: 100)
        try server.start()
        base = "/api/sdk/agents/\(configuration.agentId)"
        for index in 0..<40 {
            let answer = try LoopbackHTTP.exchange(
                port: server.port, method: "POST", path: base + "/chat", device: Self.device,
                body: #"{"message":"bench conversation \#(index) about tides","stream":false}"#)
            guard answer.status == 200 else { throw LoopbackHTTP.Failure(description: "seed chat: \(answer.status)") }
        }
        (cursor, conversation) = try pageCursor(
            port: server.port, path: base + "/conversations?limit=20", device: Self.device)
    }

    /// The request of `operation`.
    func request(_ operation: String) -> (method: String, path: String, body: String?) {
        switch operation {
        case "list": ("GET", base + "/conversations?limit=20", nil)
        case "list-page-2": ("GET", base + "/conversations?limit=20&cursor=\(cursor)", nil)
        case "search": ("GET", base + "/conversations?limit=20&q=tides", nil)
        default:
            (
                "POST", base + "/chat",
                #"{"message":"and tomorrow?","conversationId":"\#(conversation)","stream":true}"#
            )
        }
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The first page's cursor and first conversation, read with the library's own JSON parser.
func pageCursor(port: UInt16, path: String, device: String) throws -> (cursor: String, firstId: String) {
    let answer = try LoopbackHTTP.exchange(port: port, method: "GET", path: path, device: device)
    let json = try JSONTree(parsing: answer.body)
    guard let cursor = json["pagination"]?["cursor"]?.stringValue, let id = json["data"]?[0]?["id"]?.stringValue
    else { throw LoopbackHTTP.Failure(description: "no cursor on the first page") }
    return (cursor, id)
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let operations = ["list", "list-page-2", "search", "chat"]
// Every size's server runs at once and the samples interleave (each round asks every server in
// turn), so the machine's drifting load falls on every size alike.
let subjects = try options.sizes.map { try Subject(size: $0) }
var samples: [[String: [Duration]]] = Array(repeating: [:], count: subjects.count)
let clock = ContinuousClock()
// Chats stop after 400 rounds: each stores two messages in the one conversation, whose quota is 2,000.
let chatRounds = 400
for round in 0..<options.requests {
    for operation in operations where operation != "chat" || round < chatRounds {
        for (index, subject) in subjects.enumerated() {
            let (method, path, body) = subject.request(operation)
            let elapsed = try clock.measure {
                let answer = try LoopbackHTTP.exchange(
                    port: subject.server.port, method: method, path: path, device: Subject.device, body: body)
                guard answer.status == 200 else {
                    throw LoopbackHTTP.Failure(description: "\(operation) answered \(answer.status)")
                }
            }
            samples[index][operation, default: []].append(elapsed)
        }
    }
}
for subject in subjects { subject.stop() }
let results = zip(options.sizes, samples.map { $0.mapValues(Figure.init) }).map { ($0, $1) }
let baseline = results.first?.1 ?? [:]
if options.json {
    var rows: [JSONTree] = []
    for (size, figures) in results {
        for operation in operations {
            guard let figure = figures[operation], let base = baseline[operation] else { continue }
            rows.append([
                "conversations": .number(JSONNumber(size)), "operation": .string(operation),
                "medianMicroseconds": .number(JSONNumber(figure.median.rounded())),
                "p90Microseconds": .number(JSONNumber(figure.p90.rounded())),
                "ratioToFirstSize": .string(String(format: "%.2f", figure.median / base.median)),
            ])
        }
    }
    print(JSONTree.array(rows).jsonText)
} else {
    print("conversations  operation     median µs    p90 µs  ratio to \(options.sizes.first ?? 0)")
    for (size, figures) in results {
        for operation in operations {
            guard let figure = figures[operation], let base = baseline[operation] else { continue }
            let name = operation.padding(toLength: 12, withPad: " ", startingAt: 0)
            print(
                String(format: "%13d  ", size) + name
                    + String(format: " %10.0f %9.0f  %.2f", figure.median, figure.p90, figure.median / base.median))
        }
    }
}
