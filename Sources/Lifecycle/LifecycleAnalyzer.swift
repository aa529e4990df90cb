import ATT
import AndroidCodes
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
    /// An LE Create Connection Cancel sent when the capture showed no attempt (one that began
    /// before the capture), until the completion that ends that attempt.
    private var cancelBeforeAttempt: Timestamp?
    private var openByHandle = HandleTable<Int>()
    /// Handles the host asked to disconnect (HCI Disconnect sent, not yet completed): when, and
    /// in which record.
    private var disconnectRequested: [UInt16: (time: Timestamp, record: Int)] = [:]
    /// The connection that ended last on each handle, until another opens on it: a repeat of its
    /// Disconnection Complete is folded into it.
    private var closedByHandle = HandleTable<Int>()
    /// Disconnection Complete events for handles with no link.
    private var strays = StrayDisconnections()
    /// Requests, answers, MTU and attributes per connection handle.
    package private(set) var att = ATTTracker()
    /// The request the last record answered, if it carried an ATT response.
    public private(set) var lastAnswered: ATTRequest?
    /// When the last record refused a write of a Client Characteristic Configuration descriptor
    /// of the peer's server: the value written, and whether this host's client was subscribed
    /// there on this connection (a write turning off what is already off is one iOS never sends).
    public var lastRefusedSubscription: RefusedSubscription? { subscriptions.lastRefused }
    /// A refused write of a Client Characteristic Configuration descriptor.
    public struct RefusedSubscription: Hashable, Sendable {
        /// The value written (bit 0 notifications, bit 1 indications).
        public var value: UInt16
        public var wasSubscribed: Bool
    }
    /// The attribute range the last record, a Service Changed indication from the peer, declared
    /// changed (Core 6.0, Vol 3, Part G, §7.1).
    public private(set) var lastServiceChange: ClosedRange<UInt16>?
    /// Scans and advertising sets.
    package private(set) var scanning = ScanCollector()
    /// The last name each device advertised, by address (Complete or Shortened Local Name), over
    /// the capture's scans so far.
    public var names: [BluetoothAddress: String] { scanning.names }
    /// What discovery found per peer, for its next connection, and the database the user gave.
    private var attributes = AttributeCache()
    /// The peer's server as the user gave it (`--gatt`, ``GivenGATT``), for a connection whose
    /// peer the capture never discovered: its subscriptions are then named.
    public var given: GivenGATT? {
        get { attributes.given }
        set { attributes.given = newValue }
    }
    /// Client Characteristic Configuration writes, until they take effect.
    private var subscriptions = SubscriptionTracker()
    /// Pairings under way, refusals for security, and where each peer last paired.
    private var pairing = PairingTracker()
    private var firstTime: Timestamp?
    private var lastTime: Timestamp?
    private var records = 0
    /// An over-the-air capture's links, by the handle the analyses know each by, and its own
    /// count and times (``attach(_:)``).
    private var airLinks: [UInt16: AirLink] = [:]
    private var air: AirCapture?

    public init() {}

    /// Gives the report what an over-the-air capture showed (``AnalysisReader/airCapture``): each
    /// link's air facts on the connection made from it, and the capture's own records and times
    /// in place of those of the HCI records made from it. Nil (an HCI trace) changes nothing.
    package mutating func attach(_ air: AirCapture?) {
        guard let air else { return }
        self.air = air
        for link in air.links { airLinks[UInt16(link.index & 0x0FFF)] = link }
    }

    /// The lifecycles so far; connections still open report the requests still unanswered.
    public var report: LifecycleReport {
        var connections = connections
        for handle in openByHandle.handles {
            connections[openByHandle[handle]!].unansweredRequests = att.unanswered(on: handle)
        }
        if !airLinks.isEmpty {
            for index in connections.indices {
                if let handle = connections[index].handle { connections[index].air = airLinks[handle] }
            }
        }
        if !scanning.names.isEmpty {
            for index in connections.indices {
                if let peer = connections[index].peer { connections[index].peerName = scanning.names[peer] }
            }
        }
        return LifecycleReport(
            connections: connections, firstTime: air?.firstTime ?? firstTime, lastTime: air?.lastTime ?? lastTime,
            records: air?.records ?? records,
            scans: scanning.scans, advertising: scanning.advertising, strayDisconnections: strays.all)
    }

    /// The connection open on `handle` now.
    public func openConnection(on handle: UInt16) -> Connection? {
        openByHandle[handle].map { connections[$0] }
    }

    /// What a collector that follows every ATT PDU reads of a connection: its id, peer, role and
    /// MTU, as they are now.
    public struct OpenLink: Hashable, Sendable {
        public var id: Int
        public var peer: BluetoothAddress?
        public var role: Connection.Role?
        public var mtu: UInt16?
    }

    /// The ``OpenLink`` of the connection open on `handle` now, read in place: where
    /// ``openConnection(on:)`` copies the whole connection, its arrays retained, for each call.
    public func openLink(on handle: UInt16) -> OpenLink? {
        guard let id = openByHandle[handle] else { return nil }
        return OpenLink(id: id, peer: connections[id].peer, role: connections[id].role, mtu: connections[id].mtu)
    }

    /// Whether the connection open on `handle` now had encryption turned on by a record after
    /// `start` and before `end` (its changes read in place, with no copy of the connection).
    @inline(__always)
    func encryptionTurnedOn(on handle: UInt16, after start: Int, before end: Int) -> Bool {
        guard let id = openByHandle[handle] else { return false }
        return connections[id].changes.contains { change in
            guard case .encryption(true, _) = change.kind else { return false }
            return change.record > start && change.record < end
        }
    }

    /// The ``Connection/id`` of the connection open on `handle` now (no copy of the connection).
    @inline(__always)
    public func connectionID(on handle: UInt16) -> Int? { openByHandle[handle] }

    public mutating func add(_ record: CaptureRecord, _ decoded: DecodedRecord) {
        addWhole(record, decoded)
    }

    /// ``add(_:_:)`` with the record passed by address (inout, never changed), as
    /// ``CaptureAnalyzer`` passes it: passed by value from a field of a struct being changed,
    /// Swift copied it (232 bytes, its references retained) for each record decoded whole.
    mutating func add(_ record: CaptureRecord, _ decoded: inout DecodedRecord) {
        addWhole(record, decoded)
    }

    @inline(__always)
    private mutating func addWhole(_ record: CaptureRecord, _ decoded: DecodedRecord) {
        begin(record)
        scanning.add(record, decoded)
        switch decoded.packet {
        case .command(let command):
            handle(command, record)
        case .event(let event):
            handle(event, record)
        case .acl(let acl) where acl.handle != ACLPacket.androidDebugHandle:
            let id = connection(forTrafficOn: acl.handle, record)
            if let channel = decoded.l2cap?.channel { learnTransport(on: id, channel: channel.rawValue) }
            if let pdu = decoded.att {
                traffic(pdu, length: decoded.l2cap?.payload.count ?? 0, on: id, handle: acl.handle, record)
            } else if let smp = decoded.smp {
                pairing.observe(smp, on: id, peer: connections[id].peer, pairings: &connections[id].pairings, record)
            }
        default:
            break
        }
    }

    /// Adds a record in its quick form (``TraceDecoder/decode(_:into:)``), with the same effect as
    /// its full decoding: a fragment or an ATT PDU on a handle no connection is open on begins
    /// one that was open before the capture, and an ATT PDU is followed as any other; a raw event
    /// is read only where it changes a connection (`change(_:)`). No scan or advertising record
    /// is quick.
    @inline(__always)
    public mutating func add(_ quick: QuickRecord, _ record: CaptureRecord) {
        switch quick {
        case .fragment(let handle): _ = addFragment(on: handle, record)
        case .att(let handle, let opcode, let attribute, let length):
            _ = addATT(handle, opcode, attribute, length, record)
        case .event(let code): addEvent(code, record)
        }
    }

    /// ``add(_:_:)`` of a quick ``QuickRecord/fragment(connection:)``; returns the id of the
    /// connection it belongs to, for ``CaptureAnalyzer`` to hand to the other collectors (one
    /// look-up of the handle a record).
    @inline(__always)
    mutating func addFragment(on handle: UInt16, _ record: CaptureRecord) -> Int {
        begin(record)
        return connection(forTrafficOn: handle, record)
    }

    /// ``add(_:_:)`` of a quick ``QuickRecord/att(connection:opcode:attribute:length:)``; returns
    /// the id of the connection it belongs to.
    @inline(__always)
    mutating func addATT(
        _ handle: UInt16, _ opcode: ATTOpcode, _ attribute: UInt16, _ length: Int, _ record: CaptureRecord
    ) -> Int {
        begin(record)
        // As ``traffic(_:length:on:handle:_:)`` follows these PDUs: a read is paired with its
        // answer, and none of them belongs to a discovery procedure, makes a subscription or
        // is a Service Changed indication.
        let id = connection(forTrafficOn: handle, record)
        connections[id].countQuick(opcode, length: length, mtu: att.mtu(on: handle))
        if opcode == .readRequest || opcode == .readResponse { addRead(handle, opcode, attribute, on: id, record) }
        return id
    }

    /// A quick Read Request or Read Response: paired with its answer or request. (Out of line:
    /// most quick records are notifications and write commands.)
    @inline(never)
    private mutating func addRead(
        _ handle: UInt16, _ opcode: ATTOpcode, _ attribute: UInt16, on id: Int, _ record: CaptureRecord
    ) {
        lastAnswered = att.observeRead(
            opcode, attribute: attribute, connection: handle, direction: record.direction,
            time: record.timestamp, record: record.index)
        // (A damaged capture may pair a Read Response with a discovery request.)
        if lastAnswered != nil { answered(on: id, record) }
    }

    /// ``add(_:_:)`` of a quick ``QuickRecord/event(_:)``.
    @inline(__always)
    mutating func addEvent(_ code: HCIEventCode, _ record: CaptureRecord) {
        begin(record)
        if Self.changesConnection(code) { change(record) }
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
        // nothing and belong to no procedure: nothing more to do, but for a Write Command to a
        // Client Characteristic Configuration descriptor, which subscribes at once (a Write
        // Command of a value a CCCD takes is never quick: ``QuickRecord/att(connection:_:)``).
        if method == .notification { return }
        if method == .command {
            if case .writeCommand(let attribute, let value) = pdu, value.count == 2 {
                subscriptions.command(
                    attribute, value: UInt16(value[0]) | UInt16(value[1]) << 8,
                    server: GATTServer(method, direction: record.direction), on: &connections[id], handle: handle,
                    att: att, record)
            }
            return
        }
        // The server this PDU is about: the peer's (this host's client, the app) or this host's
        // own (the peer's client).
        let server = GATTServer(method, direction: record.direction)
        var localServiceChange: ClosedRange<UInt16>?
        if case .handleValueIndication(let attribute, let value) = pdu,
            value.count >= 4, att.attribute(attribute, on: handle, server: server)?.uuid == .serviceChanged
        {
            let start = UInt16(value[0]) | UInt16(value[1]) << 8
            let end = UInt16(value[2]) | UInt16(value[3]) << 8
            if server == .local {
                // This host's server told the peer its database changed: what the peer's
                // discovery found there no longer holds.
                if start <= end { localServiceChange = start...end }
            } else {
                if start <= end { lastServiceChange = start...end }
                connections[id].serviceChangedIndications += 1
            }
        }
        lastAnswered = att.observe(
            pdu, connection: handle, direction: record.direction, time: record.timestamp, record: record.index)
        if let mtu = att.mtu(on: handle) { connections[id].mtu = mtu }
        follow(pdu, server: server, on: id, handle: handle, record)
        if let range = localServiceChange {
            att.forget(range, on: handle, server: .local)
            if let peer = connections[id].peer { attributes.forget(range, of: peer, server: .local) }
        }
        if let range = lastServiceChange {
            // What discovery found there no longer holds, on this connection and for the
            // peer's next one.
            att.forget(range, on: handle)
            if let peer = connections[id].peer { attributes.forget(range, of: peer, server: .peer) }
            connections[id].changes.append(
                Connection.Change(
                    time: record.timestamp, record: record.index,
                    kind: .serviceChanged(start: range.lowerBound, end: range.upperBound)))
        }
    }

    /// What every record does first.
    @inline(__always)
    private mutating func begin(_ record: CaptureRecord) {
        lastAnswered = nil
        subscriptions.lastRefused = nil
        lastServiceChange = nil
        records += 1
        if firstTime == nil { firstTime = record.timestamp }
        lastTime = record.timestamp
    }

    /// The raw events `change(_:)` reads: Encryption Change (0x08), Encryption Key Refresh
    /// Complete (0x30), Encryption Change v2 (0x59); and the events of BR/EDR links only, which
    /// tell a link's transport: Read Remote Supported Features Complete (0x0B), Mode Change
    /// (0x14), Max Slots Change (0x1B), Connection Packet Type Changed (0x1D), Read Remote
    /// Extended Features Complete (0x23).
    static func changesConnection(_ code: HCIEventCode) -> Bool {
        // (A switch rather than a collection literal: this runs for every event, and a literal
        // collection would be built, on the heap, each time.)
        switch code.rawValue {
        case 0x08, 0x30, 0x59, 0x0B, 0x14, 0x1B, 0x1D, 0x23: true
        default: false
        }
    }

    /// A BR/EDR-only event's connection handle, if it is one and succeeded (Core 6.0, Vol 4,
    /// Part E, §7.7): Max Slots Change begins with the handle, the others with a status.
    static func classicEventHandle(_ bytes: UnsafeRawBufferPointer) -> UInt16? {
        guard bytes.count >= 2 else { return nil }
        let parameters = UnsafeRawBufferPointer(rebasing: bytes[2...])
        switch bytes[0] {
        case 0x1B:
            guard parameters.count >= 3 else { return nil }
            return (UInt16(parameters[0]) | UInt16(parameters[1]) << 8) & 0x0FFF
        case 0x0B, 0x14, 0x1D, 0x23:
            guard parameters.count >= 3, parameters[0] == 0 else { return nil }
            return (UInt16(parameters[1]) | UInt16(parameters[2]) << 8) & 0x0FFF
        default:
            return nil
        }
    }

    private mutating func handle(_ command: HCICommand, _ record: CaptureRecord) {
        switch command {
        case .leCreateConnection(let attempt), .leExtendedCreateConnection(let attempt):
            var connection = Connection(id: connections.count)
            connection.role = .central
            connection.attempt = Connection.Attempt(
                time: record.timestamp, record: record.index, usesFilterAcceptList: attempt.usesFilterAcceptList)
            if !attempt.usesFilterAcceptList {
                connection.peer = attempt.peerAddress
                connection.peerAddressType = attempt.peerAddressType
            }
            awaitingStatus = connection.id
            connections.append(connection)
        case .leCreateConnectionCancel:
            if let id = pendingAttempt ?? awaitingStatus {
                connections[id].cancelTime = record.timestamp
                // Android's stack cancels a direct connect after 30 s, and the app gets 133 (147).
                if connections[id].transport == .le, let attempt = connections[id].attempt?.time {
                    connections[id].android = AndroidMapping.cancelledAttempt(
                        after: record.timestamp.seconds(since: attempt))
                }
            } else {
                // An attempt that began before the capture: its completion (status 0x02) comes next.
                cancelBeforeAttempt = record.timestamp
            }
        case .disconnect(let handle, _):
            disconnectRequested[handle] = (record.timestamp, record.index)
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
                if event.role == 0, let cancel = cancelBeforeAttempt {
                    // The attempt this host cancelled began before the capture.
                    connection.cancelTime = cancel
                }
                connections.append(connection)
            }
            cancelBeforeAttempt = nil
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
                closedByHandle[event.handle] = nil
                strays.linkSeen(on: event.handle)
                att.reset(connection: event.handle)
                attributes.seed(&att, connection: event.handle, peer: event.peerAddress)
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
                closedByHandle[handle] = nil
                strays.linkSeen(on: handle)
            }
            complete(connection.id, status: status, record)
        case .disconnectionComplete(let status, let handle, let reason) where status == .success:
            let request = disconnectRequested.removeValue(forKey: handle)
            guard let id = openByHandle[handle] else {
                // No link is open on the handle: a controller repeating the event of the link that
                // just ended there, or the end of a link the capture never showed.
                if let id = closedByHandle[handle], connections[id].disconnection?.reason == reason {
                    connections[id].disconnection?.repeats += 1
                } else {
                    closedByHandle[handle] = nil
                    strays.add(on: handle, reason: reason, record)
                }
                break
            }
            let local = request != nil || reason == .connectionTerminatedByLocalHost
            connections[id].disconnection = Connection.Disconnection(
                time: record.timestamp, record: record.index, reason: reason, initiator: local ? .local : .remote,
                request: request.map { Connection.Disconnection.Request(time: $0.time, record: $0.record) })
            // This host ending its links as its Bluetooth goes off: iOS tells apps through the
            // state only, with no didDisconnectPeripheral (Formats/corebluetooth.md).
            // A peripheral manager has no disconnection callback at all (a subscribed central's
            // didUnsubscribeFrom is all it hears).
            // CoreBluetooth makes LE links only: a BR/EDR link, or one of no known transport, has no
            // equivalent.
            let appTold =
                !((local && reason == .remoteDeviceTerminatedPowerOff) || connections[id].role == .peripheral
                || connections[id].transport != .le)
            connections[id].cbError =
                appTold ? CoreBluetoothMapping.disconnectionError(reason: reason, requestedByApp: local) : nil
            if connections[id].failedEstablishment != nil {
                // Lost before its first exchange: as a failed establishment (EstablishmentFailure).
                connections[id].cbError = EstablishmentFailure.default.error.map {
                    Mapped(value: .cb($0.value), evidence: $0.evidence)
                }
            }
            connections[id].android =
                appTold ? AndroidMapping.disconnection(reason: reason, requestedByApp: local) : nil
            connections[id].unansweredRequests = att.unanswered(on: handle)
            if let peer = connections[id].peer { attributes.keep(att, connection: handle, peer: peer) }
            subscriptions.ended(connection: id)
            openByHandle[handle] = nil
            closedByHandle[handle] = id
            strays.linkSeen(on: handle)
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
        if let handle = Self.classicEventHandle(record.bytes) {
            if let id = openByHandle[handle] {
                if connections[id].transport == .unknown { connections[id].transport = .classic }
            } else {
                _ = connectionBeforeCapture(on: handle, transport: .classic)
            }
            return
        }
        guard let event = try? HCIEventParameters.decode(record.bytes), let handle = event.handle else { return }
        guard let id = openByHandle[handle] ?? linkBeforeCapture(shownBy: event, on: handle) else { return }
        let kind: Connection.Change.Kind
        switch event {
        case .le(.connectionUpdateComplete(let update)):
            guard update.status == .success else { kind = .failed("connection update", update.status); break }
            kind = .parameters(
                interval: update.connectionInterval, latency: update.peripheralLatency,
                supervisionTimeout: update.supervisionTimeout)
        case .le(.dataLengthChange(let change)):
            kind = .dataLength(maxTxOctets: change.maxTxOctets, maxRxOctets: change.maxRxOctets)
        case .le(.phyUpdateComplete(let status, _, let tx, let rx)):
            kind = status == .success ? .phy(tx: tx.rawValue, rx: rx.rawValue) : .failed("PHY update", status)
        case .encryptionChange(let change):
            kind =
                change.status == .success
                ? .encryption(enabled: change.isEncrypted, keySize: change.keySize)
                : .failed("encryption", change.status)
            if change.status == .success, change.isEncrypted {
                PairingTracker.encrypted(&connections[id].pairings, record)
            }
        case .encryptionKeyRefreshComplete(let status, _):
            kind = status == .success ? .keyRefresh : .failed("key refresh", status)
        default:
            return
        }
        connections[id].changes.append(Connection.Change(time: record.timestamp, record: record.index, kind: kind))
    }

    /// Discovery and subscriptions, from an ATT PDU of `server` and the request it answers.
    /// Discovery counts only where this host's client discovers the peer's server (what the app
    /// does); subscriptions go to the app's (the peer's server) or to the peer's (this host's
    /// server, ``Connection/peerSubscriptions``).
    private mutating func follow(_ pdu: ATTPDU, server: GATTServer, on id: Int, handle: UInt16, _ record: CaptureRecord)
    {
        if server == .peer, let kind = Self.procedure(pdu.opcode, type: Self.requestedType(pdu)) {
            if let index = continuedProcedure(kind, pdu, on: id) {
                connections[id].discoveryProcedures[index].requests += 1
            } else {
                connections[id].discoveryProcedures.append(
                    Connection.DiscoveryProcedure(
                        kind: kind, start: record.timestamp, end: record.timestamp, requests: 1, record: record.index))
            }
        }
        answered(on: id, record)
        subscriptions.observe(
            pdu, server: server, answering: lastAnswered, on: &connections[id], handle: handle, att: att, record)
        if server == .peer, case .errorResponse(_, _, let code) = pdu, SecurityRefusal.asksForSecurity(code) {
            pairing.refusedForSecurity(on: id, record: record.index)
        }
    }

    /// The procedure the discovery request `pdu` of `kind` continues, if any. A discovery of all
    /// primary services from the first handle begins a new discovery (a client that discovers
    /// again, as Android does after pairing or a Service Changed, starts over); characteristic and
    /// descriptor discovery continue the procedure of their kind of the same discovery.
    private func continuedProcedure(_ kind: Connection.DiscoveryProcedure.Kind, _ pdu: ATTPDU, on id: Int) -> Int? {
        let procedures = connections[id].discoveryProcedures
        guard let index = procedures.lastIndex(where: { $0.kind == kind }) else { return nil }
        if kind == .services {
            if case .readByGroupTypeRequest(0x0001, _, _) = pdu { return nil }
            return index
        }
        let lastServices = procedures.lastIndex { $0.kind == .services } ?? -1
        return index > lastServices ? index : nil
    }

    /// A response ends, for now, the discovery procedure its request belongs to.
    private mutating func answered(on id: Int, _ record: CaptureRecord) {
        if let request = lastAnswered, request.server == .peer,
            let kind = Self.procedure(request.opcode, type: request.type),
            let index = connections[id].discoveryProcedures.lastIndex(where: { $0.kind == kind })
        {
            connections[id].discoveryProcedures[index].end = record.timestamp
        }
    }

    /// Which discovery procedure a request belongs to (Core 6.0, Vol 3, Part G, §4.4-§4.7):
    /// services (Read By Group Type of «Primary Service», Find By Type Value), secondary services
    /// (Read By Group Type of «Secondary Service»), included services (Read By Type of «Include»),
    /// characteristics (Read By Type of 0x2803), descriptors (Find Information).
    static func procedure(_ opcode: ATTOpcode, type: BluetoothUUID?) -> Connection.DiscoveryProcedure.Kind? {
        switch opcode {
        case .readByGroupTypeRequest where type == .secondaryService: .secondaryServices
        case .readByGroupTypeRequest, .findByTypeValueRequest: .services
        case .readByTypeRequest where type == .characteristicDeclaration: .characteristics
        case .readByTypeRequest where type == .includedService: .includedServices
        case .findInformationRequest: .descriptors
        default: nil
        }
    }

    static func requestedType(_ pdu: ATTPDU) -> BluetoothUUID? {
        switch pdu {
        case .readByTypeRequest(_, _, let type), .readByGroupTypeRequest(_, _, let type): type.uuid
        default: nil
        }
    }

    private mutating func complete(_ id: Int, status: HCIStatus, _ record: CaptureRecord) {
        connections[id].completion = Connection.Completion(time: record.timestamp, record: record.index, status: status)
        let cancelled = connections[id].cancelTime != nil && status == .unknownConnectionIdentifier
        // CoreBluetooth makes LE connections only: a BR/EDR attempt has no equivalent there.
        if status != .success, !cancelled, connections[id].transport == .le {
            // A failed establishment (0x3E) tells the app what the default reading says: by
            // default nothing, as the replay plays it (EstablishmentFailure).
            let mapped =
                status == .connectionFailedToBeEstablished
                ? EstablishmentFailure.default.error : CoreBluetoothMapping.connectionFailureError(status: status)
            connections[id].cbError = mapped.map { Mapped(value: .cb($0.value), evidence: $0.evidence) }
            connections[id].android = AndroidMapping.connectionFailure(status: status)
        } else if status == .success {
            // Connected after all (a cancel that came too late): no failure.
            connections[id].android = nil
        }
    }

    /// The open connection on `handle`, or a new one that began before the capture did.
    @inline(__always)
    private mutating func connection(forTrafficOn handle: UInt16, _ record: CaptureRecord) -> Int {
        if let id = openByHandle[handle] { return id }
        return connectionBeforeCapture(on: handle)
    }

    @inline(never)
    private mutating func connectionBeforeCapture(on handle: UInt16, transport: Connection.Transport = .unknown) -> Int
    {
        var connection = Connection(id: connections.count)
        connection.handle = handle
        connection.transport = transport
        connection.beganBeforeCapture = true
        connections.append(connection)
        attributes.seedBeforeCapture(&att, connection: handle)
        openByHandle[handle] = connection.id
        closedByHandle[handle] = nil
        strays.linkSeen(on: handle)
        return connection.id
    }

    /// A link that began before the capture, first shown by a successful `event` about it (an
    /// update, a data length or PHY change, encryption): LE for LE events, of no known transport
    /// for the others. A failed one (often Unknown Connection Identifier) shows no link.
    private mutating func linkBeforeCapture(shownBy event: HCIEventParameters, on handle: UInt16) -> Int? {
        guard event.status == nil || event.status == .success else { return nil }
        let transport: Connection.Transport
        if case .le = event { transport = .le } else { transport = .unknown }
        return connectionBeforeCapture(on: handle, transport: transport)
    }

    /// The transport an ACL record's L2CAP channel belongs to: LE's fixed channels (ATT 0x0004,
    /// LE signalling 0x0005, SMP 0x0006; Core 6.0, Vol 3, Part A, §2.1) or BR/EDR's (signalling
    /// 0x0001, BR/EDR SMP 0x0007, connectionless 0x0002).
    static func transport(ofChannel channel: UInt16) -> Connection.Transport? {
        switch channel {
        case 0x0004, 0x0005, 0x0006: .le
        case 0x0001, 0x0002, 0x0007: .classic
        default: nil
        }
    }

    /// Gives a link whose transport is not known yet the transport of a channel it carried.
    @inline(__always)
    private mutating func learnTransport(on id: Int, channel: UInt16) {
        guard connections[id].transport == .unknown, let transport = Self.transport(ofChannel: channel) else { return }
        connections[id].transport = transport
    }
}

