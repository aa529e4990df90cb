import ATT
import CoreBluetoothCodes
import HCI
import TraceFiles
import Wire

/// Builds connection lifecycles from decoded records, one record at a time.
///
/// HCI allows one LE connection attempt at a time: a Create Connection becomes the pending
/// attempt when its Command Status succeeds (a second one while the first is pending is refused
/// with Command Disallowed, and the first stays pending); an LE Connection Complete ends it. Open
/// connections are tracked by handle until their Disconnection Complete; a handle may be reused
/// afterwards.
public struct LifecycleAnalyzer {
    public private(set) var connections: [Connection] = []
    /// The attempt the controller accepted and has not completed.
    private var pendingAttempt: Int?
    /// The latest Create Connection, until its Command Status arrives.
    private var awaitingStatus: Int?
    private var openByHandle: [UInt16: Int] = [:]
    /// Handles the host asked to disconnect (HCI Disconnect sent, not yet completed).
    private var disconnectRequested: Set<UInt16> = []
    /// Requests, answers, MTU and attributes per connection handle.
    public private(set) var att = ATTTracker()
    /// The request the last record answered, if it carried an ATT response.
    public private(set) var lastAnswered: ATTRequest?
    private var firstTime: Timestamp?
    private var lastTime: Timestamp?
    private var records = 0

    public init() {}

    public var report: LifecycleReport {
        LifecycleReport(
            connections: connections, firstTime: firstTime, lastTime: lastTime, records: records)
    }

    /// The connection open on `handle` now.
    public func openConnection(on handle: UInt16) -> Connection? {
        openByHandle[handle].map { connections[$0] }
    }

    public mutating func add(_ record: CaptureRecord, _ decoded: DecodedRecord) {
        lastAnswered = nil
        records += 1
        if firstTime == nil { firstTime = record.timestamp }
        lastTime = record.timestamp
        switch decoded.packet {
        case .command(let command):
            handle(command, record)
        case .event(let event):
            handle(event, record)
        case .acl(let acl) where acl.handle != ACLPacket.androidDebugHandle:
            let id = connection(forTrafficOn: acl.handle, record)
            if let pdu = decoded.att {
                count(pdu, on: id)
                lastAnswered = att.observe(
                    pdu, connection: acl.handle, direction: record.direction, time: record.timestamp, record: record.index)
                if let mtu = att.mtu[acl.handle] { connections[id].mtu = mtu }
            }
        default:
            break
        }
    }

    private mutating func handle(_ command: HCICommand, _ record: CaptureRecord) {
        switch command {
        case .leCreateConnection(let attempt), .leExtendedCreateConnection(let attempt):
            var connection = Connection(id: connections.count)
            connection.role = .central
            connection.attemptTime = record.timestamp
            connection.attemptRecord = record.index
            connection.usesFilterAcceptList = attempt.usesFilterAcceptList
            if !attempt.usesFilterAcceptList {
                connection.peer = attempt.peerAddress
                connection.peerAddressType = attempt.peerAddressType
            }
            awaitingStatus = connection.id
            connections.append(connection)
        case .leCreateConnectionCancel:
            if let id = pendingAttempt ?? awaitingStatus { connections[id].cancelTime = record.timestamp }
        case .disconnect(let handle, _):
            disconnectRequested.insert(handle)
        case .unknown:
            break
        }
    }

    private mutating func handle(_ event: HCIEvent, _ record: CaptureRecord) {
        switch event {
        case .commandStatus(let status, _, let opcode)
        where opcode == .leCreateConnection || opcode == .leExtendedCreateConnection:
            guard let id = awaitingStatus else { break }
            awaitingStatus = nil
            if status == .success {
                pendingAttempt = id
            } else {
                // Refused outright; an earlier pending attempt, if any, goes on.
                complete(id, status: status, record)
            }
        case .commandStatus(let status, _, .disconnect) where status != .success:
            disconnectRequested.removeAll()
        case .le(.connectionComplete(let event)):
            let id: Int
            if event.role == 0, let pending = pendingAttempt ?? awaitingStatus {
                // (A capture may lack the Command Status.)
                id = pending
                pendingAttempt = nil
                awaitingStatus = nil
            } else {
                id = connections.count
                var connection = Connection(id: id)
                connection.role = event.role == 0 ? .central : .peripheral
                connections.append(connection)
            }
            if event.status == .success {
                // A failed completion's address fields are not valid (often all zero).
                connections[id].peer = event.peerAddress
                connections[id].peerAddressType = event.peerAddressType
                // A handle still open here lost its disconnection from the capture; the new
                // connection takes the handle over.
                connections[id].handle = event.handle
                openByHandle[event.handle] = id
                att.reset(connection: event.handle)
            }
            complete(id, status: event.status, record)
        case .connectionComplete(let status, let handle, let address, _):
            var connection = Connection(id: connections.count)
            connection.transport = .classic
            connection.peer = address
            connections.append(connection)
            if status == .success {
                connections[connection.id].handle = handle
                openByHandle[handle] = connection.id
            }
            complete(connection.id, status: status, record)
        case .disconnectionComplete(let status, let handle, let reason) where status == .success:
            let id = openByHandle[handle] ?? connection(forTrafficOn: handle, record)
            let local = disconnectRequested.contains(handle) || reason == .connectionTerminatedByLocalHost
            connections[id].disconnectTime = record.timestamp
            connections[id].disconnectRecord = record.index
            connections[id].reason = reason
            connections[id].initiator = local ? .local : .remote
            connections[id].cbError = CoreBluetoothMapping.disconnectionError(
                reason: reason, requestedByApp: local)
            openByHandle[handle] = nil
            disconnectRequested.remove(handle)
            att.reset(connection: handle)
        default:
            break
        }
    }

    private mutating func complete(_ id: Int, status: HCIStatus, _ record: CaptureRecord) {
        connections[id].completeTime = record.timestamp
        connections[id].completeRecord = record.index
        connections[id].status = status
        let cancelled = connections[id].cancelTime != nil && status == .unknownConnectionIdentifier
        if status != .success, !cancelled {
            let mapped = CoreBluetoothMapping.connectionFailureError(status: status)
            connections[id].cbError = Mapped(value: mapped.value, evidence: mapped.evidence)
        }
    }

    /// The open connection on `handle`, or a new one that began before the capture did.
    private mutating func connection(forTrafficOn handle: UInt16, _ record: CaptureRecord) -> Int {
        if let id = openByHandle[handle] { return id }
        var connection = Connection(id: connections.count)
        connection.handle = handle
        connection.beganBeforeCapture = true
        connections.append(connection)
        openByHandle[handle] = connection.id
        return connection.id
    }

    private mutating func count(_ pdu: ATTPDU, on id: Int) {
        switch pdu.opcode.method {
        case .request: connections[id].attRequests += 1
        case .notification: connections[id].attNotifications += 1
        case .indication: connections[id].attIndications += 1
        default: break
        }
        if case .errorResponse = pdu { connections[id].attErrors += 1 }
    }
}

extension LifecycleAnalyzer {
    /// Reads a whole capture and returns its lifecycles, and the fault that stopped the reading
    /// if the file is damaged (every record before it is included).
    public static func analyze(path: String) throws -> (LifecycleReport, fault: (any Error)?) {
        let reader = try CaptureReader(path: path)
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        do {
            while let record = try reader.next() {
                analyzer.add(record, decoder.decode(record))
            }
        } catch {
            return (analyzer.report, error)
        }
        return (analyzer.report, nil)
    }
}
