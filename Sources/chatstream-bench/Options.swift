// Options: the command line of chatstream-bench.

struct Options {
    var json = false
    var runs = 5
    var quick = false
    /// nil: the default (off: the 1 GiB stream takes over a minute; --gigabyte turns it on).
    var gigabyte: Bool? = nil
    var checkAllocations: String? = nil
    /// Runs one path once on the 1 MB home stream, for a profiler (callgrind).
    var profile: String? = nil
    /// `--snapshot-scaling`: per-event cost of the updates rung's consumers at 0.5 and 1 MB.
    var snapshotScaling = false
    /// Runs only the 1 GiB stream and prints its result as one line (the suite's child process).
    var gigabyteOnly = false
    /// `--write-payload FORMAT PATH`: write one format's 1 MB payload to a file and exit.
    var writePayload: (format: String, path: String)? = nil

    static let usage = """
        usage: chatstream-bench [--json] [--runs N] [--quick] [--gigabyte | --no-gigabyte]
               chatstream-bench --check-allocations Fixtures/allocation-limits.json
               chatstream-bench --write-payload FORMAT PATH
               chatstream-bench --snapshot-scaling [--runs N]

          --json               print one JSON object instead of the table
          --runs N             runs per measurement; the median is reported (default 5, --quick 3)
          --quick              smaller payloads (1 MB streams of every format; 10k/20k tool deltas)
          --gigabyte           also stream 1 GiB through the pipeline (off by default: over a minute)
          --no-gigabyte        skip the 1 GiB stream
          --gigabyte-only      only the 1 GiB stream, one line out (the suite runs it so, as a child process)
          --profile PATH       run one path once, for callgrind: sse, typed, typed-views (lent), typed-whole, assembled,
                               message, any-message (AnyMessageDecoder, detecting), copy, tool, history, apply,
                               none (generation only: subtract it from whole-program counts);
                               and FORMAT-typed / -views / -message / -copy (the copy ceiling) / -none (generation only) for
                               FORMAT = openai, anthropic, responses, v4, ollama, gemini (1 MB text replies)
          --check-allocations  compare allocations per event with the limits in the file; exit 1
                               when one is above its limit
          --write-payload      write the 1 MB reply the bench decodes for FORMAT (a `chatstream replay --format`
                               name: ui-message-stream, openai-chat, anthropic, openai-responses, ai-sdk-v4,
                               ndjson, json-array) to PATH, for measuring other decoders on the same bytes
          --snapshot-scaling   per-event time of messageUpdates(format:) consumers at 0.5 MB and 1 MB of text
                               in 10-byte deltas (one keeping its own text, one keeping the latest snapshot)
        """

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var runsGiven = false
        var index = 0
        func fail(_ message: String) -> Never {
            print("chatstream-bench: \(message)\n\(usage)")
            exit(2)
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--json": options.json = true
            case "--quick": options.quick = true
            case "--gigabyte": options.gigabyte = true
            case "--no-gigabyte": options.gigabyte = false
            case "--gigabyte-only": options.gigabyteOnly = true
            case "--runs":
                index += 1
                guard index < arguments.count, let runs = Int(arguments[index]), runs > 0 else {
                    fail("--runs needs a positive number")
                }
                options.runs = runs
                runsGiven = true
            case "--check-allocations":
                index += 1
                guard index < arguments.count else { fail("--check-allocations needs a file") }
                options.checkAllocations = arguments[index]
            case "--profile":
                index += 1
                guard index < arguments.count else {
                    fail("--profile needs a path (listed below)")
                }
                options.profile = arguments[index]
            case "--write-payload":
                guard index + 2 < arguments.count else { fail("--write-payload needs a FORMAT and a PATH") }
                options.writePayload = (arguments[index + 1], arguments[index + 2])
                index += 2
            case "--snapshot-scaling": options.snapshotScaling = true
            case "-h", "--help":
                print(usage)
                exit(0)
            default:
                fail("unknown argument \(argument)")
            }
            index += 1
        }
        if options.quick && !runsGiven { options.runs = 3 }
        return options
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
