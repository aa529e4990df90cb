import ATT
import HCI
import TraceFiles
import Wire

/// Gathers, record by record next to a ``LifecycleAnalyzer`` that has already seen each record,
/// what `bletrace diagnose` needs beyond the lifecycles and the errors: the link-layer procedures
/// started and how they completed, the connection parameters a peer asked for, the last packet
/// from the peer, the gaps in each connection's traffic and the latency of every ATT request.
/// `findings(report:errors:)` then applies every ``DiagnosisRule``.
///
/// It runs in the same single pass as the analysis (``TraceAnalysis``, ``CaptureAnalyzer``).
///
/// The analyzer is passed inout, by address, and never changed: passed by value to a mutating
/// method, Swift copied all of it (360 bytes) for each call, a tenth of `diagnose`'s time on the
/// generated 1,000,000-record capture (Benchmarks/results.md).
public struct DiagnosisCollector {
    /// A link-layer procedure, as HCI shows it: the command (or event) that started it and the
    /// event that completed it.
    public struct Procedure: Hashable, Sendable {
        /// `connection update`, `PHY update`, `encryption`, `remote features`, `remote version`.
        public var name: String
        /// The record that started it (a command the controller accepted, or the peer's request).
        public var record: Int?
        /// The completion event and its status, once seen.
        public var completeRecord: Int?
        public var status: HCIStatus?
    }

    /// Connection parameters one side asked for.
    public struct ParameterRequest: Hashable, Sendable, Codable {
        /// `L2CAP Connection Parameter Update Request` or `LE Remote Connection Parameter Request`.
        public var via: String
        public var record: Int
        public var time: Timestamp
        /// Who sent it, where the capture records directions.
        public var sentBy: Pairing.Side?
        /// Interval in 1.25 ms units, supervision timeout in 10 ms units.
        public var intervalMin: UInt16
        public var intervalMax: UInt16
        public var latency: UInt16
        public var timeout: UInt16
        /// The L2CAP response, or this host's LE Remote Connection Parameter Request Negative Reply,
        /// that rejected it, if one did.
        public var rejectedRecord: Int?
    }

    /// What is gathered per connection (``Connection/id``).
    public struct Link: Sendable {
        /// The first ACL record in either direction (where a connection that began before the
        /// capture shows first).
        public var firstTraffic: Int?
        public var firstTrafficTime: Timestamp?
        /// The last ACL record from the peer, and the last in either direction.
        public var lastReceived: Int?
        public var lastReceivedTime: Timestamp?
        public var lastTraffic: Int?
        public var lastTrafficTime: Timestamp?
        /// Procedures started and not completed, and those completed with a failure.
        public var pending: [Procedure] = []
        public var failed: [Procedure] = []
        public var parameterRequests: [ParameterRequest] = []
        /// Each Service Changed indication of the peer's server (its record) and the first discovery
        /// request of this host's client after it, if any.
        public var serviceChanges: [(record: Int, rediscovery: Int?)] = []
        /// Key sizes from Read Encryption Key Size (the record of its Command Complete, and its time).
        public var keySizes: [(size: UInt8, record: Int, time: Timestamp)] = []
        /// The time from each ATT request of this host's client to its answer.
        public var latencies = Latencies()
        /// Gaps between two ACL records longer than half the supervision timeout in force: how
        /// many, and the longest (its length and the records either side).
        public var gaps = 0
        public var longestGap: (seconds: Double, from: Int, to: Int)?
        /// The primary services this host's client's last full discovery found on the link.
        package var layout = ServiceLayout()
    }

    /// Request latencies, 4 bytes each where a `Double` took 8: a capture with millions of requests
    /// keeps one each until the end (the median and 95th percentile need them all). Whole
    /// microseconds in an `Int32` (up to 35 minutes either way); a longer one, which only a damaged
    /// capture's clock gives, is kept apart in seconds.
    public struct Latencies: Sendable {
        private var microseconds: [Int32] = []
        private var longer: [Double] = []

        public var count: Int { microseconds.count + longer.count }
        public var isEmpty: Bool { microseconds.isEmpty && longer.isEmpty }

        /// The latency of an answer at `time` to a request at `start`.
        mutating func append(_ time: Timestamp, since start: Timestamp) {
            if let small = Int32(exactly: time.microseconds(since: start)) {
                microseconds.append(small)
            } else {
                longer.append(time.seconds(since: start))
            }
        }

        /// Every latency in seconds (the whole microseconds first): each the same `Double` as
        /// `Timestamp.seconds(since:)` gives.
        public var seconds: [Double] {
            let zero = Timestamp(microseconds: 0)
            return microseconds.map { Timestamp(microseconds: Int64($0)).seconds(since: zero) } + longer
        }
    }

