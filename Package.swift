// swift-tools-version:6.0
//
// ChatStream: streamed assistant replies and conversation history for Swift.
// Layers (data flows one way): framing -> JSON (yajl) -> dialects -> assembly -> client.
import Foundation
import PackageDescription

/// Set `CHATSTREAM_FUZZ=1` to add the libFuzzer targets (see Fuzz/README.md).
let fuzzing = ProcessInfo.processInfo.environment["CHATSTREAM_FUZZ"] != nil

/// yajl: the system library found by pkg-config (Debian's libyajl-dev, Homebrew's yajl), or, with
/// `CHATSTREAM_YAJL_XCFRAMEWORK=Frameworks/CYajl.xcframework` (a path relative to the package root), the
/// XCFramework that scripts/build-yajl-xcframework.sh builds from yajl's upstream release, for iOS and the
/// other Apple platforms whose SDK has no yajl. Both are the module `CYajl`.
let yajl: Target =
    if let xcframework = ProcessInfo.processInfo.environment["CHATSTREAM_YAJL_XCFRAMEWORK"] {
        .binaryTarget(name: "CYajl", path: xcframework)
    } else {
        .systemLibrary(name: "CYajl", pkgConfig: "yajl", providers: [.apt(["libyajl-dev"]), .brew(["yajl"])])
    }

