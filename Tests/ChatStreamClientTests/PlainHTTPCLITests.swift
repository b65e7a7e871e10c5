// `chatstream chat` against an http:// server never opens libcurl (issue 32): the built binary runs
// with the dynamic loader's binding log (LD_DEBUG=bindings), where CCurl's loader shows as the
// lookup of `curl_global_init` in libcurl, which it runs right after opening the library. The same
// chat with CHATSTREAM_TRANSPORT=curl (libcurl for every URL) shows the lookup, so the check can fail.
// (A debug build has libcurl mapped from the start through FoundationNetworking, so /proc/self/maps
// would not tell; the static CLI of scripts/build-cli.sh has no libcurl at all unless CCurl opens it.)

#if os(Linux)
    import ChatStreamServer
    import Foundation
    import TestSupport
    import Testing

    @Suite("chatstream chat over plain HTTP", .blockingAllowed)
    struct PlainHTTPCLITests {
        /// Runs `chatstream chat` against `port` with the binding log on; its status, its output and
        /// whether libcurl's `curl_global_init` was looked up.
        static func chat(port: UInt16, home: URL, transport: String?) async throws -> (Int32, String, Bool) {
            let log = home.appendingPathComponent("ld-\(transport ?? "default")")
            var environment = ["XDG_DATA_HOME": home.path, "LD_DEBUG": "bindings", "LD_DEBUG_OUTPUT": log.path]
            if let transport { environment["CHATSTREAM_TRANSPORT"] = transport }
            let run = try await ChildProcess.run(
                ["chat", "--base-url", "http://127.0.0.1:\(port)", "plain hello"], environment: environment,
                timeout: .seconds(120))
            // The loader writes its log to LD_DEBUG_OUTPUT.<pid>.
            var looked = false
            for name in try FileManager.default.contentsOfDirectory(atPath: home.path)
            where name.hasPrefix(log.lastPathComponent + ".") {
                let text = try String(contentsOf: home.appendingPathComponent(name), encoding: .utf8)
                if text.split(separator: "\n").contains(where: {
                    $0.contains("libcurl") && $0.contains("symbol `curl_global_init'")
                }) {
                    looked = true
                }
            }
            return (run.status, run.stdout, looked)
        }

        @Test func anHTTPChatNeverOpensLibcurl() async throws {
            let server = try CLITests.startServer()
            defer { server.stop() }
            let home = FileManager.default.temporaryDirectory.appendingPathComponent(
                "chatstream-plain-\(UUID().uuidString.lowercased())", isDirectory: true)
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: home) }

            let (status, output, openedLibcurl) = try await Self.chat(port: server.port, home: home, transport: nil)
            #expect(status == 0, "\(output)")
            #expect(output.contains("You said: plain hello"), "\(output)")
            #expect(!openedLibcurl)

            let (curlStatus, curlOutput, curlOpenedLibcurl) = try await Self.chat(
                port: server.port, home: home, transport: "curl")
            #expect(curlStatus == 0, "\(curlOutput)")
            #expect(curlOpenedLibcurl, "the control run (CHATSTREAM_TRANSPORT=curl) shows no libcurl lookup")
        }
    }
#endif
