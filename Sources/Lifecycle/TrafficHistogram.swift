import ATT
import HCI
import TraceFiles
import Wire

/// ATT traffic per connection in fixed one-second bins (seconds from the first record), for the
/// timeline picture.
///
/// Fed record by record by an ``AnalysisPass``, after its analysis has seen the record (the
/// lifecycles name the connection open on the ACL handle). Only seconds with traffic
/// hold a bin, and the number of bins is capped at `limit`: past it, packets are counted in
/// `dropped` only, so memory stays bounded on captures of any length.
public struct TrafficHistogram: Sendable, RecordCollector {
    /// One second of one connection's ATT traffic: its packets and bytes.
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

    public mutating func add(
        _ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer
    ) {
        if origin == nil { origin = record.timestamp }
        let handle: UInt16
        let size: Int
        if case .att(let connection, _, _, let length)? = quick {
            (handle, size) = (connection, length)
        } else if quick == nil, analysis.decoded.att != nil, let frame = analysis.decoded.l2cap,
            case .acl(let acl)? = analysis.decoded.packet
        {
            (handle, size) = (acl.handle, frame.payload.count)
        } else {
            return
        }
        guard let id = analysis.lifecycle.connectionID(on: handle), let origin else { return }
        // Records before the first (a clock that went back) count in bin 0; the distance from the
        // first record is exact, so a clock that jumps by centuries cannot overflow it.
        let (before, micros) = record.timestamp.offset(since: origin)
        let second = before ? 0 : Int64(micros / 1_000_000)
        let bytes = UInt32(clamping: size)
        if let last = bins[id]?.indices.last, bins[id]![last].second == second {
            bins[id]![last].packets &+= 1
            bins[id]![last].bytes &+= bytes
            return
        }
        guard binCount < limit else {
            dropped += 1
            return
        }
        binCount += 1
        bins[id, default: []].append(Bin(second: second, packets: 1, bytes: bytes))
    }

    /// The busiest second of any connection, in packets.
    public var peak: UInt32 { bins.values.lazy.flatMap { $0 }.map(\.packets).max() ?? 0 }
}
