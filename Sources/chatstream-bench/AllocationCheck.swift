// AllocationCheck: the CI regression guard. Allocation counts do not depend on the machine's load,
// so unlike timings they can be checked against fixed limits on a noisy machine.
//
// `chatstream-bench --check-allocations Fixtures/allocation-limits.json` measures allocations per
// event on the main paths (a 1 MB home stream at three chunkings, and 1 MB of every provider
// format through typed events (owned and lent) and MessageDecoder at 4 KiB; the smallest count of three runs) and
// exits 1 when one is above its limit. The file maps each path's key to its limit:
// `{"limits": {"home.typed.4KiB": 0.05, ...}}`.

import ChatStream
import Foundation

enum AllocationCheck {
    /// The paths checked, by key.
    static func paths(_ bytes: [UInt8]) -> [(String, () -> Int)] {
        [
            ("home.sse.4KiB", { Pipelines.serverSentEvents(bytes, chunk: 4096) }),
            ("home.typed.64B", { Pipelines.typedEvents(bytes, chunk: 64) }),
            ("home.typed.4KiB", { Pipelines.typedEvents(bytes, chunk: 4096) }),
            ("home.typed.whole", { Pipelines.typedEvents(bytes, chunk: nil) }),
            ("home.views.64B", { Pipelines.typedViews(bytes, chunk: 64) }),
            ("home.views.4KiB", { Pipelines.typedViews(bytes, chunk: 4096) }),
            ("home.views.whole", { Pipelines.typedViews(bytes, chunk: nil) }),
            ("home.assembled.64B", { Pipelines.assembled(bytes, chunk: 64) }),
            ("home.assembled.4KiB", { Pipelines.assembled(bytes, chunk: 4096) }),
            ("home.assembled.whole", { Pipelines.assembled(bytes, chunk: nil) }),
            ("home.message.64B", { Pipelines.messageDecoder(bytes, chunk: 64, dialect: UIMessageStreamDialect.self) }),
            (
                "home.message.4KiB",
                { Pipelines.messageDecoder(bytes, chunk: 4096, dialect: UIMessageStreamDialect.self) }
            ),
            (
                "home.message.whole",
                { Pipelines.messageDecoder(bytes, chunk: nil, dialect: UIMessageStreamDialect.self) }
            ),
        ]
    }

    /// Typed events (owned and lent) and `MessageDecoder` at 4 KiB chunks on 1 MB of each provider format, by key,
    /// with the number of events each stream holds.
    static func providerPaths() -> [(key: String, events: Int, body: () -> Int)] {
        var paths: [(key: String, events: Int, body: () -> Int)] = []
        func add<Dialect: StreamDialect>(_ name: String, _ payload: StreamPayload, _ dialect: Dialect.Type) {
            let bytes = payload.bytes
            paths.append(
                (
                    "\(name).typed.4KiB", payload.eventCount,
                    { Pipelines.typedEvents(bytes, chunk: 4096, dialect: dialect) }
                ))
            paths.append(
                (
                    "\(name).views.4KiB", payload.eventCount,
                    { Pipelines.typedViews(bytes, chunk: 4096, dialect: dialect) }
                ))
            paths.append(
                (
                    "\(name).message.4KiB", payload.eventCount,
                    { Pipelines.messageDecoder(bytes, chunk: 4096, dialect: dialect) }
                ))
        }
        let size = 1_000_000
        add("openai-chat", Payloads.openAIChatChunks(targetBytes: size), OpenAIChatDialect.self)
        add("anthropic", Payloads.anthropicEvents(targetBytes: size), AnthropicDialect.self)
        add("openai-responses", Payloads.responsesEvents(targetBytes: size), OpenAIResponsesDialect.self)
        add("ai-sdk-v4", Payloads.dataStreamV4Parts(targetBytes: size), DataStreamV4Dialect.self)
        add("ollama", Payloads.ollamaLines(targetBytes: size), OllamaDialect.self)
        add("gemini", Payloads.geminiArray(targetBytes: size), GeminiDialect.self)
        return paths
    }

    static func run(limitsPath: String) -> Int32 {
        guard Allocations.isCounting else {
            print("check-allocations: the counting allocator is not in use; cannot check")
            return 2
        }
        guard let data = FileManager.default.contents(atPath: limitsPath),
            let file = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let limits = file["limits"] as? [String: Any]
        else {
            print("check-allocations: cannot read limits from \(limitsPath) (expected {\"limits\": {key: number}})")
            return 2
        }
        let home = Payloads.homeTextDeltas(targetBytes: 1_000_000)
        var failed = false
        var checked = Set<String>()
        print("allocations per event (home text deltas: \(home.eventCount) events); limits from \(limitsPath)")
        let all = paths(home.bytes).map { (key: $0.0, events: home.eventCount, body: $0.1) } + providerPaths()
        for (key, events, body) in all {
            let perEvent = Double(measure(runs: 3, body).allocations) / Double(events)
            guard let limit = (limits[key] as? NSNumber)?.doubleValue else {
                print("  \(key): \(String(format: "%.4f", perEvent))  (no limit in the file)")
                continue
            }
            checked.insert(key)
            let ok = perEvent <= limit
            if !ok { failed = true }
            print(
                "  \(key): \(String(format: "%.4f", perEvent)) per event, limit \(String(format: "%.4f", limit))  "
                    + (ok ? "ok" : "ABOVE LIMIT"))
        }
        for key in limits.keys.sorted() where !checked.contains(key) {
            print("  \(key): in the limits file but not measured")
            failed = true
        }
        print(failed ? "check-allocations: FAILED" : "check-allocations: ok")
        return failed ? 1 : 0
    }
}
