// CeilingRatio: a path's cost against its ceiling's, both net of the payload's generation.
//
// A profile run counts the whole program: start-up, the payload's generation, and the path. The
// matching `-none` profile is the first two alone, so `profile - none` is the path's own cost and
// `(ceiling - none) / (ours - none)` is the fraction of the ceiling's speed the path reaches (1:
// as fast as the ceiling; above 1: faster). The same arithmetic serves timed runs with `none` 0.

/// A path against its ceiling on the same payload.
package struct CeilingRatio: Sendable, Equatable {
    /// The ceiling's whole-program cost (instructions, or seconds when timed).
    package var ceiling: Double
    /// Ours, the same way.
    package var ours: Double
    /// The payload's generation alone (the `-none` profile), subtracted from both; 0 when timed.
    package var baseline: Double

    package init(ceiling: Double, ours: Double, baseline: Double = 0) {
        self.ceiling = ceiling
        self.ours = ours
        self.baseline = baseline
    }

    /// The ceiling's own cost.
    package var ceilingNet: Double { ceiling - baseline }
    /// Our own cost.
    package var oursNet: Double { ours - baseline }

    /// `ceilingNet / oursNet`, or nil when either is not above zero (a run that measured nothing).
    package var ratio: Double? {
        guard ceilingNet > 0, oursNet > 0 else { return nil }
        return ceilingNet / oursNet
    }
}

/// The median of `values` (the mean of the middle two for an even count; 0 for none).
package func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// `median(ours) / median(baseline)`: how many times the baseline's time (or CPU) ours takes; nil
/// when the baseline's median is not above zero.
package func ratioOfMedians(_ ours: [Double], over baseline: [Double]) -> Double? {
    let base = median(baseline)
    guard base > 0, !ours.isEmpty else { return nil }
    return median(ours) / base
}