extension LifecycleAnalyzer {
    /// Reads a whole capture and returns its lifecycles, and the fault that stopped the reading
    /// if the file is damaged (every record before it is included).
    public static func analyze(path: String) throws -> (LifecycleReport, fault: (any Error)?) {
        var pass = try AnalysisPass(path: path, analysis: CaptureAnalyzer(diagnosing: false))
        pass.run()
        return (pass.analysis.lifecycle.report, pass.fault)
    }
}

extension Connection {
    /// Counts an ATT PDU of this connection by its kind. (Inlined: it runs for every ATT PDU.)
    @inline(__always)
    fileprivate mutating func count(_ opcode: ATTOpcode) {
        switch opcode.method {
        case .request: att.requests += 1
        case .notification: att.notifications += 1
        case .indication: att.indications += 1
        default: break
        }
        if opcode == .errorResponse { att.errors += 1 }
        switch opcode {
        case .readRequest, .readBlobRequest, .readMultipleRequest, .readMultipleVariableRequest:
            att.reads += 1
        case .writeRequest, .prepareWriteRequest:
            att.writes += 1
        case .writeCommand, .signedWriteCommand:
            att.writeCommands += 1
        default: break
        }
    }

    /// ``count(_:length:mtu:)`` of a quick record's PDU (``QuickRecord/att(connection:opcode:attribute:length:)``):
    /// its four opcodes counted as ``count(_:)`` counts them, with no look-up of their method,
    /// for the commonest records of a capture.
    @inline(__always)
    fileprivate mutating func countQuick(_ opcode: ATTOpcode, length: Int, mtu: UInt16?) {
        switch opcode.rawValue {
        case 0x1B: att.notifications += 1  // Handle Value Notification
        case 0x52: att.writeCommands += 1  // Write Command
        case 0x0A:  // Read Request
            att.requests += 1
            att.reads += 1
        case 0x0B: break  // Read Response: its bytes only
        default: count(opcode)
        }
        att.bytes += length
        if let mtu { self.mtu = mtu }
        // ATT's fixed channel is LE's: a link seen first in the middle tells its transport so.
        if transport == .unknown { transport = .le }
    }

    /// An ATT PDU of `length` bytes: counted, its bytes added, and the MTU the tracker knows kept.
    @inline(__always)
    fileprivate mutating func count(_ opcode: ATTOpcode, length: Int, mtu: UInt16?) {
        count(opcode)
        att.bytes += length
        if let mtu { self.mtu = mtu }
    }
}
