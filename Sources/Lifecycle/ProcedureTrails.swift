import ATT
import HCI
import TraceFiles
import Wire

/// What three rules of issue 43 §5 gather, next to ``DiagnosisCollector``'s own state: the
/// procedures a peer may end a link after (with their frames), ATT values too long for the MTU or
/// for 512 bytes, the primary services each peer's server revealed, and Android's controller scan
/// filters (APCF) on a service UUID. Only the records that carry one of these reach it: nothing
/// runs for a notification, a read or an ACL fragment.
struct ProcedureTrails {
    /// Android's Advanced Packet Content Filter, the vendor command of packages/modules/Bluetooth's
    /// `btm_ble_adv_filter.cc` (`HCI_BLE_ADV_FILTER`, OGF 0x3F, OCF 0x157).
    static let apcf: UInt16 = 0xFD57
    /// LE's default ATT_MTU (Core 6.0, Vol 3, Part F, §3.2.8): no PDU of this length or shorter is
    /// too long for any MTU.
    static let defaultMTU = 23
    /// The longest attribute value (Core 6.0, Vol 3, Part F, §3.2.9).
    static let maximumValue = 512

    /// Per connection id.
    private var storage: [Int: ProcedureTrail] = [:]
    /// Every service UUID filter a command of this host added, in order.
    private(set) var scanFilters: [ScanFilter] = []
    /// The last APCF service UUID filter sent, until its Command Complete.
    private var awaitingFilter: Int?
    /// How many connections await the answer to a request too long (``ProcedureTrail/awaiting``):
    /// while none does, an answer costs nothing here.
    private var awaited = 0

    subscript(id: Int) -> ProcedureTrail {
        get { storage[id] ?? ProcedureTrail() }
        _modify { yield &storage[id, default: ProcedureTrail()] }
    }

    func trail(_ id: Int) -> ProcedureTrail? { storage[id] }

    /// A service UUID filter of Android's controller scan filter (APCF sub-command 0x03, add).
    struct ScanFilter {
        var record: Int
        var time: Timestamp
        var uuid: BluetoothUUID
        /// The filter index (Android's scanner id for the scan it belongs to).
        var index: UInt8
        /// Its Command Complete and status, once seen.
        var completeRecord: Int?
        var status: UInt8?
    }

    /// LE Set Data Length (the start of a data length update), or an APCF command.
    mutating func command(
        _ opcode: UInt16, _ parameters: UnsafeRawBufferPointer, handle: UInt16, _ record: CaptureRecord,
        _ analyzer: inout LifecycleAnalyzer
    ) {
        if opcode == 0x2022 {
            if let id = analyzer.connectionID(on: handle) { self[id].dataLengthRequest = record.index }
            return
        }
        // APCF: sub-command, action (0 add, 1 delete, 2 clear), filter index, then the UUID and
        // its mask of the same length (Android always sends one), little-endian.
        guard parameters.count >= 5, parameters[0] == 0x03, parameters[1] == 0x00 else { return }
        let rest = UnsafeRawBufferPointer(rebasing: parameters[3...])
        let size: Int
        switch rest.count {
        case 4, 8, 32: size = rest.count / 2
        case 2, 16: size = rest.count
        default: return
        }
        // A partial mask matches more than one UUID: which it is cannot be said.
        guard rest[size...].allSatisfy({ $0 == 0xFF }) else { return }
        let bytes = UnsafeRawBufferPointer(rebasing: rest[..<size])
        let uuid: BluetoothUUID?
        if size == 4 {
            uuid = BluetoothUUID(bytes.loadUnaligned(as: UInt32.self).littleEndian)
        } else {
            uuid = BluetoothUUID(littleEndian: bytes)
        }
        guard let uuid else { return }
        awaitingFilter = scanFilters.count
        scanFilters.append(ScanFilter(record: record.index, time: record.timestamp, uuid: uuid, index: parameters[2]))
    }

    /// The Command Complete of an APCF command: status, sub-command, action, space left.
    mutating func apcfComplete(_ parameters: UnsafeRawBufferPointer, _ record: CaptureRecord) {
        guard let index = awaitingFilter, parameters.count >= 2, parameters[1] == 0x03 else { return }
        awaitingFilter = nil
        scanFilters[index].completeRecord = record.index
        scanFilters[index].status = parameters[0]
    }

    /// LE Data Length Change on connection `id`: the update completed (the LE Set Data Length
    /// before it, if this host asked).
    mutating func dataLengthChanged(on id: Int, _ record: CaptureRecord) {
        let start = self[id].dataLengthRequest
        self[id].dataLengthRequest = nil
        self[id].lastDataLength = (record.index, start)
    }