    /// Per connection id.
    public private(set) var links = Links()
    /// Per connection id, the per-record state (``Traffic``).
    private var traffic: [Traffic] = []
    /// What the rules of DiagnosisCollector+Procedures.swift gather (issue 43 §5).
    var trails = ProcedureTrails()

    /// ``Link``s by connection id: ids are dense from 0, and the hot path touches one for every
    /// ACL record, so they are kept in an array rather than hashed.
    public struct Links: Sendable {
        private var storage: [Link?] = []

        public subscript(id: Int) -> Link? {
            get { id < storage.count ? storage[id] : nil }
            set {
                grow(to: id)
                storage[id] = newValue
            }
        }

        subscript(id: Int, default value: @autoclosure () -> Link) -> Link {
            get { self[id] ?? value() }
            _modify {
                grow(to: id)
                if storage[id] == nil { storage[id] = value() }
                yield &storage[id]!
            }
        }

        /// Whether connection `id`'s last Service Changed indication awaits the rediscovery after
        /// it (read in place: the subscript's getter would copy the link for every ATT PDU).
        func awaitsRediscovery(_ id: Int) -> Bool {
            id < storage.count && storage[id]?.serviceChanges.last.map { $0.rediscovery == nil } == true
        }

        private mutating func grow(to id: Int) {
            if id >= storage.count { storage.append(contentsOf: repeatElement(nil, count: id - storage.count + 1)) }
        }
    }
    /// Commands that start a procedure, until their Command Status: by opcode, the handle, the
    /// record.
    private var awaitingStatus: [UInt16: (handle: UInt16, record: Int)] = [:]

    public init() {}

    /// The commands that start a link-layer procedure, and the procedure's name.
    static func procedure(started opcode: UInt16) -> String? {
        switch opcode {
        case 0x2013: "connection update"  // LE Connection Update
        case 0x2032: "PHY update"  // LE Set PHY
        case 0x2019: "encryption"  // LE Enable Encryption
        case 0x2016: "remote features"  // LE Read Remote Features
        case 0x041D: "remote version"  // Read Remote Version Information
        default: nil
        }
    }

    public mutating func add(_ record: CaptureRecord, _ decoded: DecodedRecord, analyzer: inout LifecycleAnalyzer) {
        addWhole(record, decoded, &analyzer)
    }

    /// ``add(_:_:analyzer:)`` with the record passed by address too (inout, never changed), as
    /// ``CaptureAnalyzer`` passes it: passed by value from a field of a struct being changed,
    /// Swift copied it (232 bytes, its references retained) for each record decoded whole.
    mutating func add(_ record: CaptureRecord, _ decoded: inout DecodedRecord, analyzer: inout LifecycleAnalyzer) {
        addWhole(record, decoded, &analyzer)
    }

    @inline(__always)
    private mutating func addWhole(
        _ record: CaptureRecord, _ decoded: DecodedRecord, _ analyzer: inout LifecycleAnalyzer
    ) {
        switch decoded.packet {
        case .command(.unknown(let opcode, let parameters)):
            guard parameters.count >= 2 else { break }
            let handle = (UInt16(parameters[0]) | UInt16(parameters[1]) << 8) & 0x0FFF
            if Self.procedure(started: opcode.rawValue) != nil {
                awaitingStatus[opcode.rawValue] = (handle, record.index)
            } else if opcode.rawValue == 0x2021 {
                remoteRequestRejected(on: handle, record, &analyzer)
            } else if opcode.rawValue == 0x2022 || opcode.rawValue == ProcedureTrails.apcf {
                trails.command(opcode.rawValue, parameters, handle: handle, record, &analyzer)
            }
        case .event(let event):
            self.event(event, record, &analyzer)
        case .acl(let acl) where acl.handle != ACLPacket.androidDebugHandle:
            traffic(on: acl.handle, record, &analyzer)
            if let pdu = decoded.att {
                answered(on: acl.handle, record, &analyzer)
                serviceChange(pdu, on: acl.handle, record, &analyzer)
                trails.att(pdu, length: decoded.l2cap?.payload.count ?? 0, on: acl.handle, record, &analyzer)
                discovery(pdu, on: acl.handle, record, &analyzer)
            }
            if let l2cap = decoded.l2cap, l2cap.channel == .leSignaling,
                let pdu = try? LESignalingPDU.decode(l2cap.payload)
            {
                signalling(pdu.command, on: acl.handle, record, &analyzer)
            }
        default:
            break
        }
    }

