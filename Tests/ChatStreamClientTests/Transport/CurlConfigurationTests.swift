// The URLSessionConfiguration an app passes, honoured on Linux, where every request goes through
// CurlTransport: extra header fields, cookies (sent, stored, refused), the overall timeout, and the
// documented initialiser's idle timeout. Each against a loopback server.

#if os(Linux)
    import ChatStreamClient
    import Dispatch
    import Foundation
    import FoundationNetworking
    import HTTPTestSupport
    import TestSupport
    import Testing

    @testable import ChatStreamServer

    @Suite("CurlTransport configuration", .blockingAllowed)
    struct CurlConfigurationTests {
        /// A cookie storage of the test's own.
        static func storage() -> HTTPCookieStorage {
            HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "chatstream-tests-\(UUID().uuidString)")
        }

        /// A server that answers `/login` with a cookie and echoes every request's `Cookie` and
        /// `X-App` fields.
        static func echo(_ request: HTTPServerRequest, _ response: HTTPServerResponseWriter) throws {
            var headers = [("Content-Type", "text/plain")]
            if request.path == "/login" { headers.append(("Set-Cookie", "sid=s3cret; Path=/")) }
            if request.path == "/other-domain" {
                headers.append(("Set-Cookie", "tracker=1; Domain=example.com; Path=/"))
            }
            let text = "cookie=\(request.headers["Cookie"] ?? "-") app=\(request.headers["X-App"] ?? "-")"
            try response.respond(status: 200, headers: headers, body: Array(text.utf8))
        }

        static func text(_ transport: any HTTPTransport, _ url: URL, headers: HTTPHeaderFields = [:]) async throws
            -> String
        {
            let response = try await transport.send(HTTPRequest(url: url, headers: headers, idleTimeout: .seconds(30)))
            return String(decoding: try await response.body.collect(upTo: 1 << 16), as: UTF8.self)
        }

        @Test func urlSessionTransportGoesThroughCurlWithTheConfigurationMapped() {
            let session = URLSessionConfiguration.ephemeral
            session.httpAdditionalHeaders = ["X-App": "2.1"]
            session.httpShouldSetCookies = false
            session.httpCookieAcceptPolicy = .never
            session.timeoutIntervalForResource = 90
            let transport = URLSessionTransport(configuration: session)
            #expect(transport.curl.configuration.additionalHeaders["x-app"] == "2.1")
            #expect(transport.curl.configuration.sendsCookies == false)
            #expect(transport.curl.configuration.cookieAcceptPolicy == .never)
            #expect(transport.curl.configuration.resourceTimeout == .seconds(90))
            #expect(transport.curl.configuration.cookieStorage === session.httpCookieStorage)
            // Without a configuration: no cookies at all, as before.
            #expect(URLSessionTransport().curl.configuration.cookieStorage == nil)
        }

        @Test func additionalHeadersGoWithEveryRequestUnlessTheRequestHasItsOwn() async throws {
            try await HTTPTestServer.with(handler: Self.echo) { server in
                let transport = CurlTransport(configuration: .init(additionalHeaders: ["X-App": "2.1"]))
                let answer1 = try await Self.text(transport, HTTPTestServer.url(server, "/a"))
                #expect(answer1 == "cookie=- app=2.1")
                let answer2 = try await Self.text(
                    transport, HTTPTestServer.url(server, "/a"), headers: ["x-app": "mine"])
                #expect(answer2 == "cookie=- app=mine")
            }
        }

        @Test func cookiesAreStoredAndSentBack() async throws {
            try await HTTPTestServer.with(handler: Self.echo) { server in
                let storage = Self.storage()
                let transport = CurlTransport(configuration: .init(cookieStorage: storage))
                let answer3 = try await Self.text(transport, HTTPTestServer.url(server, "/login"))
                #expect(answer3 == "cookie=- app=-")
                #expect(storage.cookies?.map(\.name) == ["sid"])
                let answer4 = try await Self.text(transport, HTTPTestServer.url(server, "/next"))
                #expect(answer4 == "cookie=sid=s3cret app=-")
                // A request's own Cookie field wins.
                let answer5 = try await Self.text(
                    transport, HTTPTestServer.url(server, "/next"), headers: ["Cookie": "a=b"])
                #expect(answer5 == "cookie=a=b app=-")
                // A cookie for another domain than the request's is refused (onlyFromMainDocumentDomain).
                _ = try await Self.text(transport, HTTPTestServer.url(server, "/other-domain"))
                #expect(storage.cookies?.map(\.name) == ["sid"])
            }
        }

        @Test func cookiesAreNeitherKeptNorSentWhenTheConfigurationSaysSo() async throws {
            try await HTTPTestServer.with(handler: Self.echo) { server in
                let storage = Self.storage()
                let refusing = CurlTransport(configuration: .init(cookieStorage: storage, cookieAcceptPolicy: .never))
                _ = try await Self.text(refusing, HTTPTestServer.url(server, "/login"))
                #expect(storage.cookies?.isEmpty != false)

                let keeping = CurlTransport(configuration: .init(cookieStorage: storage, sendsCookies: false))
                _ = try await Self.text(keeping, HTTPTestServer.url(server, "/login"))
                #expect(storage.cookies?.map(\.name) == ["sid"])
                let answer6 = try await Self.text(keeping, HTTPTestServer.url(server, "/next"))
                #expect(answer6 == "cookie=- app=-")
            }
        }

        @Test func theOverallTimeoutEndsAStreamThatNeverFallsSilent() async throws {
            let stop = Shared(false)
            try await HTTPTestServer.with(handler: { _, response in
                try response.startStream(status: 200, headers: [("Content-Type", "text/plain")])
                while !stop.value {
                    try response.write("tick\n")
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }) { server in
                defer { stop.value = true }
                let transport = CurlTransport(configuration: .init(resourceTimeout: .milliseconds(600)))
                let started = ContinuousClock.now
                let response = try await transport.send(
                    HTTPRequest(url: HTTPTestServer.url(server, "/slow"), idleTimeout: .seconds(5)))
                var received = 0
                let error = await #expect(throws: TransportError.self) {
                    for try await chunk in response.body { received += chunk.count }
                }
                let took = ContinuousClock.now - started
                #expect(error?.kind == .timedOut)
                #expect(error?.message.contains("overall timeout") == true, "\(String(describing: error))")
                #expect(received > 0)
                // Without the overall timeout the stream never ends (a tick every 50 ms); 20 s, not 4:
                // it took over 4 s once in a full parallel run.
                #expect(took >= .milliseconds(500) && took < .seconds(20), "\(took)")
            }
        }

        @Test func theDocumentedInitialiserTakesItsIdleTimeoutFromTheConfiguration() async throws {
            let release = DispatchSemaphore(value: 0)
            try await HTTPTestServer.with(handler: { _, response in
                // Never answers while the client waits.
                _ = release.wait(timeout: .now() + 30)
                try? response.respond(status: 503)
            }) { server in
                defer { release.signal() }
                let session = URLSessionConfiguration.ephemeral
                session.timeoutIntervalForRequest = 0.8
                let client = ChatbaseClient(
                    agentId: "agent-1", baseURL: "http://127.0.0.1:\(server.port)", configuration: session)
                #expect(client.idleTimeout == .milliseconds(800))
                let started = ContinuousClock.now
                let error = await #expect(throws: ChatStreamClient.APIError.self) {
                    _ = try await client.listConversations(cursor: nil, limit: 5, source: .network)
                }
                let took = ContinuousClock.now - started
                #expect(error?.isTransient == true)
                if case .networkError(let underlying)? = error {
                    #expect((underlying as? URLError)?.code == .timedOut || underlying is TransportError)
                } else {
                    Issue.record("not a network error: \(String(describing: error))")
                }
                // Retried under the default policy, each attempt cut after 0.8 s, not ChatStream's 60 s.
                #expect(took < .seconds(20), "\(took)")
            }
        }
    }
#endif
