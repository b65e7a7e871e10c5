// Options: the command line of chatstream-bench.
//
// `outcome(of:)` reads the arguments without side effects (the tests call it); `parse(_:)` is the
// executable's entry, which prints the usage and exits on `--help` or a bad argument.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the command line asks of chatstream-bench.
package struct Options: Sendable {
    package var json = false
    package var runs = 5
    /// Whether `--runs` was given (modes with their own default keep it only then).
    package var runsGiven = false
    package var quick = false
    /// nil: the default (off: the 1 GiB stream takes over a minute; --gigabyte turns it on).
    package var gigabyte: Bool? = nil
    package var checkAllocations: String? = nil
    /// Runs one path once on the 1 MB home stream, for a profiler (callgrind).
    package var profile: String? = nil
    /// `--snapshot-scaling`: per-event cost of the updates rung's consumers at 0.5 and 1 MB.
    package var snapshotScaling = false
    /// Runs only the 1 GiB stream and prints its result as one line (the suite's child process).
    package var gigabyteOnly = false
    /// `--write-payload FORMAT PATH`: write one format's 1 MB payload to a file and exit.
    package var writePayload: (format: String, path: String)? = nil
    /// `--report`: issue 32's figures, each a ratio to a baseline measured in the same run.
    package var report = false
    /// `--report-22`: issue 22's figures (ceilings by instructions, the client, main-actor delivery).
    package var report22 = false
    /// `--message-mib N`: with --report, the UI stream `replay --output message` reads, in MiB
    /// (default 1024, --quick 128).
    package var messageMiB: Int? = nil
    /// `--load-seconds N`: with --report, how long wrk loads each server route (default 5, --quick 3).
    package var loadSeconds: Int? = nil
    /// `--chatstream PATH`: with --report, the CLI to measure (default: the static build in
    /// .build/static/release, else the one beside this executable).
    package var chatstream: String? = nil
    /// `--ceiling-file FORMAT PATH`: the yajl copy ceiling over the file, as --report's yajl side.
    package var ceilingFile: (format: String, path: String)? = nil
    /// `--no-valgrind`: the report times its instruction figures instead of counting them.
    package var noValgrind = false
    /// `--serve-child`: the local server on a free loopback port until standard input closes (the
    /// report's server process).
    package var serveChild = false
    /// `--simdjson`: ChatStream against the simdjson On-Demand program, whole processes paired.
    package var simdjson = false
    /// `--decode-file FORMAT PATH [--tool]`: decode one file as `--simdjson`'s ChatStream side.
    package var decodeFile: (format: String, path: String)? = nil
    /// `--tool`: with --decode-file, read the streamed tool input instead of the text.
    package var tool = false
    /// `--default-priority`: with --report, measure at the scheduling priority it was started
    /// with (by default it raises its own when it may: BenchPriority).
    package var defaultPriority = false

    package init() {}

    package static let usage = """
        usage: chatstream-bench [--json] [--runs N] [--quick] [--gigabyte | --no-gigabyte]
               chatstream-bench --report [--json] [--quick] [--runs N] [--message-mib N] [--load-seconds N]
                                [--chatstream PATH] [--default-priority]
               chatstream-bench --report-22 [--json] [--quick] [--runs N] [--no-valgrind]
               chatstream-bench --check-allocations Fixtures/allocation-limits.json
               chatstream-bench --write-payload FORMAT PATH
               chatstream-bench --snapshot-scaling [--runs N]
               chatstream-bench --simdjson [--runs N] [--quick]
               chatstream-bench --decode-file FORMAT PATH [--tool]
               chatstream-bench --ceiling-file FORMAT PATH

          --json               print one JSON object instead of the table
          --runs N             runs per measurement; the median is reported (default 5, --quick 3;
                               with --report: chat and curl runs each, default 21, --quick 5;
                               with --report-22: default 11, --quick 5)
          --quick              smaller payloads (1 MB streams of every format; 10k/20k tool deltas;
                               with --report: 100k tool deltas and no 100k/200k linearity)
          --gigabyte           also stream 1 GiB through the pipeline (off by default: over a minute)
          --no-gigabyte        skip the 1 GiB stream
          --gigabyte-only      only the 1 GiB stream, one line out (the suite runs it so, as a child process)
          --report             issue 32's figures from one invocation, each against a baseline of the same run
                               and its target: every format's text and tool input against simdjson On-Demand
                               and the yajl copy ceiling (whole processes, as --simdjson), `chatstream replay` of
                               a one-line stream against `cat`, `chatstream chat` against curl on a 600 KB
                               loopback reply, `replay --output message` peak RSS over the text it holds (a
                               1 GiB UI stream), the server's p99 at 64 connections for list and streamed chat
                               (wrk, file store; the median of five rounds, one with --quick); a few minutes
                               (--quick: about one)
          --message-mib N      with --report: the size of the UI stream for the memory figure (default 1024,
                               --quick 128)
          --load-seconds N     with --report: seconds of wrk per server route and round (default 5, --quick 3)
          --chatstream PATH    with --report: the CLI to measure (default .build/static/release/chatstream, the
                               build of scripts/chatstream.sh, else the one beside this executable)
          --default-priority   with --report: measure at the priority it was started with (by default, when
                               it may, it runs at nice -10, its session's autogroup too, so that other work
                               on the machine, such as a parallel build, takes less of the CPU it measures)
          --report-22          issue 22's figures from one invocation, each a ratio to its baseline in the same
                               run: tool input / copy ceiling (UI, OpenAI chat, Anthropic; 200k 1-byte deltas),
                               lent path / copy ceiling per format, the client against curl on a 600 KB reply
                               over loopback (in-process warm client, and the chatstream process when it is
                               built beside this one), main-actor events/s into ConversationState (1 MB reply).
                               Instruction figures come from callgrind when valgrind is on PATH (this program
                               run under it per profile), else from paired timing (it says which); ~5-10 min
          --no-valgrind        with --report-22: paired timing ratios even when valgrind is there (about 1 min)
          --serve-child        the local server on a free loopback port, its port printed, until standard input
                               closes (--report and --report-22 run it as their server process)
          --profile PATH       run one path once, for callgrind: sse, typed, typed-views (lent), typed-whole, assembled,
                               message, any-message (AnyMessageDecoder, detecting), copy, tool, history, apply,
                               none (generation only: subtract it from whole-program counts);
                               and FORMAT-typed / -views / -message / -copy (the copy ceiling) / -none (generation only) for
                               FORMAT = openai, anthropic, responses, v4, ollama, gemini (1 MB text replies);
                               tool-ui / tool-openai / tool-anthropic [-100k] [-copy | -none] (one tool call in 200,000
                               or 100,000 1-byte deltas)
          --check-allocations  compare allocations per event with the limits in the file; exit 1
                               when one is above its limit
          --write-payload      write the 1 MB reply the bench decodes for FORMAT (a `chatstream replay --format`
                               name: ui-message-stream, openai-chat, anthropic, openai-responses, ai-sdk-v4,
                               ndjson, json-array) to PATH, for measuring other decoders on the same bytes;
                               tool-ui, tool-openai, tool-anthropic: the 200,000 1-byte tool deltas of --simdjson
          --snapshot-scaling   per-event time of messageUpdates(format:) consumers at 0.5 MB and 1 MB of text
                               in 10-byte deltas (one keeping its own text, one keeping the latest snapshot)
          --simdjson           every format's text (32 MB, --quick 4 MB) and the UI, OpenAI chat and Anthropic
                               tool input (200,000 1-byte deltas, --quick 50,000) read by ChatStream and by the
                               simdjson On-Demand program (Benchmarks/simdjson-peer, built on first use from
                               Debian's libsimdjson-dev; CHATSTREAM_SIMDJSON_PEER names another build), as
                               whole processes in alternation; prints each side's MB/s and ChatStream / simdjson
          --decode-file        read FORMAT from PATH in 4 KiB pieces (the lent path) and print "FORMAT: N text
                               bytes", as the simdjson program does; with --tool, the streamed tool input
          --ceiling-file       frame FORMAT's file at PATH and run the yajl copy ceiling over each unit's JSON;
                               prints "FORMAT: N JSON units"
        """

    /// What `arguments` (without the program's name) ask for.
    package enum Outcome: Sendable {
        case options(Options)
        /// `-h` / `--help`.
        case help
        /// A malformed command line, and why.
        case failure(String)
    }

    /// Reads `arguments` without printing or exiting.
    package static func outcome(of arguments: [String]) -> Outcome {
        var options = Options()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--json": options.json = true
            case "--quick": options.quick = true
            case "--gigabyte": options.gigabyte = true
            case "--no-gigabyte": options.gigabyte = false
            case "--gigabyte-only": options.gigabyteOnly = true
            case "--report": options.report = true
            case "--report-22": options.report22 = true
            case "--message-mib", "--load-seconds":
                index += 1
                guard index < arguments.count, let value = Int(arguments[index]), value > 0 else {
                    return .failure("\(argument) needs a positive number")
                }
                if argument == "--message-mib" { options.messageMiB = value } else { options.loadSeconds = value }
            case "--chatstream":
                index += 1
                guard index < arguments.count else { return .failure("--chatstream needs a path") }
                options.chatstream = arguments[index]
            case "--ceiling-file":
                guard index + 2 < arguments.count else { return .failure("--ceiling-file needs a FORMAT and a PATH") }
                options.ceilingFile = (arguments[index + 1], arguments[index + 2])
                index += 2
            case "--no-valgrind": options.noValgrind = true
            case "--serve-child": options.serveChild = true
            case "--default-priority": options.defaultPriority = true
            case "--runs":
                index += 1
                guard index < arguments.count, let runs = Int(arguments[index]), runs > 0 else {
                    return .failure("--runs needs a positive number")
                }
                options.runs = runs
                options.runsGiven = true
            case "--check-allocations":
                index += 1
                guard index < arguments.count else { return .failure("--check-allocations needs a file") }
                options.checkAllocations = arguments[index]
            case "--profile":
                index += 1
                guard index < arguments.count else { return .failure("--profile needs a path (listed below)") }
                options.profile = arguments[index]
            case "--write-payload":
                guard index + 2 < arguments.count else { return .failure("--write-payload needs a FORMAT and a PATH") }
                options.writePayload = (arguments[index + 1], arguments[index + 2])
                index += 2
            case "--snapshot-scaling": options.snapshotScaling = true
            case "--simdjson": options.simdjson = true
            case "--tool": options.tool = true
            case "--decode-file":
                guard index + 2 < arguments.count else { return .failure("--decode-file needs a FORMAT and a PATH") }
                options.decodeFile = (arguments[index + 1], arguments[index + 2])
                index += 2
            case "-h", "--help": return .help
            default: return .failure("unknown argument \(argument)")
            }
            index += 1
        }
        if options.noValgrind && !options.report22 { return .failure("--no-valgrind goes with --report-22") }
        if (options.messageMiB != nil || options.loadSeconds != nil || options.chatstream != nil) && !options.report {
            return .failure("--message-mib, --load-seconds and --chatstream go with --report")
        }
        if options.tool && options.decodeFile == nil { return .failure("--tool goes with --decode-file") }
        if options.defaultPriority && !options.report { return .failure("--default-priority goes with --report") }
        if !options.runsGiven {
            if options.report {
                // 21 chat rounds: the median of 11 moved by a fifth between quiet reports.
                options.runs = options.quick ? 5 : 21
            } else if options.report22 {
                options.runs = options.quick ? 5 : 11
            } else if options.quick {
                options.runs = 3
            }
        }
        return .options(options)
    }

    /// The executable's reading of its arguments: prints the usage and exits on `--help` (status 0)
    /// or a malformed command line (status 2).
    package static func parse(_ arguments: [String]) -> Options {
        switch outcome(of: arguments) {
        case .options(let options): return options
        case .help:
            print(usage)
            exit(0)
        case .failure(let message):
            print("chatstream-bench: \(message)\n\(usage)")
            exit(2)
        }
    }
}
