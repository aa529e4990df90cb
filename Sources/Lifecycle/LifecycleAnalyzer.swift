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
    private var openByHandle = HandleTable<Int>()
    /// Handles the host asked to disconnect (HCI Disconnect sent, not yet completed).
    private var disconnectRequested: Set<UInt16> = []
    /// Requests, answers, MTU and attributes per connection handle.
    public private(set) var att = ATTTracker()
    /// The request the last record answered, if it carried an ATT response.
    public private(set) var lastAnswered: ATTRequest?
    /// The attribute range the last record, a Service Changed indication from the peer, declared
    /// changed (Core 6.0, Vol 3, Part G, §7.1).
    public private(set) var lastServiceChange: ClosedRange<UInt16>?
    /// Scans and advertising sets.
    public private(set) var scanning = ScanCollector()
    /// What discovery found per peer, for its next connection.
    private var cachedAttributes: [BluetoothAddress: [UInt16: AttributeInfo]] = [:]
    /// A CCCD Write Request per connection, until its Write Response confirms it.
    private var pendingSubscription: [Int: (handle: UInt16, value: UInt16, record: Int)] = [:]
    private var firstTime: Timestamp?
    private var lastTime: Timestamp?
    private var records = 0

    public init() {}

    /// The lifecycles so far; connections still open report the requests still unanswered.
    public var report: LifecycleReport {
        var connections = connections
        for handle in openByHandle.handles {
            connections[openByHandle[handle]!].unansweredRequests = att.unanswered(on: handle)
        }
        if !scanning.names.isEmpty {
            for index in connections.indices {
                if let peer = connections[index].peer { connections[index].peerName = scanning.names[peer] }
            }
        }
        return LifecycleReport(
            connections: connections, firstTime: firstTime, lastTime: lastTime, records: records,
            scans: scanning.scans, advertising: scanning.advertising)
    }

    /// The connection open on `handle` now.
    public func openConnection(on handle: UInt16) -> Connection? {
        openByHandle[handle].map { connections[$0] }
    }

    public mutating func add(_ record: CaptureRecord, _ decoded: DecodedRecord) {
        begin(record)
        scanning.add(record, decoded)
        switch decoded.packet {
        case .command(let command):
            handle(command, record)
        case .event(let event):
            handle(event, record)
        case .acl(let acl) where acl.handle != ACLPacket.androidDebugHandle:
            let id = connection(forTrafficOn: acl.handle, record)
            if let pdu = decoded.att {
                traffic(pdu, length: decoded.l2cap?.payload.count ?? 0, on: id, handle: acl.handle, record)
            }
        default:
            break
        }
    }

    /// Adds a record in its quick form (``TraceDecoder/decode(_:into:)``), with the same effect as
    /// its full decoding: a fragment or an ATT PDU on a handle no connection is open on begins
    /// one that was open before the capture, and an ATT PDU is followed as any other; a raw event
    /// is read only where it changes a connection (``change(_:)``). No scan or advertising record
    /// is quick.
    @inline(__always)
    public mutating func add(_ quick: QuickRecord, _ record: CaptureRecord) {
        begin(record)
        switch quick {
        case .fragment(let handle):
            _ = connection(forTrafficOn: handle, record)
        case .att(let handle, let opcode, let attribute, let length):
            // As ``traffic(_:length:on:handle:_:)`` follows these PDUs: a read is paired with its
            // answer, and none of them belongs to a discovery procedure, makes a subscription or
            // is a Service Changed indication.
            let id = connection(forTrafficOn: handle, record)
            connections[id].count(opcode, length: length, mtu: att.mtu(on: handle))
            if opcode == .readRequest || opcode == .readResponse {
                lastAnswered = att.observeRead(
                    opcode, attribute: attribute, connection: handle, direction: record.direction,
                    time: record.timestamp, record: record.index)
                // (A damaged capture may pair a Read Response with a discovery request.)
                if lastAnswered != nil { answered(on: id, record) }
            }
        case .event(let code):
            if Self.changesConnection(code) { change(record) }
        }
    }

    /// An ATT PDU of `length` bytes on connection `id` (open on `handle`): counted, paired with its
    /// request or answer, and followed through discovery, subscriptions and Service Changed.
    @inline(__always)
    private mutating func traffic(_ pdu: ATTPDU, length: Int, on id: Int, handle: UInt16, _ record: CaptureRecord) {
        let opcode = pdu.opcode
        let method = opcode.method
        let mtu = att.mtu(on: handle)
        // One access to the connection for the counts and the MTU.
        connections[id].count(opcode, length: length, mtu: mtu)
        // Notifications and commands (most of a capture) answer nothing and are answered by
        // nothing, belong to no procedure and make no subscription: nothing more to do.
        if method == .notification || method == .command { return }
        if case .handleValueIndication(let attribute, let value) = pdu, record.direction != .sent,
            value.count >= 4, att.attribute(attribute, on: handle)?.uuid == Self.serviceChanged
        {
            let start = UInt16(value[0]) | UInt16(value[1]) << 8
            let end = UInt16(value[2]) | UInt16(value[3]) << 8
            if start <= end { lastServiceChange = start...end }
            connections[id].serviceChangedIndications += 1
        }
        lastAnswered = att.observe(
            pdu, connection: handle, direction: record.direction, time: record.timestamp, record: record.index)
        if let mtu = att.mtu(on: handle) { connections[id].mtu = mtu }
        follow(pdu, on: id, handle: handle, record)
        if let range = lastServiceChange {
            // What discovery found there no longer holds, on this connection and for the
            // peer's next one.
            att.forget(range, on: handle)
            if let peer = connections[id].peer {
                cachedAttributes[peer] = cachedAttributes[peer]?.filter { !range.contains($0.key) || ATTTracker.isServiceChanged($0.value) }
            }
            connections[id].changes.append(
                Connection.Change(time: record.timestamp, record: record.index, kind: .serviceChanged(start: range.lowerBound, end: range.upperBound)))
        }
    }

    /// What every record does first.
    @inline(__always)
    private mutating func begin(_ record: CaptureRecord) {
        lastAnswered = nil
        lastServiceChange = nil
        records += 1
        if firstTime == nil { firstTime = record.timestamp }
        lastTime = record.timestamp
    }

    /// The raw events ``change(_:)`` reads: Encryption Change (0x08), Encryption Key Refresh
    /// Complete (0x30), Encryption Change v2 (0x59).
    static func changesConnection(_ code: HCIEventCode) -> Bool {
        // (A switch rather than a collection literal: this runs for every event, and a literal
        // collection would be built, on the heap, each time.)
        switch code.rawValue {
        case 0x08, 0x30, 0x59: true
        default: false
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
                connections[id].interval = event.connectionInterval
                connections[id].latency = event.peripheralLatency
                connections[id].supervisionTimeout = event.supervisionTimeout
                // A handle still open here lost its disconnection from the capture; the new
                // connection takes the handle over.
                connections[id].handle = event.handle
                openByHandle[event.handle] = id
                att.reset(connection: event.handle)
                att.seed(connection: event.handle, with: cachedAttributes[event.peerAddress] ?? [:])
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
            connections[id].unansweredRequests = att.unanswered(on: handle)
            if let peer = connections[id].peer {
                cachedAttributes[peer, default: [:]].merge(att.attributes(on: handle)) { _, new in new }
            }
            pendingSubscription[id] = nil
            openByHandle[handle] = nil
            disconnectRequested.remove(handle)
            att.reset(connection: handle)
        // (Switches rather than collection literals: this runs for every event, and a literal
        // collection would be built, on the heap, each time.)
        case .le(.unknown(let subevent, _)):
            switch subevent.rawValue {
            case 0x03, 0x07, 0x0C: change(record)
            default: break
            }
        case .unknown(let code, _):
            if Self.changesConnection(code) { change(record) }
        default:
            break
        }
    }

    /// Parameter updates, data length, PHY and encryption, read with the full event decoder.
    private mutating func change(_ record: CaptureRecord) {
        guard let event = try? HCIEventParameters.decode(record.bytes), let handle = event.handle,
            let id = openByHandle[handle]
        else { return }
        let kind: Connection.Change.Kind
        switch event {
        case .le(.connectionUpdateComplete(let update)):
            guard update.status == .success else { kind = .failed("connection update", update.status); break }
            kind = .parameters(
                interval: update.connectionInterval, latency: update.peripheralLatency,
                supervisionTimeout: update.supervisionTimeout)
            connections[id].interval = update.connectionInterval
            connections[id].latency = update.peripheralLatency
            connections[id].supervisionTimeout = update.supervisionTimeout
        case .le(.dataLengthChange(let change)):
            kind = .dataLength(maxTxOctets: change.maxTxOctets, maxRxOctets: change.maxRxOctets)
        case .le(.phyUpdateComplete(let status, _, let tx, let rx)):
            kind = status == .success ? .phy(tx: tx.rawValue, rx: rx.rawValue) : .failed("PHY update", status)
        case .encryptionChange(let change):
            kind = change.status == .success
                ? .encryption(enabled: change.isEncrypted, keySize: change.keySize) : .failed("encryption", change.status)
        case .encryptionKeyRefreshComplete(let status, _):
            kind = status == .success ? .keyRefresh : .failed("key refresh", status)
        default:
            return
        }
        connections[id].changes.append(Connection.Change(time: record.timestamp, record: record.index, kind: kind))
    }

    /// Discovery, subscriptions and Service Changed, from an ATT PDU and the request it answers.
    private mutating func follow(_ pdu: ATTPDU, on id: Int, handle: UInt16, _ record: CaptureRecord) {
        if let kind = Self.procedure(pdu.opcode, type: Self.requestedType(pdu)) {
            if let index = connections[id].discoveryProcedures.lastIndex(where: { $0.kind == kind }) {
                connections[id].discoveryProcedures[index].requests += 1
            } else {
                connections[id].discoveryProcedures.append(
                    Connection.DiscoveryProcedure(kind: kind, start: record.timestamp, end: record.timestamp, requests: 1))
            }
        }
        answered(on: id, record)
        let cccd = BluetoothUUID(UInt16(0x2902))
        switch pdu {
        case .writeRequest(let attribute, let value) where att.attribute(attribute, on: handle)?.uuid == cccd && value.count >= 1:
            pendingSubscription[id] = (attribute, UInt16(value[0]) | (value.count > 1 ? UInt16(value[1]) << 8 : 0), record.index)
        case .writeResponse:
            guard let write = pendingSubscription.removeValue(forKey: id) else { break }
            let mode: Connection.Subscription.Mode =
                switch write.value & 0x3 {
                case 1: .notify
                case 2: .indicate
                case 3: .both
                default: .off
                }
            // The characteristic is the nearest value handle below its descriptor.
            var owner: (UInt16, BluetoothUUID)?
            var candidate = write.handle
            while owner == nil, candidate > 1, write.handle - candidate < 32 {
                candidate -= 1
                if let info = att.attribute(candidate, on: handle), info.role == .characteristicValue { owner = (candidate, info.uuid) }
            }
            connections[id].subscriptions.append(
                Connection.Subscription(
                    time: record.timestamp, record: write.record, descriptorHandle: write.handle,
                    characteristicHandle: owner?.0, uuid: owner?.1, mode: mode))
        case .errorResponse:
            if lastAnswered?.opcode == .writeRequest { pendingSubscription[id] = nil }
        default:
            break
        }
    }

    /// A response ends, for now, the discovery procedure its request belongs to.
    private mutating func answered(on id: Int, _ record: CaptureRecord) {
        if let request = lastAnswered, let kind = Self.procedure(request.opcode, type: request.type),
            let index = connections[id].discoveryProcedures.lastIndex(where: { $0.kind == kind })
        {
            connections[id].discoveryProcedures[index].end = record.timestamp
        }
    }

    static let serviceChanged = BluetoothUUID(UInt16(0x2A05))

    /// Which discovery procedure a request belongs to: services (Read By Group Type, Find By Type
    /// Value), characteristics (Read By Type of 0x2803), descriptors (Find Information).
    static func procedure(_ opcode: ATTOpcode, type: BluetoothUUID?) -> Connection.DiscoveryProcedure.Kind? {
        switch opcode {
        case .readByGroupTypeRequest, .findByTypeValueRequest: .services
        case .readByTypeRequest where type == CharacteristicDeclaration.type: .characteristics
        case .findInformationRequest: .descriptors
        default: nil
        }
    }

    static func requestedType(_ pdu: ATTPDU) -> BluetoothUUID? {
        if case .readByTypeRequest(_, _, let type) = pdu { return type.uuid }
        return nil
    }

    private mutating func complete(_ id: Int, status: HCIStatus, _ record: CaptureRecord) {
        connections[id].completeTime = record.timestamp
        connections[id].completeRecord = record.index
        connections[id].status = status
        let cancelled = connections[id].cancelTime != nil && status == .unknownConnectionIdentifier
        // CoreBluetooth makes LE connections only: a BR/EDR attempt has no equivalent there.
        if status != .success, !cancelled, connections[id].transport == .le {
            let mapped = CoreBluetoothMapping.connectionFailureError(status: status)
            connections[id].cbError = Mapped(value: mapped.value, evidence: mapped.evidence)
        }
    }

    /// The open connection on `handle`, or a new one that began before the capture did.
    @inline(__always)
    private mutating func connection(forTrafficOn handle: UInt16, _ record: CaptureRecord) -> Int {
        if let id = openByHandle[handle] { return id }
        return connectionBeforeCapture(on: handle)
    }

    @inline(never)
    private mutating func connectionBeforeCapture(on handle: UInt16) -> Int {
        var connection = Connection(id: connections.count)
        connection.handle = handle
        connection.beganBeforeCapture = true
        connections.append(connection)
        openByHandle[handle] = connection.id
        return connection.id
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

extension Connection {
    /// Counts an ATT PDU of this connection by its kind.
    fileprivate mutating func count(_ opcode: ATTOpcode) {
        switch opcode.method {
        case .request: attRequests += 1
        case .notification: attNotifications += 1
        case .indication: attIndications += 1
        default: break
        }
        if opcode == .errorResponse { attErrors += 1 }
        switch opcode {
        case .readRequest, .readBlobRequest, .readMultipleRequest, .readMultipleVariableRequest:
            attReads += 1
        case .writeRequest, .prepareWriteRequest:
            attWrites += 1
        case .writeCommand, .signedWriteCommand:
            attWriteCommands += 1
        default: break
        }
    }

    /// An ATT PDU of `length` bytes: counted, its bytes added, and the MTU the tracker knows kept.
    @inline(__always)
    fileprivate mutating func count(_ opcode: ATTOpcode, length: Int, mtu: UInt16?) {
        count(opcode)
        attBytes += length
        if let mtu { self.mtu = mtu }
    }
}
