// `chatstream replay --output message --json` and `--output none`, run as a process on a stream
// of every format, against the event path computed here (AnyStreamDecoder and MessageAssembler, event by event,
// which the command used before it decoded messages through AnyMessageDecoder): the same
// stdout, the same stderr, the same exit status. `--output none` decodes event by event without
// assembling (its exit status follows the errors the events carry), so it checks that path's
// warnings, errors and status against the same expectation.

import Foundation
import TestSupport
import Testing

@testable import ChatStream

/// What `replay --output message --json` must print and return for `bytes`, from the event path.
private func expectedReplay(_ bytes: [UInt8], format: StreamFormat?, lenient: Bool) -> ReplayCLITests.Run {
    var decoder = AnyStreamDecoder(format: format, configuration: StreamDecoderConfiguration(lenient: lenient))
    let result = assembleEventByEvent(&decoder, [bytes])
    let stdout = result.messages.map { $0.jsonValue.jsonText + "\n" }.joined()
    var stderr = decoder.skippedErrors.map { "warning: skipped malformed event: \($0)\n" }.joined()
    var status: Int32 = 0
    if let failure = result.failure {
        stderr += "error: \(failure)\n"
        status = failure.kind == .truncated || failure.kind == .remote ? 1 : 65
    } else if let error = result.messages.compactMap(\.error).first {
        stderr += "error: the stream carried an error: \(error.code.map { "\($0): " } ?? "")\(error.message)\n"
        status = 1
    }
    return ReplayCLITests.Run(status: status, output: Array(stdout.utf8), stderr: stderr)
}

@Suite(.blockingAllowed) struct ReplayMessageOutputTests {
    @Test(arguments: StreamCorpus.all)
    func messageOutputIsTheEventPathsForEveryFormat(_ stream: CorpusStream) async throws {
        var runs: [(arguments: [String], format: StreamFormat?, lenient: Bool)] = [
            (["--format", stream.format.rawValue], stream.format, false),
            (["--format", "auto", "--chunk-size", "7"], nil, false),
        ]
        // A stream that stops at a malformed event goes on past it when lenient.
        if StreamCorpus.messageDecoder(stream.format, [stream.bytes]).failure?.kind == .malformed {
            runs.append((["--format", stream.format.rawValue, "--lenient"], stream.format, true))
        }
        for run in runs {
            let expected = expectedReplay(stream.bytes, format: run.format, lenient: run.lenient)
            let result = try await ChildProcess.run(
                ["replay", "--output", "message", "--json"] + run.arguments + ["-"], stdin: stream.bytes)
            #expect(result.stdout == expected.stdout, "\(run.arguments)")
            #expect(result.stderr == expected.stderr, "\(run.arguments)")
            #expect(result.status == expected.status, "\(run.arguments)")
            // `--output none` prints nothing but the warnings and errors
            // (once per stream: each run is a process, and the cases already make many).
            guard run.arguments == runs[0].arguments else { continue }
            let silent = try await ChildProcess.run(
                ["replay", "--output", "none"] + run.arguments + ["-"], stdin: stream.bytes)
            #expect(silent.stdout == "", "none \(run.arguments)")
            #expect(silent.stderr == expected.stderr, "none \(run.arguments)")
            #expect(silent.status == expected.status, "none \(run.arguments)")
        }
    }

    @Test func theCorpusHasEveryExitStatusOfADecodedStream() {
        // Complete (0), carrying an error or cut (1), malformed (65): each compared above.
        let statuses = Set(StreamCorpus.all.map { expectedReplay($0.bytes, format: $0.format, lenient: false).status })
        #expect(statuses == [0, 1, 65])
    }
}