    /// Adds a record in its quick form (``TraceDecoder/decode(_:into:)``), with the same effect as
    /// its full decoding.
    @inline(__always)
    public mutating func add(_ quick: QuickRecord, _ record: CaptureRecord, analyzer: inout LifecycleAnalyzer) {
        switch quick {
        case .fragment(let handle):
            guard let id = analyzer.connectionID(on: handle) else { return }
            addTraffic(on: id, record, &analyzer)
        case .att(let handle, let opcode, let attribute, let length):
            guard let id = analyzer.connectionID(on: handle) else { return }
            addTraffic(on: id, record, &analyzer)
            if analyzer.lastAnswered != nil { addAnswer(on: id, record, &analyzer) }
            // (Only a PDU longer than the smallest MTU can be too long for its own.)
            if length > ProcedureTrails.defaultMTU, opcode == .writeCommand {
                trails.longCommand(attribute, length: length, on: id, handle: handle, record, &analyzer)
            }
        case .event(let code):
            addEvent(code, record, &analyzer)
        }
    }

    /// A quick event (``QuickRecord/event(_:)``): Encryption Change, Read Remote Version
    /// Information Complete, Encryption Key Refresh Complete, Encryption Change v2 are kept raw by
    /// the HCI decoder, and read here.
    @inline(__always)
    mutating func addEvent(_ code: HCIEventCode, _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer) {
        switch code.rawValue {
        case 0x08, 0x0C, 0x30, 0x59: rawEvent(record, &analyzer)
        default: break
        }
    }

    /// An ACL record of connection `id` (as ``LifecycleAnalyzer`` found it for the record, the
    /// open connection on its handle): the last packet, and the gap since the one before.
    @inline(__always)
    mutating func addTraffic(on id: Int, _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer) {
        if id >= traffic.count { growTraffic(to: id) }
        // (No closure here: one capturing the analyzer would copy it for every record.)
        guard let gap = traffic[id].note(record, time: record.timestamp) else { return }
        longGap(gap, on: id, &analyzer)
    }

    @inline(never)
    private mutating func growTraffic(to id: Int) {
        traffic.append(contentsOf: repeatElement(Traffic(), count: id - traffic.count + 1))
    }

    /// A gap of more than 50 ms before a record of connection `id`: counted when longer than half
    /// the supervision timeout in force. (Out of line: rare.)
    @inline(never)
    private mutating func longGap(
        _ gap: (seconds: Double, from: Int, to: Int), on id: Int, _ analyzer: inout LifecycleAnalyzer
    ) {
        // Half the supervision timeout in force (10 ms units): 5 ms per unit.
        if let timeout = analyzer.connections[id].parameters()?.supervisionTimeout,
            gap.seconds > Double(timeout) * 0.005
        {
            traffic[id].countGap(gap)
        }
    }

    /// A quick ATT PDU of connection `id` that answered a request (``LifecycleAnalyzer/lastAnswered``
    /// is set): its latency, if it answered this host's client. (Out of line: most records answer
    /// nothing.)
    @inline(never)
    mutating func addAnswer(on id: Int, _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer) {
        guard let request = analyzer.lastAnswered, request.server == .peer, request.opcode.method == .request else {
            return
        }
        links[id, default: Link()].latencies.append(record.timestamp, since: request.time)
    }

    /// An ACL record on `handle`: the last packet, and the gap since the one before.
    @inline(__always)
    private mutating func traffic(on handle: UInt16, _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer) {
        guard let id = analyzer.connectionID(on: handle) else { return }
        addTraffic(on: id, record, &analyzer)
    }

    /// What every ACL record of a link updates: the last packets and the gaps, kept apart from
    /// ``Link`` in a plain array (nothing in it to retain or hash), as the hot path touches it
    /// for every record. ``link(_:)`` puts the two together.
    struct Traffic {
        var firstTraffic: Int?
        var firstTrafficTime: Timestamp?
        var lastReceived: Int?
        var lastReceivedTime: Timestamp?
        var lastTraffic: Int?
        var lastTrafficTime: Timestamp?
        var gaps = 0
        var longestGap: (seconds: Double, from: Int, to: Int)?
    }

    /// Connection `id`'s link: what the collector gathered, with its traffic.
    func link(_ id: Int) -> Link {
        var link = links[id] ?? Link()
        if id < traffic.count {
            let t = traffic[id]
            (link.lastReceived, link.lastReceivedTime, link.lastTraffic, link.lastTrafficTime) =
                (t.lastReceived, t.lastReceivedTime, t.lastTraffic, t.lastTrafficTime)
            (link.gaps, link.longestGap) = (t.gaps, t.longestGap)
            (link.firstTraffic, link.firstTrafficTime) = (t.firstTraffic, t.firstTrafficTime)
        }
        return link
    }

