import ATT
import HCI
import Lifecycle
import TraceFiles
import Wire

/// Builds a ``Cassette`` from a capture's records, one record at a time, in the same pass as the
/// lifecycle analysis: each record is decoded once (`TraceDecoder`), given to the
/// `LifecycleAnalyzer` and the `GATTCollector`, and then to the recorder, which keeps what
/// playback needs: the request's parameters, the answer's value, the time between them (each
/// answer paired with its request by ATT's `ATTTransactions`, as the analyzer's tracker pairs
/// them).
///
/// Memory grows with what must be kept (reports, exchanges, notifications, connections), not with
/// the records that carry nothing to play back; the state kept between records is bounded by the
/// connection handles in use.
package struct CassetteRecorder {
    /// The analysis of the records so far (its `LifecycleAnalyzer.report` is the lifecycle
    /// report of the same pass).
    package private(set) var analyzer = LifecycleAnalyzer()
    package private(set) var gatt = GATTCollector()
    private var decoder = TraceDecoder()

    private var links: [Cassette.Link] = []
    private var linkByConnection: [Int: Int] = [:]
    private var peers: [BluetoothAddress: Cassette.Peer] = [:]
    private var peerOrder: [BluetoothAddress] = []
    /// Per peer, the index of each distinct advertising payload.
    private var payloads: [BluetoothAddress: [[UInt8]: Int]] = [:]

    /// Where a request (or indication) waiting for its answer went in the cassette.
    private struct Pending {
        var link: Int
        var exchange: Int
        var operation: Int?
    }
    /// Per link, the requests and indications waiting for their answers.
    private var transactions: [Int: ATTTransactions<Pending>] = [:]
    /// Per link, the long read that a Read Blob may continue and the prepared write an Execute
    /// Write ends.
    private var openRead: [Int: Int] = [:]
    private var openWrite: [Int: Int] = [:]
    /// The controller's LE ACL buffers and completed packets (``transmitBuffers(_:)``).
    private var controllerBuffers: Cassette.ControllerBuffers?
    private var completions: [Int: [Cassette.Completion]] = [:]

    package init() {}

    /// Two records further apart in time than this, either way, mean a damaged clock (a
    /// timestamp field hit by corruption can put a record 150,000 years away): the cassette ends
    /// with the record before, so that no replay has to play the app's timers across the gap.
    package static let maximumClockGapSeconds = 86_400.0
    /// Where the capture's clock jumped, if it did: the records from there on are left out.
    package private(set) var clockJump: Cassette.ClockJump?
    /// The time of the capture's first record, whatever it holds (``Cassette/origin``).
    private var origin: Timestamp?
    private var lastTime: Timestamp?
    /// The capture shows the controller scanning or connecting with extended advertising
    /// (``Cassette/extendedScanAndConnect``).
    private var extendedScanAndConnect = false
    /// LE Set Extended Scan Parameters, LE Set Extended Scan Enable, LE Extended Create Connection.
    private static let extendedCommands: Set<UInt16> = [0x2041, 0x2042, 0x2043]

    /// Decodes `record` and adds it.
    package mutating func add(_ record: CaptureRecord) {
        if origin == nil { origin = record.timestamp }
        guard record.kind != .other, keepsTime(of: record) else { return }
        keep(record, decoder.decode(record))
    }

    /// Adds a record decoded by the caller's `TraceDecoder` (one decoder for the whole capture).
    /// Records that carry no HCI packet (PacketLogger's notes and configuration records) have
    /// nothing to play and are left out: iOS writes its header notes days before the traffic, and
    /// the cassette's clock is the traffic's.
    package mutating func add(_ record: CaptureRecord, _ decoded: DecodedRecord) {
        if origin == nil { origin = record.timestamp }
        guard record.kind != .other, keepsTime(of: record) else { return }
        keep(record, decoded)
    }

    /// Hands a record within the capture's clock to the analysis and keeps what playback needs.
    private mutating func keep(_ record: CaptureRecord, _ decoded: DecodedRecord) {
        analyzer.add(record, decoded)
        gatt.add(record, decoded, analyzer: analyzer)
        switch decoded.packet {
        case .event(.le(.unknown(let subevent, _))) where subevent.rawValue == 0x02 || subevent.rawValue == 0x0D:
            // An extended advertising report: the controller scans with extended advertising.
            if subevent.rawValue == 0x0D { extendedScanAndConnect = true }
            advertisingReports(record)
        case .command(let command) where Self.extendedCommands.contains(command.opcode.rawValue):
            extendedScanAndConnect = true
        case .event(.commandComplete(_, let opcode, let parameters))
        where opcode.rawValue == 0x2003 && parameters.count >= 9:
            // LE Read Local Supported Features: status, then the LE features; bit 12 is LE
            // Extended Advertising (Core 6.0, Vol 6, Part B, §4.6).
            if parameters[0] == 0 { extendedScanAndConnect = extendedScanAndConnect || parameters[1 + 1] & 0x10 != 0 }
        case .event(.le(.connectionComplete(let event))) where event.status == .success:
            notePeer(event.peerAddress, type: event.peerAddressType)
        case .acl(let acl) where acl.handle != ACLPacket.androidDebugHandle:
            guard decoded.att != nil || decoded.smp != nil, let connection = analyzer.openLink(on: acl.handle)
            else { return }
            let side: Cassette.Exchange.Side =
                switch record.direction {
                case .sent: .host
                case .received: .peer
                case nil: .unknown
                }
            let link = link(
                for: connection, side: side, isRequest: decoded.att.map { $0.opcode.method == .request } ?? false)
            if let pdu = decoded.att {
                observe(pdu, on: acl.handle, link: link, connection: connection, side: side, record)
            }
            if let smp = decoded.smp {
                let kind: Cassette.SecurityEvent.Kind? =
                    switch smp.code {
                    case .pairingRequest: .pairingRequested
                    case .securityRequest: .securityRequested
                    case .pairingFailed: smp.pairingFailedReason.map { .pairingFailed(reason: $0.rawValue) }
                    case let code where SecurityRefusal.isPairingMessage(code): .pairingProgressed
                    default: nil
                    }
                if let kind {
                    links[link].security.append(
                        Cassette.SecurityEvent(time: record.timestamp, record: record.index, sender: side, kind: kind))
                }
            }
        case .event where record.bytes.first == 0x13 || record.bytes.first == 0x0E:
            transmitBuffers(record)
        default:
            break
        }
    }

    /// The controller's LE ACL buffers (LE Read Buffer Size) and the packets it completed on
    /// each connection (Number Of Completed Packets): what the replay's flow control plays.
    private mutating func transmitBuffers(_ record: CaptureRecord) {
        switch try? HCIEventParameters.decode(record.bytes) {
        case .numberOfCompletedPackets(let list)?:
            for (handle, count) in list where count > 0 {
                guard let link = analyzer.openLink(on: handle) else { continue }
                completions[link.id, default: []].append(
                    Cassette.Completion(time: record.timestamp, packets: Int(count)))
            }
        case .commandComplete(let complete)?:
            guard case .leReadBufferSize(let size) = complete.returnParameters, size.status == .success,
                size.totalNumLEACLDataPackets > 0, size.leACLDataPacketLength > 0
            else { return }
            controllerBuffers = Cassette.ControllerBuffers(
                packets: Int(size.totalNumLEACLDataPackets), length: Int(size.leACLDataPacketLength))
        default:
            break
        }
    }

    /// The cassette of the records added so far.
    package func cassette() -> Cassette {
        let report = analyzer.report
        // A connection that began before the capture has no peer address in it: it plays as a
        // stand-in peer named by its connection handle (Formats/cassette.md).
        var connections = report.connections
        for index in connections.indices
        where connections[index].peer == nil && connections[index].beganBeforeCapture
            && connections[index].transport == .le
        {
            connections[index].peer = Cassette.standInAddress(handle: connections[index].handle ?? 0)
        }
        var links = links
        var linkByConnection = linkByConnection
        var peers = peers
        var peerOrder = peerOrder
        // Encryption changes live in the connection episodes; a link is made for a connection
        // that changed encryption without ATT or SMP traffic.
        for connection in connections where connection.changes.contains(where: Self.isSecurity) {
            if linkByConnection[connection.id] == nil {
                linkByConnection[connection.id] = links.count
                links.append(
                    Cassette.Link(
                        connection: connection.id, peer: connection.peer, hostRole: Self.role(connection.role)))
            }
        }
        // Both servers of each peer's links: the peer's, and this host's as the peer discovered it.
        var entryByConnection: [Int: GATTCollector.Entry] = [:]
        var entryByPeer: [BluetoothAddress: GATTCollector.Entry] = [:]
        for entry in gatt.entries {
            for id in entry.connections { entryByConnection[id] = entry }
            if let peer = entry.peer { entryByPeer[peer] = entry }
        }
        for index in links.indices {
            let connection = connections[links[index].connection]
            links[index].peer = connection.peer
            links[index].database = entryByConnection[connection.id]?.database
            links[index].localDatabase = entryByConnection[connection.id]?.localDatabase
            if let peer = connection.peer, entryByPeer[peer] == nil {
                entryByPeer[peer] = entryByConnection[connection.id]
            }
            links[index].mtu = connection.mtu ?? (connection.beganBeforeCapture ? Self.largestPDU(links[index]) : nil)
            var security = links[index].security
            for change in connection.changes {
                switch change.kind {
                case .encryption(let enabled, let keySize):
                    security.append(
                        Cassette.SecurityEvent(
                            time: change.time, record: change.record, sender: .unknown,
                            kind: .encryptionChanged(enabled: enabled, keySize: keySize)))
                case .failed(let what, let status) where what == "encryption" || what == "key refresh":
                    security.append(
                        Cassette.SecurityEvent(
                            time: change.time, record: change.record, sender: .unknown,
                            kind: .encryptionFailed(status: status.rawValue)))
                default:
                    break
                }
            }
            links[index].security = security.sorted { $0.record < $1.record }
            // Service Changed indications the tracker could not name when they came (the
            // characteristic was discovered later, or on another connection of the peer).
            if let database = links[index].database {
                let serviceChanged = Set(
                    database.services.flatMap(\.characteristics).filter { $0.uuid == .serviceChanged }
                        .map(\.valueHandle))
                let known = Set(links[index].serviceChanges.map(\.record))
                for event in links[index].notifications
                where event.isIndication && event.sender != .host && serviceChanged.contains(event.handle)
                    && !known.contains(event.record)
                {
                    if let change = Self.serviceChange(event) { links[index].serviceChanges.append(change) }
                }
                links[index].serviceChanges.sort { $0.record < $1.record }
            }
            if let peer = links[index].peer {
                if peers[peer] == nil {
                    peers[peer] = Cassette.Peer(address: peer)
                    peerOrder.append(peer)
                }
                if !(peers[peer]!.links.contains(index)) { peers[peer]!.links.append(index) }
                if peers[peer]!.hostRole == nil { peers[peer]!.hostRole = links[index].hostRole }
            }
        }
        for address in peerOrder {
            peers[address]!.database = entryByPeer[address]?.database
            peers[address]!.localDatabase = entryByPeer[address]?.localDatabase
            peers[address]!.links.sort()
        }
        Self.keepPhoneDatabases(&links, peers, peerOrder, connections, gatt.entries)
        var cassette = Cassette(
            connections: connections, firstTime: report.firstTime, lastTime: report.lastTime,
            records: report.records, scans: report.scans, advertising: report.advertising, links: links, peers: peers,
            peerOrder: peerOrder)
        cassette.clockJump = clockJump
        cassette.extendedScanAndConnect = extendedScanAndConnect
        (cassette.controllerBuffers, cassette.completions) = (controllerBuffers, completions)
        if let origin {
            cassette.origin = origin
            // A capture of notes only: the replay begins, and ends, at its first record.
            if report.firstTime == nil { (cassette.start, cassette.end) = (origin, origin) }
        }
        // Peers the capture never discovered: their databases as their traffic shows them.
        cassette.completeDatabases()
        return cassette
    }

    /// iOS's GATT cache of a bonded peer (Formats/corebluetooth.md, "iOS on its own"): iOS keeps
    /// the database it discovered, once the peer is bonded, across connections, and discovers
    /// again only after a Service Changed indication. A link encrypted with the bond (no pairing
    /// of its own) to a peer whose database is not the one iOS kept (the entries split where the
    /// database changed with no Service Changed: ``GATTCollector``) gets the kept one as its
    /// ``Cassette/Link/phoneDatabase``.
    private static func keepPhoneDatabases(
        _ links: inout [Cassette.Link], _ peers: [BluetoothAddress: Cassette.Peer], _ peerOrder: [BluetoothAddress],
        _ connections: [Connection], _ entries: [GATTCollector.Entry]
    ) {
        var entryOf: [Int: Int] = [:]
        for (index, entry) in entries.enumerated() { for id in entry.connections { entryOf[id] = index } }
        for address in peerOrder {
            var kept: (entry: Int, connection: Int)?
            var bonded = false
            let own = Set((peers[address]?.links ?? []).compactMap { entryOf[links[$0].connection] }).count > 1
            for index in peers[address]?.links ?? [] {
                links[index].hasOwnDatabase = own
                let connection = connections[links[index].connection]
                guard let entry = entryOf[connection.id] else { continue }
                if bonded, connection.encryptionWithBond != nil, links[index].serviceChanges.isEmpty, let kept,
                    kept.entry != entry
                {
                    links[index].phoneDatabase = entries[kept.entry].database
                    links[index].phoneDatabaseConnection = kept.connection
                } else {
                    kept = (entry, connection.id)
                }
                if connection.bonded { bonded = true }
            }
        }
    }

    /// A link that began before the capture may have exchanged its MTU before it: the largest
    /// ATT PDU the capture shows on it (a notification or a write of its value, 3 bytes more),
    /// when larger than LE's default of 23, is the least the MTU was.
    private static func largestPDU(_ link: Cassette.Link) -> UInt16? {
        var largest = link.notifications.reduce(0) { max($0, $1.value.count + 3) }
        for operation in link.operations where operation.kind == .write || operation.kind == .writeWithoutResponse {
            largest = max(largest, operation.value.count + 3)
        }
        return largest > 23 ? UInt16(min(largest, 517)) : nil
    }

    /// Whether `record` is within ``maximumClockGapSeconds`` of the record before it (and no jump
    /// came before); notes the first jump.
    private mutating func keepsTime(of record: CaptureRecord) -> Bool {
        guard clockJump == nil else { return false }
        if let lastTime, abs(record.timestamp.seconds(since: lastTime)) > Self.maximumClockGapSeconds {
            clockJump = Cassette.ClockJump(record: record.index, from: lastTime, to: record.timestamp)
            return false
        }
        lastTime = record.timestamp
        return true
    }

    // MARK: Advertising

    private mutating func advertisingReports(_ record: CaptureRecord) {
        guard case .le(let meta)? = try? HCIEventParameters.decode(record.bytes) else { return }
        switch meta {
        case .advertisingReport(let reports):
            for report in reports {
                heard(
                    report.address, report.addressType, report.data.bytes, report.rssi, UInt16(report.eventType), false,
                    record)
            }
        case .extendedAdvertisingReport(let reports):
            for report in reports {
                heard(
                    report.address, report.addressType, report.data.bytes, report.rssi, report.eventType.rawValue, true,
                    record)
            }
        default:
            break
        }
    }

    private mutating func heard(
        _ address: BluetoothAddress, _ addressType: UInt8, _ data: UnsafeRawBufferPointer, _ rssi: Int8?,
        _ eventType: UInt16, _ extended: Bool, _ record: CaptureRecord
    ) {
        notePeer(address, type: addressType)
        let bytes = Array(data)
        let index: Int
        if let known = payloads[address]?[bytes] {
            index = known
        } else {
            index = peers[address]!.advertisements.count
            peers[address]!.advertisements.append(Cassette.Advertisement(bytes: bytes))
            payloads[address, default: [:]][bytes] = index
        }
        peers[address]!.reports.append(
            Cassette.AdvertisingReport(
                time: record.timestamp, record: record.index, eventType: eventType, extended: extended,
                addressType: addressType, rssi: rssi == 127 ? nil : rssi, advertisement: index))
    }

    private mutating func notePeer(_ address: BluetoothAddress, type: UInt8) {
        guard peers[address] == nil else { return }
        var peer = Cassette.Peer(address: address)
        peer.addressType = type
        peers[address] = peer
        peerOrder.append(address)
    }

    // MARK: ATT

    private mutating func link(
        for connection: LifecycleAnalyzer.OpenLink, side: Cassette.Exchange.Side, isRequest: Bool
    ) -> Int {
        if let index = linkByConnection[connection.id] { return index }
        // A connection that began before the capture has no role: the side that sends requests
        // is the GATT client, taken to be the central.
        var role = Self.role(connection.role)
        if role == nil, isRequest, side != .unknown { role = side == .host ? .central : .peripheral }
        let index = links.count
        links.append(Cassette.Link(connection: connection.id, peer: connection.peer, hostRole: role))
        linkByConnection[connection.id] = index
        return index
    }

    private static func role(_ role: Connection.Role?) -> Cassette.HostRole? {
        switch role {
        case .central: .central
        case .peripheral: .peripheral
        case nil: nil
        }
    }

    private static func isSecurity(_ change: Connection.Change) -> Bool {
        switch change.kind {
        case .encryption, .keyRefresh: true
        case .failed(let what, _): what == "encryption" || what == "key refresh"
        default: false
        }
    }

    private mutating func observe(
        _ pdu: ATTPDU, on aclHandle: UInt16, link: Int, connection: LifecycleAnalyzer.OpenLink,
        side: Cassette.Exchange.Side,
        _ record: CaptureRecord
    ) {
        let opcode = pdu.opcode
        switch opcode.method {
        case .request, .command, .indication:
            request(pdu, on: aclHandle, link: link, side: side, record)
        case .notification:
            switch pdu {
            case .handleValueNotification(let handle, let value):
                links[link].notifications.append(
                    Cassette.ValueEvent(
                        time: record.timestamp, record: record.index, handle: handle, value: Array(value),
                        isIndication: false, sender: side))
            case .multipleHandleValueNotification(let list):
                for (handle, value) in list {
                    guard let handle else { continue }
                    links[link].notifications.append(
                        Cassette.ValueEvent(
                            time: record.timestamp, record: record.index, handle: handle, value: Array(value),
                            isIndication: false, sender: side))
                }
            default:
                break
            }
        case .response, .confirmation:
            // The `default:` subscript changes the entry in place; the optional one (`[link]?.`)
            // allocated its coroutine's frame for this 200-byte value on every answer.
            guard let waiting = transactions[link, default: ATTTransactions()].answer(opcode.method, from: ATTEnd(side))
            else { return }
            answer(pdu, waiting, mtu: connection.mtu ?? 23, record)
        default:
            break
        }
    }

    private mutating func request(
        _ pdu: ATTPDU, on aclHandle: UInt16, link: Int, side: Cassette.Exchange.Side, _ record: CaptureRecord
    ) {
        var exchange = Cassette.Exchange(
            opcode: pdu.opcode, time: record.timestamp, record: record.index, sender: side, handle: pdu.handle)
        var kind: Cassette.Operation.Kind = .other
        var value: [UInt8] = []
        switch pdu {
        case .exchangeMTURequest(let mtu):
            exchange.parameter = mtu
            kind = .mtu
        case .findInformationRequest(let start, let end):
            (exchange.handle, exchange.endHandle) = (start, end)
            kind = .discovery
        case .findByTypeValueRequest(let start, let end, let type, let bytes):
            (exchange.handle, exchange.endHandle) = (start, end)
            exchange.type = BluetoothUUID(type)
            exchange.value = Array(bytes)
            kind = .discovery
        case .readByTypeRequest(let start, let end, let type):
            (exchange.handle, exchange.endHandle) = (start, end)
            exchange.type = type.uuid
            kind = type.uuid == .characteristicDeclaration || type.uuid == .includedService ? .discovery : .readByType
        case .readByGroupTypeRequest(let start, let end, let type):
            (exchange.handle, exchange.endHandle) = (start, end)
            exchange.type = type.uuid
            kind = .discovery
        case .readRequest:
            kind = .read
        case .readBlobRequest(let handle, let offset):
            exchange.offset = offset
            if let open = openRead[link], links[link].operations[open].handle == handle,
                links[link].operations[open].value.count == Int(offset)
            {
                // A continuation of the long read: the same operation.
                return append(exchange, to: open, link: link, side: side)
            }
            kind = .read
        case .readMultipleRequest(let handles), .readMultipleVariableRequest(let handles):
            exchange.handles = Array(handles)
            kind = .readMultiple
        case .writeRequest(_, let bytes):
            exchange.value = Array(bytes)
            value = exchange.value
            kind = .write
        case .writeCommand(_, let bytes):
            exchange.value = Array(bytes)
            value = exchange.value
            kind = .writeWithoutResponse
        case .signedWriteCommand(_, let bytes, _):
            exchange.value = Array(bytes)
            value = exchange.value
            kind = .signedWrite
        case .prepareWriteRequest(_, let offset, let bytes):
            exchange.offset = offset
            exchange.value = Array(bytes)
            if let open = openWrite[link] {
                Self.place(exchange.value, at: offset, in: &links[link].operations[open])
                return append(exchange, to: open, link: link, side: side)
            }
            value = exchange.value
            kind = .longWrite
        case .executeWriteRequest(let flags):
            exchange.parameter = UInt16(flags)
            if let open = openWrite[link] {
                if flags == 0 { links[link].operations[open].value = [] }
                return append(exchange, to: open, link: link, side: side)
            }
            kind = .longWrite
        case .handleValueIndication(let handle, let bytes):
            exchange.value = Array(bytes)
            value = exchange.value
            kind = .indication
            let event = Cassette.ValueEvent(
                time: record.timestamp, record: record.index, handle: handle, value: exchange.value, isIndication: true,
                sender: side)
            links[link].notifications.append(event)
            // Service Changed of the peer's server (this host's own tells the peer's client).
            if side != .host, analyzer.att.attribute(handle, on: aclHandle)?.uuid == .serviceChanged,
                let change = Self.serviceChange(event)
            {
                links[link].serviceChanges.append(change)
            }
        default:
            break
        }
        let exchangeIndex = links[link].exchanges.count
        links[link].exchanges.append(exchange)
        var operation = Cassette.Operation(
            kind: kind, sender: side, handle: exchange.handle, handles: exchange.handles, time: record.timestamp,
            exchanges: exchangeIndex..<exchangeIndex + 1, value: value)
        if kind == .longWrite {
            operation.value = []; Self.place(exchange.value, at: exchange.offset ?? 0, in: &operation)
        }
        let operationIndex = links[link].operations.count
        links[link].operations.append(operation)
        if kind == .read {
            openRead[link] = operationIndex
        } else if pdu.opcode.method == .request, side == .host || side == .unknown {
            // Another request of the client ends a long read that was not continued.
            openRead[link] = nil
        }
        if kind == .longWrite { openWrite[link] = operationIndex }
        if exchange.expectsAnswer {
            waitForAnswer(Pending(link: link, exchange: exchangeIndex, operation: operationIndex), pdu.opcode, side)
        }
    }

    /// Adds a continuing request (Read Blob, Prepare Write, Execute Write) to its operation.
    private mutating func append(
        _ exchange: Cassette.Exchange, to operation: Int, link: Int, side: Cassette.Exchange.Side
    ) {
        let exchangeIndex = links[link].exchanges.count
        links[link].exchanges.append(exchange)
        let range = links[link].operations[operation].exchanges
        links[link].operations[operation].exchanges = range.lowerBound..<exchangeIndex + 1
        waitForAnswer(Pending(link: link, exchange: exchangeIndex, operation: operation), exchange.opcode, side)
    }

    /// Keeps where a request or an indication (of `opcode`) went, until its answer.
    private mutating func waitForAnswer(_ request: Pending, _ opcode: ATTOpcode, _ side: Cassette.Exchange.Side) {
        transactions[request.link, default: ATTTransactions()].begin(request, opcode.method, from: ATTEnd(side))
    }

    private mutating func answer(_ pdu: ATTPDU, _ waiting: Pending, mtu: UInt16, _ record: CaptureRecord) {
        let link = waiting.link
        let requestTime = links[link].exchanges[waiting.exchange].time
        var answer = Cassette.Exchange.Answer(
            opcode: pdu.opcode, time: record.timestamp, record: record.index, error: nil, errorHandle: nil, value: [],
            latency: record.timestamp.seconds(since: requestTime))
        var value: [UInt8]?
        switch pdu {
        case .errorResponse(_, let handle, let code):
            answer.error = code
            answer.errorHandle = handle
        case .readResponse(let bytes), .readBlobResponse(let bytes), .readMultipleResponse(let bytes):
            answer.value = Array(bytes)
            value = answer.value
        case .exchangeMTUResponse(let server):
            answer.value = [UInt8(truncatingIfNeeded: server), UInt8(truncatingIfNeeded: server >> 8)]
            links[link].mtuTime = record.timestamp
        default:
            // Discovery lists, Read Multiple Variable, Prepare Write echo: the parameters as sent.
            if let payload = Self.parameters(record, pdu) { answer.value = payload }
        }
        links[link].exchanges[waiting.exchange].answer = answer
        guard let o = waiting.operation else { return }
        var operation = links[link].operations[o]
        let opcode = links[link].exchanges[waiting.exchange].opcode
        var ended = true
        switch (operation.kind, pdu) {
        case (.read, .readResponse), (.read, .readBlobResponse):
            if opcode == .readBlobRequest, operation.exchanges.count > 1 {
                operation.value += value ?? []
            } else {
                operation.value = value ?? []
            }
            // A full answer may go on with Read Blob (Core 6.0, Vol 3, Part G, §4.8.3).
            ended = (value?.count ?? 0) < Int(mtu) - 1
            if ended { openRead[link] = nil }
        case (.read, .errorResponse(_, _, let code)):
            openRead[link] = nil
            // The end of a long value shown as an error on a continuation, not a failure.
            if !(operation.exchanges.count > 1 && (code == .attributeNotLong || code == .invalidOffset)) {
                operation.error = code
            }
        case (.longWrite, .prepareWriteResponse):
            ended = false
        case (.longWrite, .errorResponse(_, _, let code)):
            operation.error = code
            // A failed Prepare Write is followed by the client's Execute Write to cancel.
            ended = opcode == .executeWriteRequest
        case (.longWrite, .executeWriteResponse):
            break
        case (.readByType, .readByTypeResponse):
            operation.value = answer.value
        case (.readMultiple, _):
            operation.value = answer.value
            if case .errorResponse(_, _, let code) = pdu { operation.error = code }
        case (_, .errorResponse(_, _, let code)):
            operation.error = code
        default:
            break
        }
        if operation.kind == .longWrite, ended { openWrite[link] = nil }
        operation.answerTime = record.timestamp
        operation.latency = record.timestamp.seconds(since: operation.time)
        links[link].operations[o] = operation
        if opcode == .readByTypeRequest, case .readByTypeResponse(let pairs) = pdu,
            links[link].exchanges[waiting.exchange].type == .includedService
        {
            for pair in pairs where pair.value.count >= 4 {
                let included = Cassette.IncludedService(
                    handle: pair.handle, start: UInt16(pair.value[0]) | UInt16(pair.value[1]) << 8,
                    end: UInt16(pair.value[2]) | UInt16(pair.value[3]) << 8,
                    uuid: pair.value.count == 6
                        ? BluetoothUUID(UInt16(pair.value[4]) | UInt16(pair.value[5]) << 8) : nil)
                if !links[link].includedServices.contains(included) { links[link].includedServices.append(included) }
            }
        }
        if opcode == .handleValueIndication,
            let index = links[link].notifications.lastIndex(where: {
                $0.record == links[link].exchanges[waiting.exchange].record
            })
        {
            links[link].notifications[index].confirmed = record.timestamp
        }
    }

    /// The ATT parameters (after the opcode) of the PDU `record` carries, when the record holds
    /// the whole L2CAP frame; nil for reassembled frames, whose bytes the record does not hold.
    private static func parameters(_ record: CaptureRecord, _ pdu: ATTPDU) -> [UInt8]? {
        switch pdu {
        case .findInformationResponse(let list): Array(list.entries.bytes)
        case .findByTypeValueResponse(let list): Array(list.entries.bytes)
        case .readByTypeResponse(let list): Array(list.entries.bytes)
        case .readByGroupTypeResponse(let list): Array(list.entries.bytes)
        case .readMultipleVariableResponse(let list): Array(list.bytes)
        case .prepareWriteResponse(let handle, let offset, let value):
            [
                UInt8(truncatingIfNeeded: handle), UInt8(truncatingIfNeeded: handle >> 8),
                UInt8(truncatingIfNeeded: offset), UInt8(truncatingIfNeeded: offset >> 8),
            ] + Array(value)
        default: nil
        }
    }

    private static func place(_ bytes: [UInt8], at offset: UInt16, in operation: inout Cassette.Operation) {
        let position = Int(offset)
        if operation.value.count < position {
            operation.value += [UInt8](repeating: 0, count: position - operation.value.count)
        }
        let end = min(operation.value.count, position + bytes.count)
        operation.value.replaceSubrange(position..<end, with: bytes)
    }

    static func serviceChange(_ event: Cassette.ValueEvent) -> Cassette.ServiceChange? {
        guard event.value.count >= 4 else { return nil }
        let v = event.value
        return Cassette.ServiceChange(
            time: event.time, record: event.record, start: UInt16(v[0]) | UInt16(v[1]) << 8,
            end: UInt16(v[2]) | UInt16(v[3]) << 8)
    }
}

extension ATTEnd {
    /// The end of the bearer `side` sent from.
    fileprivate init(_ side: Cassette.Exchange.Side) {
        switch side {
        case .host: self = .one
        case .peer: self = .other
        case .unknown: self = .unknown
        }
    }
}