var package = Package(
    name: "ChatStream",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "ChatStream", targets: ["ChatStream"]),
        .library(name: "ChatStreamLive", targets: ["ChatStreamLive"]),
        .library(name: "ChatStreamClient", targets: ["ChatStreamClient"]),
        .library(name: "ChatStreamServer", targets: ["ChatStreamServer"]),
        .executable(name: "chatstream", targets: ["chatstream"]),
        .executable(name: "chatstream-bench", targets: ["chatstream-bench"]),
        .executable(name: "chatstream-store-bench", targets: ["chatstream-store-bench"]),
    ],
    targets: [
        yajl,
        // OpenSSL's libcrypto (HMAC-SHA256 for JWT verification) on Linux, opened at first use
        // (Sources/CCrypto/include/CCrypto.h says why); CryptoKit on Apple platforms.
        .target(name: "CCrypto", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // SQLite (the server's store, the client's history): opened at first use on Linux
        // (Sources/CSQLite/include/CSQLite.h says why; headers from libsqlite3-dev), linked from the
        // SDK on Apple platforms.
        .target(
            name: "CSQLite",
            linkerSettings: [
                .linkedLibrary("dl", .when(platforms: [.linux])),
                .linkedLibrary("sqlite3", .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])),
            ]
        ),
        // libcurl (Linux): CurlTransport, the client's default HTTP path there (URLSession on Apple
        // platforms), opened at first use (Sources/CCurl/include/CCurl.h says why).
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Linux's epoll (SocketPoller, the server's live-stream writer); kqueue from Darwin on Apple platforms.
        .systemLibrary(name: "CEpoll"),
        // The Swift layer over SQLite (prepared statements, transactions, migrations), `package` access only.
        .target(name: "ChatStreamSQLite", dependencies: ["CSQLite"]),
        // The byte kit (byte equality, word-at-a-time lanes, byte names for errors) that framing, JSON
        // and the layers above share; `package` access only, not for users.
        .target(name: "ChatStreamBytes"),
        .target(
            name: "ChatStreamJSON", dependencies: ["CYajl", "ChatStreamBytes"],
            linkerSettings: [.linkedLibrary("m")]),
        .target(name: "ChatStreamFraming", dependencies: ["ChatStreamBytes"]),
        .target(name: "ChatStream", dependencies: ["ChatStreamJSON", "ChatStreamFraming", "ChatStreamBytes"]),
        // Live conversation events (the home format and Salesforce Messaging): a dialect family on
        // the same framing and JSON layers, for the client's live updates and the CLI's `events`.
        .target(name: "ChatStreamLive", dependencies: ["ChatStream", "ChatStreamJSON", "ChatStreamFraming"]),
        // HTTP header fields and status codes, shared by the client and the server.
        .target(name: "ChatStreamHTTP"),
        .target(
            name: "ChatStreamClient",
            dependencies: [
                "ChatStream", "ChatStreamLive", "ChatStreamJSON", "ChatStreamHTTP", "ChatStreamSQLite",
                .target(name: "CCurl", condition: .when(platforms: [.linux])),
            ]
        ),
        .target(
            name: "ChatStreamServer",
            dependencies: [
                "ChatStream", "ChatStreamHTTP", "ChatStreamSQLite",
                .target(name: "CCrypto", condition: .when(platforms: [.linux])),
                // https upstreams of model agents (Agents/UpstreamCurl.swift).
                .target(name: "CCurl", condition: .when(platforms: [.linux])),
                .target(name: "CEpoll", condition: .when(platforms: [.linux])),
            ]
        ),
        .executableTarget(
            name: "chatstream", dependencies: ["ChatStreamClient", "ChatStreamLive", "ChatStreamServer"]),
        // Counting malloc for the benchmark's allocation figures; linked into chatstream-bench only.
        .target(name: "CAllocCounter"),
        // The bench's command line, the arithmetic of its report (tested in ChatStreamBenchTests) and
        // the client's delivery measurement (run by MainActorDeliveryTests too).
        .target(name: "ChatStreamBenchSupport", dependencies: ["ChatStreamClient"]),
        // --report also runs the client against curl (a server child process) and ConversationState.
        .executableTarget(
            name: "chatstream-bench",
            dependencies: [
                "ChatStream", "ChatStreamJSON", "ChatStreamFraming", "CYajl", "CAllocCounter", "ChatStreamBenchSupport",
                "ChatStreamClient", "ChatStreamServer",
            ]
        ),
        // Chat and list latency of the local server as its SQLite store grows (see BENCHMARKS.md).
        .executableTarget(name: "chatstream-store-bench", dependencies: ["ChatStreamServer"]),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .target(
            name: "HTTPTestSupport", dependencies: ["ChatStreamServer", "TestSupport"], path: "Tests/HTTPTestSupport"),
        .testTarget(name: "ChatStreamJSONTests", dependencies: ["ChatStreamJSON", "TestSupport"]),
        .testTarget(name: "ChatStreamFramingTests", dependencies: ["ChatStreamFraming", "TestSupport"]),
        .testTarget(
            name: "ChatStreamTests",
            dependencies: ["ChatStream", "ChatStreamLive", "ChatStreamJSON", "ChatStreamFraming", "TestSupport"],
            exclude: ["FuzzRegressions"]),
        .testTarget(name: "ChatStreamLiveTests", dependencies: ["ChatStreamLive", "ChatStream", "TestSupport"]),
        .testTarget(
            name: "ChatStreamServerTests", dependencies: ["ChatStreamServer", "TestSupport", "HTTPTestSupport"]),
        .testTarget(
            name: "ChatStreamBenchTests", dependencies: ["ChatStreamBenchSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "ChatStreamClientTests",
            dependencies: [
                "ChatStreamClient", "ChatStreamServer", "TestSupport", "HTTPTestSupport", "ChatStreamBenchSupport",
            ]
        ),
        // The Swift blocks of the README, the DocC catalogs and the `///` comments, compiled
        // (Tests/DocExamplesTests/README.md).
        .testTarget(
            name: "DocExamplesTests",
            dependencies: [
                "ChatStream", "ChatStreamLive", "ChatStreamJSON", "ChatStreamFraming", "ChatStreamClient",
                "ChatStreamServer", "ChatStreamSQLite",
            ],
            exclude: ["README.md"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

if fuzzing {
    // Built only with `CHATSTREAM_FUZZ=1 swift build --sanitize=fuzzer ...` (see Fuzz/run.sh).
    package.targets.append(.target(name: "FuzzSupport", path: "Fuzz/Support"))
    for name in ["FuzzSSE", "FuzzFraming", "FuzzJSON", "FuzzDialects", "FuzzHistory", "FuzzLiveEvents"] {
        package.targets.append(
            .executableTarget(
                name: name,
                dependencies: ["ChatStream", "ChatStreamLive", "ChatStreamJSON", "ChatStreamFraming", "FuzzSupport"],
                path: "Fuzz/Targets/\(name)",
                swiftSettings: [.unsafeFlags(["-parse-as-library"])]
            )
        )
    }
}
