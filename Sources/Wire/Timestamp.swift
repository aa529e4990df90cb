/// A capture timestamp: microseconds since the Unix epoch, UTC.
///
/// Signed, because real captures carry times before 1970 (Android devices whose clock was never
/// set write btsnoop times smaller than the format's Unix offset). Any two timestamps may be
/// compared and subtracted: a file can hold times far apart or going backwards, so the distance
/// between two of them is exact (``offset(since:)``) and never traps, even when it does not fit
/// in an `Int64`.
public struct Timestamp: RawRepresentable, Hashable, Comparable, Sendable {
    public var rawValue: Int64

    @inlinable public init(rawValue: Int64) { self.rawValue = rawValue }
    @inlinable public init(microseconds: Int64) { self.rawValue = microseconds }

    /// Seconds and microseconds as a file format gives them, clamped to the range a Timestamp
    /// holds (about 292,000 years either side of 1970): a time beyond it is read as the nearest
    /// one it can hold, never trapping.
    @inlinable
    public init(seconds: Int64, microseconds: Int64) {
        var (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        var micros = microseconds
        if overflow, seconds < 0, micros > 0 {
            // The earliest second holds times just after Int64.min: count from the next one.
            (scaled, overflow) = (seconds + 1).multipliedReportingOverflow(by: 1_000_000)
            micros -= 1_000_000
        }
        if overflow {
            rawValue = seconds < 0 ? .min : .max
            return
        }
        let (sum, carry) = scaled.addingReportingOverflow(micros)
        rawValue = carry ? (micros < 0 ? .min : .max) : sum
    }

    @inlinable public var microseconds: Int64 { rawValue }

    /// The exact distance from `origin` to this time: its direction and its size in
    /// microseconds (the difference of any two timestamps fits in a `UInt64` magnitude).
    @inlinable
    public func offset(since origin: Timestamp) -> (negative: Bool, microseconds: UInt64) {
        if rawValue >= origin.rawValue {
            return (false, UInt64(bitPattern: rawValue &- origin.rawValue))
        }
        return (true, UInt64(bitPattern: origin.rawValue &- rawValue))
    }

    /// Microseconds from `origin` to this time, clamped to `Int64` (reached only by times more
    /// than 292,000 years apart).
    @inlinable
    public func microseconds(since origin: Timestamp) -> Int64 {
        let (difference, overflow) = rawValue.subtractingReportingOverflow(origin.rawValue)
        if overflow { return rawValue < origin.rawValue ? .min : .max }
        return difference
    }

    /// Seconds from `origin` to this time (exact to the microsecond up to 285 years apart, as
    /// close as a Double gets beyond).
    @inlinable
    public func seconds(since origin: Timestamp) -> Double {
        let (negative, magnitude) = offset(since: origin)
        let seconds = Double(magnitude / 1_000_000) + Double(magnitude % 1_000_000) / 1_000_000
        return negative ? -seconds : seconds
    }

    /// This time moved by `microseconds`, clamped to the range a Timestamp holds.
    @inlinable
    public func adding(microseconds: Int64) -> Timestamp {
        let (sum, overflow) = rawValue.addingReportingOverflow(microseconds)
        if overflow { return Timestamp(rawValue: microseconds < 0 ? .min : .max) }
        return Timestamp(rawValue: sum)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
