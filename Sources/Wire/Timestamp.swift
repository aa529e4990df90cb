/// A capture timestamp: microseconds since the Unix epoch, UTC.
///
/// Signed, because real captures carry times before 1970 (Android devices whose clock was never
/// set write btsnoop times smaller than the format's Unix offset).
public struct Timestamp: RawRepresentable, Hashable, Comparable, Sendable {
    public var rawValue: Int64

    @inlinable public init(rawValue: Int64) { self.rawValue = rawValue }
    @inlinable public init(microseconds: Int64) { self.rawValue = microseconds }

    @inlinable public var microseconds: Int64 { rawValue }

    /// Seconds from `origin` to this time.
    @inlinable
    public func seconds(since origin: Timestamp) -> Double {
        Double(rawValue &- origin.rawValue) / 1_000_000
    }

    @inlinable
    public func adding(microseconds: Int64) -> Timestamp { Timestamp(rawValue: rawValue &+ microseconds) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
