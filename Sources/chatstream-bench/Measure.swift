// Measure: timing, allocation counting and peak memory for the benchmark.
//
// Every measurement runs its body `runs` times and keeps the median time. Allocations come from
// CAllocCounter (a counting malloc linked into this executable only); the figure kept is the
// smallest count over the runs, i.e. the steady state once reused buffers have grown.

import CAllocCounter
import ChatStreamBenchSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One measured body: its median wall time, every run's time, and allocations per run.
struct Measurement {
    var median: Double
    var times: [Double]
    var allocations: UInt64
    /// What the body returned (checked against the expected value, and kept alive).
    var result: Int
}

enum Clock {
    static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}

enum Allocations {
    static var count: UInt64 { chatstream_alloc_count() }

    /// Whether Swift's allocations go through the counting malloc (the interposition works).
    static var isCounting: Bool {
        let before = count
        let array = [Int](repeating: 7, count: 1000 + Int(Clock.nanoseconds() & 1))
        blackHole(array)
        return count > before
    }
}

/// Peak resident set size of this process so far, in bytes (`getrusage` `ru_maxrss`).
#if canImport(Glibc)
    private let RUSAGE_SELF_WHO = __rusage_who_t(RUSAGE_SELF.rawValue)
#else
    private let RUSAGE_SELF_WHO = RUSAGE_SELF
#endif

func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF_WHO, &usage)
    return Int(usage.ru_maxrss) * 1024
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Runs `body` `runs` times; the median time and the smallest allocation count are kept.
func measure(runs: Int, _ body: () -> Int) -> Measurement {
    var times: [Double] = []
    times.reserveCapacity(runs)
    var allocations = UInt64.max
    var result = 0
    for _ in 0..<max(1, runs) {
        let allocationsBefore = Allocations.count
        let start = Clock.nanoseconds()
        result = body()
        let end = Clock.nanoseconds()
        allocations = min(allocations, Allocations.count &- allocationsBefore)
        times.append(Double(end - start) / 1e9)
    }
    blackHole(result)
    return Measurement(median: median(times), times: times, allocations: allocations, result: result)
}

/// Runs every body once per round, for `runs` rounds, and measures each as ``measure(runs:_:)``
/// does. The bodies of a round run one after another, so their `times[round]` saw the same
/// moment of a shared machine (see ``medianRatio(_:_:)``).
func measureRoundRobin(runs: Int, _ bodies: [() -> Int]) -> [Measurement] {
    var times = [[Double]](repeating: [], count: bodies.count)
    for index in times.indices { times[index].reserveCapacity(max(1, runs)) }
    var allocations = [UInt64](repeating: .max, count: bodies.count)
    var results = [Int](repeating: 0, count: bodies.count)
    for _ in 0..<max(1, runs) {
        for (index, body) in bodies.enumerated() {
            let allocationsBefore = Allocations.count
            let start = Clock.nanoseconds()
            results[index] = body()
            let end = Clock.nanoseconds()
            allocations[index] = min(allocations[index], Allocations.count &- allocationsBefore)
            times[index].append(Double(end - start) / 1e9)
        }
    }
    blackHole(results)
    return bodies.indices.map {
        Measurement(median: median(times[$0]), times: times[$0], allocations: allocations[$0], result: results[$0])
    }
}

/// The median over rounds of `baseline`'s time / `ours`'s time, for two measurements taken
/// round-robin: a pair per round, as ``pairedRatio(runs:baseline:ours:)`` takes, at no extra cost.
func medianRatio(_ baseline: Measurement, _ ours: Measurement) -> Double {
    median(zip(baseline.times, ours.times).map { $0 / max($1, 1e-9) })
}

/// Times `baseline` and `ours` alternately, run by run, and returns the median of the per-pair
/// ratios (baseline time / our time). Both sides of each pair see the same moment of a shared,
/// noisy machine, so the ratio is far steadier than a ratio of two separately taken medians.
func pairedRatio(runs: Int, baseline: () -> Int, ours: () -> Int) -> Double {
    var ratios: [Double] = []
    var sink = 0
    for _ in 0..<max(1, runs) {
        let start = Clock.nanoseconds()
        sink &+= baseline()
        let middle = Clock.nanoseconds()
        sink &+= ours()
        let end = Clock.nanoseconds()
        ratios.append(Double(middle - start) / Double(max(1, end - middle)))
    }
    blackHole(sink)
    return median(ratios)
}

/// Feeds `bytes` to `body` in pieces of `chunk` bytes (the whole buffer when `chunk` is nil).
@inline(__always)
func forEachChunk(_ bytes: UnsafeRawBufferPointer, _ chunk: Int?, _ body: (UnsafeRawBufferPointer) throws -> Void)
    rethrows
{
    let size = chunk ?? bytes.count
    var index = 0
    while index < bytes.count {
        let end = min(index + size, bytes.count)
        try body(UnsafeRawBufferPointer(rebasing: bytes[index..<end]))
        index = end
    }
}
