import ATT
import HCI
import TraceFiles
import Wire

/// ATT traffic per connection in fixed one-second bins (seconds from the first record), for the
/// timeline picture.
///
/// Fed record by record from the caller's read loop, after ``LifecycleAnalyzer/add(_:_:)`` has
/// seen the record (it names the connection open on the ACL handle). Only seconds with traffic
/// hold a bin, and the number of bins is capped at `limit`: past it, packets are counted in
/// `dropped` only, so memory stays bounded on captures of any length.
public struct TrafficHistogram: Sendable {
    public struct Bin: Hashable, Sendable {
        /// Whole seconds since the first record.
        public var second: Int64
        public var packets: UInt32
        /// ATT PDU bytes (opcode and parameters).
        public var bytes: UInt32
    }

    /// The first record's time: bin 0 starts here.
    public private(set) var origin: Timestamp?
    /// Bins per connection id, in the order they were filled (time order, unless the capture's
    /// clock went back).
    public private(set) var bins: [Int: [Bin]] = [:]
    public let limit: Int
    public private(set) var binCount = 0
    /// ATT PDUs not binned because the limit was reached.
    public private(set) var dropped = 0

    public init(limit: Int = 200_000) { self.limit = limit }

    public mutating func add(_ record: CaptureRecord, _ decoded: DecodedRecord, analyzer: LifecycleAnalyzer) {
        if origin == nil { origin = record.timestamp }
        guard decoded.att != nil, let frame = decoded.l2cap, case .acl(let acl)? = decoded.packet,
            let id = analyzer.connectionID(on: acl.handle), let origin
        else { return }
        // Records before the first (a clock that went back) count in bin 0; the distance from the
        // first record is exact, so a clock that jumps by centuries cannot overflow it.
        let (before, micros) = record.timestamp.offset(since: origin)
        let second = before ? 0 : Int64(micros / 1_000_000)
        let size = UInt32(clamping: frame.payload.count)
        if let last = bins[id]?.indices.last, bins[id]![last].second == second {
            bins[id]![last].packets &+= 1
            bins[id]![last].bytes &+= size
            return
        }
        guard binCount < limit else {
            dropped += 1
            return
        }
        binCount += 1
        bins[id, default: []].append(Bin(second: second, packets: 1, bytes: size))
    }

    /// The busiest second of any connection, in packets.
    public var peak: UInt32 { bins.values.lazy.flatMap { $0 }.map(\.packets).max() ?? 0 }
}