    /// An ATT PDU that may answer a request of this host's client: its latency.
    @inline(__always)
    private mutating func answered(on handle: UInt16, _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer) {
        guard analyzer.lastAnswered != nil, let id = analyzer.connectionID(on: handle) else { return }
        addAnswer(on: id, record, &analyzer)
    }

    /// A Service Changed indication, or the first discovery request after one.
    private mutating func serviceChange(
        _ pdu: ATTPDU, on handle: UInt16, _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer
    ) {
        guard let id = analyzer.connectionID(on: handle) else { return }
        if analyzer.lastServiceChange != nil {
            links[id, default: Link()].serviceChanges.append((record.index, nil))
        } else if links.awaitsRediscovery(id),
            GATTServer(pdu.opcode.method, direction: record.direction) == .peer, pdu.opcode.method == .request,
            LifecycleAnalyzer.procedure(pdu.opcode, type: LifecycleAnalyzer.requestedType(pdu)) != nil
        {
            let last = links[id, default: Link()].serviceChanges.count - 1
            links[id, default: Link()].serviceChanges[last].rediscovery = record.index
        }
    }

    /// A PDU of a discovery of the peer's primary services (``ServiceLayout``).
    private mutating func discovery(
        _ pdu: ATTPDU, on handle: UInt16, _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer
    ) {
        switch pdu.opcode {
        case .readByGroupTypeRequest, .readByGroupTypeResponse, .errorResponse: break
        default: return
        }
        guard let id = analyzer.connectionID(on: handle) else { return }
        let sentByClient =
            GATTServer(pdu.opcode.method, direction: record.direction) == .peer && pdu.opcode.method == .request
        links[id, default: Link()].layout.add(
            pdu, sentByClient: sentByClient, answered: analyzer.lastAnswered, record: record.index,
            time: record.timestamp)
    }

    private mutating func event(_ event: HCIEvent, _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer) {
        switch event {
        case .commandStatus(let status, _, let opcode):
            guard let started = awaitingStatus.removeValue(forKey: opcode.rawValue), status == .success,
                let name = Self.procedure(started: opcode.rawValue), let id = analyzer.connectionID(on: started.handle)
            else { break }
            links[id, default: Link()].pending.append(Procedure(name: name, record: started.record))
        case .commandComplete(_, let opcode, let parameters) where opcode.rawValue == ProcedureTrails.apcf:
            trails.apcfComplete(parameters, record)
        case .commandComplete(_, let opcode, let parameters) where opcode.rawValue == 0x1408:
            // Read Encryption Key Size: status, handle, key size.
            guard parameters.count >= 4, parameters[0] == 0 else { break }
            let handle = (UInt16(parameters[1]) | UInt16(parameters[2]) << 8) & 0x0FFF
            if let id = analyzer.connectionID(on: handle) {
                links[id, default: Link()].keySizes.append((parameters[3], record.index, record.timestamp))
            }
        case .le(.unknown(let subevent, _)):
            switch subevent.rawValue {
            case 0x03, 0x04, 0x05, 0x06, 0x07, 0x0C: rawEvent(record, &analyzer)
            default: break
            }
        case .unknown(let code, _):
            switch code.rawValue {
            case 0x08, 0x0C, 0x30, 0x59: rawEvent(record, &analyzer)
            default: break
            }
        default:
            break
        }
    }

    /// The events that complete a procedure, or start one at the peer's request, read with the
    /// full event decoder.
    private mutating func rawEvent(_ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer) {
        guard let event = try? HCIEventParameters.decode(record.bytes), let handle = event.handle,
            let id = analyzer.connectionID(on: handle)
        else { return }
        switch event {
        case .le(.connectionUpdateComplete(let update)): complete("connection update", update.status, id, record)
        case .le(.phyUpdateComplete(let status, _, _, _)): complete("PHY update", status, id, record)
        case .le(.readRemoteFeaturesComplete(let status, _, _)): complete("remote features", status, id, record)
        case .le(.dataLengthChange): trails.dataLengthChanged(on: id, record)
        case .readRemoteVersionInformationComplete: complete("remote version", event.status ?? .success, id, record)
        case .encryptionChange(let change): complete("encryption", change.status, id, record)
        case .encryptionKeyRefreshComplete(let status, _): complete("encryption", status, id, record)
        case .le(.longTermKeyRequest):
            // The central starts encryption; this host (the peripheral) is asked for the key.
            links[id, default: Link()].pending.append(Procedure(name: "encryption", record: record.index))
        case .le(.remoteConnectionParameterRequest(let request)):
            links[id, default: Link()].pending.append(Procedure(name: "connection update", record: record.index))
            links[id, default: Link()].parameterRequests.append(
                ParameterRequest(
                    via: Self.remoteRequest, record: record.index, time: record.timestamp, sentBy: .peer,
                    intervalMin: request.intervalMin, intervalMax: request.intervalMax, latency: request.maxLatency,
                    timeout: request.timeout))
        default:
            break
        }
    }

