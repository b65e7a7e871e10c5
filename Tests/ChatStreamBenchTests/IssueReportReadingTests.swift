// What `chatstream-bench --report` reads from others: wrk's summary, each format's JSON units (the
// yajl side's framing), and its targets' verdicts.

import ChatStreamBenchSupport
import Testing

@Suite("chatstream-bench --report: wrk output, JSON units, targets")
struct IssueReportReadingTests {
    static let wrkOutput = """
        Running 5s test @ http://127.0.0.1:18787
          2 threads and 64 connections
          Thread Stats   Avg      Stdev     Max   +/- Stdev
            Latency    28.90ms   12.31ms 141.20ms   71.02%
            Req/Sec     1.13k   110.50     1.40k    70.00%
          Latency Distribution
             50%   27.41ms
             75%   34.01ms
             90%   44.76ms
             99%   71.20ms
          11282 requests in 5.00s, 14.20MB read
          Socket errors: connect 0, read 2, write 0, timeout 3
          Non-2xx or 3xx responses: 4
        Requests/sec:   2255.12
        Transfer/sec:      2.84MB
        """

    @Test func wrksSummaryGivesTheRateThePercentilesAndTheErrors() throws {
        let summary = try #require(WrkSummary(wrkOutput: Self.wrkOutput))
        #expect(summary.requestsPerSecond == 2255.12)
        #expect(abs(summary.p50 - 0.02741) < 1e-12)
        #expect(abs(summary.p99 - 0.0712) < 1e-12)
        #expect(summary.errors == 9)
    }

    @Test func wrksUnitsAreRead() {
        #expect(WrkSummary.seconds("812.00us") == 812e-6)
        #expect(WrkSummary.seconds("1.44s") == 1.44)
        #expect(WrkSummary.seconds("2.00m") == 120)
        #expect(WrkSummary.seconds("12") == nil)
        #expect(WrkSummary.seconds("fast") == nil)
    }

    @Test func anOutputWithoutItsPercentilesIsNotASummary() {
        let cut = Self.wrkOutput.split(separator: "\n").filter { !$0.contains("99%") }.joined(separator: "\n")
        #expect(WrkSummary(wrkOutput: cut) == nil)
        #expect(WrkSummary(wrkOutput: "unable to connect to 127.0.0.1:1 Connection refused") == nil)
    }

    static func units(_ text: String, _ format: String) -> [String]? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { raw in
            JSONUnits.ranges(in: raw, format: format)?.map {
                String(decoding: bytes[$0.0..<($0.0 + $0.1)], as: UTF8.self)
            }
        }
    }

    @Test func serverSentEventsGiveTheirDataValuesButNotDone() {
        let stream = "event: x\r\ndata: {\"a\":1}\r\n\r\ndata:{\"b\":\"data: no\"}\n\n: comment\ndata: [DONE]\n\n"
        #expect(Self.units(stream, "anthropic") == [#"{"a":1}"#, #"{"b":"data: no"}"#])
        #expect(Self.units(stream, "ui-message-stream") == Self.units(stream, "openai-responses"))
        #expect(Self.units("", "openai-chat") == [])
    }

    @Test func theOtherFramingsGiveOneUnitPerLine() {
        #expect(Self.units("0:\"hi\"\nf:{\"messageId\":\"m\"}\n", "ai-sdk-v4") == [#""hi""#, #"{"messageId":"m"}"#])
        #expect(Self.units("{\"a\":1}\n\n{\"b\":[2]}\r\n", "ndjson") == [#"{"a":1}"#, #"{"b":[2]}"#])
        let array = "[{\"a\":[1]}\r\n,{\"b\":2}\r\n,{\"c\":{}}]"
        #expect(Self.units(array, "json-array") == [#"{"a":[1]}"#, #"{"b":2}"#, #"{"c":{}}"#])
        #expect(Self.units("[{\"a\":1}\n]\n", "json-array") == [#"{"a":1}"#])
        #expect(Self.units("x", "salesforce-messaging") == nil)
    }

    @Test func targetsSayWhetherTheyHold() {
        #expect(Goal.atLeast(0.6).holds(0.61) == true)
        #expect(Goal.atLeast(0.6).holds(0.59) == false)
        #expect(Goal.atMost(1.3).holds(1.3) == true)
        #expect(Goal.atMost(0.05).holds(0.071) == false)
        #expect(Goal.atMost(3).holds(nil) == nil)
        #expect(Goal.atMost(3).text == "<= 3" && Goal.atLeast(0.6).text == ">= 0.6")
    }
}