    /// A Write Command quick record longer than LE's default MTU.
    mutating func longCommand(
        _ attribute: UInt16, length: Int, on id: Int, handle: UInt16, _ record: CaptureRecord,
        _ analyzer: inout LifecycleAnalyzer
    ) {
        let server = GATTServer(.command, direction: record.direction)
        write(0x52, attribute, value: length - 3, pdu: length, on: id, handle: handle, server, record, &analyzer)
    }

    /// An ATT PDU decoded whole (never a quick one).
    mutating func att(
        _ pdu: ATTPDU, length: Int, on handle: UInt16, _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer
    ) {
        let opcode = pdu.opcode.rawValue
        switch opcode {
        case 0x02, 0x03, 0x0C, 0x0D, 0x11, 0x12, 0x16, 0x18, 0x52, 0xD2: break
        default:
            // Only an answer to a request awaited here goes on.
            guard awaited > 0, analyzer.lastAnswered != nil else { return }
        }
        guard let id = analyzer.connectionID(on: handle) else { return }
        let server = GATTServer(pdu.opcode.method, direction: record.direction)
        if awaited > 0, let request = analyzer.lastAnswered?.record, let index = storage[id]?.awaiting,
            storage[id]?.tooLong[index].request == request
        {
            self[id].tooLong[index].answer = record.index
            if case .errorResponse(_, _, let error) = pdu { self[id].tooLong[index].answerError = error.rawValue }
            self[id].awaiting = nil
            awaited -= 1
        }
        switch pdu {
        case .exchangeMTURequest:
            self[id].mtuRequest = record.index
        case .exchangeMTUResponse:
            guard let mtu = analyzer.att.mtu(on: handle) else { break }
            self[id].lastMTUExchange = (self[id].mtuRequest, record.index, record.timestamp, mtu)
            self[id].mtuRequest = nil
        case .writeRequest(let attribute, let value), .writeCommand(let attribute, let value):
            write(opcode, attribute, value: value.count, pdu: length, on: id, handle: handle, server, record, &analyzer)
        case .signedWriteCommand(let attribute, let value, _):
            write(opcode, attribute, value: value.count, pdu: length, on: id, handle: handle, server, record, &analyzer)
        case .prepareWriteRequest(let attribute, let offset, let value):
            write(opcode, attribute, value: value.count, pdu: length, on: id, handle: handle, server, record, &analyzer)
            let end = Int(offset) + value.count
            var queue = self[id].queues[server] ?? Queue(first: record.index)
            if end > queue.ends[attribute] ?? 0 { queue.ends[attribute] = end }
            if end > Self.maximumValue && queue.over == nil { queue.over = record.index }
            self[id].queues[server] = queue
        case .executeWriteRequest(let flags):
            guard let queue = self[id].queues.removeValue(forKey: server), flags == 0x01, let over = queue.over,
                let (attribute, total) = queue.ends.max(by: { $0.value < $1.value })
            else { break }
            add(
                TooLong(
                    kind: .queue, request: record.index, time: record.timestamp, evidence: [queue.first, over],
                    opcode: opcode, attribute: attribute, length: total, server: server),
                awaited: true, to: id)
        case .readBlobRequest(let attribute, let offset):
            self[id].blobRequest = (record.index, attribute, offset)
        case .readBlobResponse(let value):
            guard let request = self[id].blobRequest, analyzer.lastAnswered?.record == request.record else { break }
            self[id].blobRequest = nil
            let total = Int(request.offset) + value.count
            guard total > Self.maximumValue else { break }
            var read = TooLong(
                kind: .read, request: request.record, time: record.timestamp, evidence: [request.record],
                opcode: 0x0C, attribute: request.handle, length: total, server: server)
            read.answer = record.index
            add(read, awaited: false, to: id)
        case .readByGroupTypeResponse(let groups):
            // (Only the scan filter rule reads them, and only after a filter: none is kept before.)
            guard !scanFilters.isEmpty, server == .peer, analyzer.lastAnswered?.type == .primaryService
            else { break }
            for group in groups {
                if let uuid = BluetoothUUID(littleEndian: group.value) {
                    self[id].services.append((uuid, record.index))
                }
            }
        default:
            break
        }
    }