    /// The completion of a procedure `name` on connection `id`: it is no longer pending, and a
    /// failure is kept (also when the capture shows no start: the peer began it).
    private mutating func complete(_ name: String, _ status: HCIStatus, _ id: Int, _ record: CaptureRecord) {
        var link = links[id] ?? Link()
        var procedure = Procedure(name: name, record: nil)
        if let index = link.pending.firstIndex(where: { $0.name == name }) {
            procedure = link.pending.remove(at: index)
        }
        procedure.completeRecord = record.index
        procedure.status = status
        if status != .success { link.failed.append(procedure) }
        links[id] = link
        // (The procedures a peer may end the link after: DiagnosisCollector+Procedures.swift.)
        if status == .success && name == "PHY update" { trails[id].lastPHYUpdate = procedure }
        if status == .success && name == "encryption" { trails[id].lastEncryption = procedure }
    }

    /// LE Remote Connection Parameter Request Negative Reply: this host rejected the peer's last
    /// request, which is no longer a procedure under way (the peer's controller is told at once).
    /// (The Reply is answered by Command Complete; the procedure then ends with LE Connection
    /// Update Complete.)
    private mutating func remoteRequestRejected(
        on handle: UInt16, _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer
    ) {
        guard let id = analyzer.connectionID(on: handle),
            let last = links[id]?.parameterRequests.lastIndex(where: {
                $0.via == Self.remoteRequest && $0.rejectedRecord == nil
            })
        else { return }
        links[id]!.parameterRequests[last].rejectedRecord = record.index
        let request = links[id]!.parameterRequests[last].record
        links[id]!.pending.removeAll { $0.name == "connection update" && $0.record == request }
    }

    static let remoteRequest = "LE Remote Connection Parameter Request"

    /// LE signalling: Connection Parameter Update Request and its response.
    private mutating func signalling(
        _ command: LESignalingCommand, on handle: UInt16, _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer
    ) {
        guard let id = analyzer.connectionID(on: handle) else { return }
        switch command {
        case .connectionParameterUpdateRequest(let min, let max, let latency, let timeout):
            links[id, default: Link()].parameterRequests.append(
                ParameterRequest(
                    via: "L2CAP Connection Parameter Update Request", record: record.index, time: record.timestamp,
                    sentBy: record.direction.map { $0 == .sent ? .host : .peer },
                    intervalMin: min, intervalMax: max, latency: latency, timeout: timeout))
        case .connectionParameterUpdateResponse(let result) where result != 0:
            if let last = links[id]?.parameterRequests.indices.last {
                links[id]!.parameterRequests[last].rejectedRecord = record.index
            }
        default:
            break
        }
    }
}

extension DiagnosisCollector.Traffic {
    /// An ACL record at `time`. Returns the gap since the one before when it is longer than
    /// 50 ms (half the shortest supervision timeout, 100 ms: shorter gaps never count), for the
    /// caller to weigh against the link's timeout (``countGap(_:)``).
    @inline(__always)
    mutating func note(_ record: CaptureRecord, time: Timestamp) -> (seconds: Double, from: Int, to: Int)? {
        var long: (seconds: Double, from: Int, to: Int)?
        // In whole microseconds: a division for every record would cost more than the rest.
        if let last = lastTrafficTime {
            if let from = lastTraffic, time.microseconds &- last.microseconds > 50_000 {
                long = (time.seconds(since: last), from, record.index)
            }
        } else {
            (firstTraffic, firstTrafficTime) = (record.index, time)
        }
        lastTraffic = record.index
        lastTrafficTime = time
        if record.direction != .sent {
            lastReceived = record.index
            lastReceivedTime = time
        }
        return long
    }

    /// A gap longer than half the supervision timeout.
    mutating func countGap(_ gap: (seconds: Double, from: Int, to: Int)) {
        gaps += 1
        if gap.seconds > longestGap?.seconds ?? 0 { longestGap = gap }
    }
}
