// chatstream-bench: ChatStream's benchmark suite. See BENCHMARKS.md.
//
//   swift run -c release chatstream-bench [--json] [--runs N] [--quick] [--gigabyte | --no-gigabyte]
//   swift run -c release chatstream-bench --check-allocations Fixtures/allocation-limits.json

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
if let path = options.checkAllocations {
    exit(AllocationCheck.run(limitsPath: path))
}
if !Allocations.isCounting {
    print("note: the counting allocator is not in use; allocation figures read 0")
}
let suite = Suite(options: options)
suite.run()
if options.json {
    Report.printJSON(suite)
} else {
    Report.printTable(suite)
}