    /// A write of a `value`-byte value in a `pdu`-byte PDU: too long when the PDU exceeds the MTU in
    /// force (its value longer than ATT_MTU − 3 for a write, ATT_MTU − 5 for a Prepare Write), or
    /// the value (but a Prepare Write's part) exceeds 512 bytes.
    private mutating func write(
        _ opcode: UInt8, _ attribute: UInt16, value: Int, pdu: Int, on id: Int, handle: UInt16, _ server: GATTServer,
        _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer
    ) {
        // The MTU in force: the one agreed, else the default where the capture saw the link
        // from its start (one that began before may have exchanged one unseen).
        let agreed = analyzer.att.mtu(on: handle)
        let mtu = agreed ?? (analyzer.connections[id].beganBeforeCapture ? nil : UInt16(Self.defaultMTU))
        let overMTU = mtu.map { pdu > Int($0) } ?? false
        guard overMTU || (opcode != 0x16 && value > Self.maximumValue) else { return }
        var write = TooLong(
            kind: .write, request: record.index, time: record.timestamp, evidence: [], opcode: opcode,
            attribute: attribute, length: value, server: server)
        write.mtu = mtu
        write.mtuRecord = agreed == nil ? nil : storage[id]?.lastMTUExchange?.response
        write.overMTU = overMTU
        add(write, awaited: opcode == 0x12 || opcode == 0x16, to: id)
    }

    /// Keeps the first of each kind (counting the others); awaits the answer to a request.
    private mutating func add(_ tooLong: TooLong, awaited: Bool, to id: Int) {
        if let index = self[id].tooLong.firstIndex(where: { $0.kind == tooLong.kind }) {
            self[id].tooLong[index].count += 1
            return
        }
        self[id].tooLong.append(tooLong)
        if awaited {
            if self[id].awaiting == nil { self.awaited += 1 }
            self[id].awaiting = self[id].tooLong.count - 1
        }
    }
}

/// What ``ProcedureTrails`` keeps of one connection.
struct ProcedureTrail {
    /// An Exchange MTU Request until its response, and the last exchange completed: its records,
    /// its time and the MTU agreed. (Only the last of each procedure can be the link's last: none
    /// is kept in a list, and a connection costs no allocation here.)
    var mtuRequest: Int?
    var lastMTUExchange: (request: Int?, response: Int, time: Timestamp, mtu: UInt16)?
    /// LE Set Data Length until the LE Data Length Change after it; the last change, with the
    /// command that asked for it.
    var dataLengthRequest: Int?
    var lastDataLength: (change: Int, start: Int?)?
    /// The last PHY update and encryption (start or refresh) that completed with success, with the
    /// record that started each.
    var lastPHYUpdate: DiagnosisCollector.Procedure?
    var lastEncryption: DiagnosisCollector.Procedure?
    /// The first ATT value of each kind too long (``TooLong``), and the one whose answer is awaited.
    var tooLong: [TooLong] = []
    var awaiting: Int?
    /// Each client's prepare write queue (by the server it writes to).
    var queues: [GATTServer: Queue] = [:]
    /// The Read Blob Request awaiting its response.
    var blobRequest: (record: Int, handle: UInt16, offset: UInt16)?
    /// The primary services the peer's server revealed, with the Read By Group Type Response
    /// (once a scan filter has been seen).
    var services: [(uuid: BluetoothUUID, record: Int)] = []
}

/// A prepare write queue: its first Prepare Write Request, the end of each attribute's value in it,
/// and the first request that took a value past 512 bytes.
struct Queue {
    var first: Int
    var ends: [UInt16: Int] = [:]
    var over: Int?
}

/// An ATT value too long: a write longer than the MTU allows or than 512 bytes (`write`), a prepare
/// write queue that makes a value longer than 512 bytes (`queue`, at its Execute Write Request),
/// a long read that reads more than 512 bytes (`read`, at the Read Blob Response that passed it).
public struct TooLong: Hashable, Sendable, Codable {
    /// Which it was: a write, a prepare write queue, or a long read.
    public enum Kind: String, Hashable, Sendable, Codable { case write, queue, read }
    public var kind: Kind
    /// The request (or command), and its time.
    public var request: Int
    public var time: Timestamp
    /// Other records that show it (the queue's first Prepare Write and the one past 512).
    public var evidence: [Int]
    public var opcode: UInt8
    public var attribute: UInt16
    /// The value's length (a queue's or a read's total).
    public var length: Int
    public var server: GATTServer
    /// A write's MTU in force, where it was agreed (nil: LE's default), and whether it broke it.
    public var mtu: UInt16?
    public var mtuRecord: Int?
    public var overMTU = false
    /// The peer's answer, and its error code if it refused.
    public var answer: Int?
    public var answerError: UInt8?
    /// How many of this kind the connection had.
    public var count = 1
}
