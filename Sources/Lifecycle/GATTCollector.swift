import ATT
import TraceFiles
import Wire

/// Rebuilds, per peer, both GATT databases of its links from the discovery and traffic in a
/// capture, next to a ``LifecycleAnalyzer`` that has already seen each record: the peer's server
/// (what this host's client, the app, discovered) and this host's own server as the peer's
/// client discovered it (``GATTServer``). The two are never mixed.
///
/// Databases are kept per peer address (a peer's later connections refine what earlier ones
/// found), or per connection when the capture does not name the peer. A bonded peer whose
/// database changed between two connections with no Service Changed gets an entry per database,
/// each with the connections that showed it (``ServiceLayout``).
public struct GATTCollector {
    /// One peer's GATT database, with the connections that showed it.
    public struct Entry: Hashable, Sendable, Codable {
        /// The peer's address, when the capture names it.
        public var peer: BluetoothAddress?
        /// The connections (``Connection/id``) whose traffic built it.
        public var connections: [Int]
        /// The peer's server, as this host's client discovered it.
        public var database: GATTDatabase
        /// This host's server, as the peer's client discovered it.
        public var localDatabase = GATTDatabase()

        public init(
            peer: BluetoothAddress?, connections: [Int], database: GATTDatabase,
            localDatabase: GATTDatabase = GATTDatabase()
        ) {
            self.peer = peer
            self.connections = connections
            self.database = database
            self.localDatabase = localDatabase
        }

        /// The database of `server`, changed in place (a getter and setter would copy its
        /// services for every value a notification or a write records).
        public subscript(server: GATTServer) -> GATTDatabase {
            get { server == .peer ? database : localDatabase }
            _modify {
                if server == .peer { yield &database } else { yield &localDatabase }
            }
        }

        /// Neither server shows a service.
        public var isEmpty: Bool { database.isEmpty && localDatabase.isEmpty }
    }

    public private(set) var entries: [Entry] = []
    private var indexByPeer: [BluetoothAddress: Int] = [:]
    private var indexByConnection: [Int: Int] = [:]
    /// A Write Request's value, kept until its Write Response says it was written, per connection
    /// and server.
    private var pendingWrite: [PendingKey: (handle: UInt16, value: GATTDatabase.Value)] = [:]
    /// A Read Blob Request until its answer: the attribute and the offset it read from.
    private var pendingBlob: [PendingKey: (handle: UInt16, offset: UInt16)] = [:]
    private struct PendingKey: Hashable {
        var connection: Int
        var server: GATTServer
    }

    /// Per connection, its full discovery of the peer's primary services while under way, and
    /// the peer's database as it was when that discovery began (kept only for a peer with an
    /// earlier connection: what it goes back to if the discovery shows the database changed).
    private var discoveries: [Int: (layout: ServiceLayout, before: GATTDatabase?)] = [:]
    /// Per entry, the latest full discovery of one of its connections, and whether the peer sent
    /// a Service Changed indication since.
    private var lastDiscovery: [Int: (connection: Int, layout: ServiceLayout, told: Bool)] = [:]

    public init() {}

    public mutating func add(_ record: CaptureRecord, _ decoded: DecodedRecord, analyzer: LifecycleAnalyzer) {
        guard case .acl(let acl)? = decoded.packet, let pdu = decoded.att,
            let connection = analyzer.openLink(on: acl.handle)
        else { return }
        var index = entry(for: connection)
        let request = analyzer.lastAnswered
        // The server this PDU is about (a response's is its request's).
        let server = GATTServer(pdu.opcode.method, direction: record.direction)
        if analyzer.lastServiceChange != nil { lastDiscovery[index]?.told = true }
        switch pdu.opcode {
        case .readByGroupTypeRequest, .readByGroupTypeResponse, .errorResponse:
            index = discovery(
                pdu, of: connection, in: index, sentByClient: server == .peer && pdu.opcode.method == .request,
                answered: request, record, analyzer)
        default:
            break
        }
        let key = PendingKey(connection: connection.id, server: server)
        func value(_ bytes: UnsafeRawBufferPointer, _ source: GATTDatabase.Value.Source) -> GATTDatabase.Value {
            GATTDatabase.Value(bytes: Array(bytes), source: source, record: record.index)
        }
        defer {
            if let range = analyzer.lastServiceChange { entries[index].database.forget(range) }
        }
        switch pdu {
        case .readByGroupTypeResponse(let groups):
            let primary = request?.type != .secondaryService
            for group in groups {
                guard let uuid = BluetoothUUID(littleEndian: group.value) else { continue }
                entries[index][server].addService(
                    handle: group.handle, end: group.groupEnd, uuid: uuid, primary: primary)
            }
        case .findByTypeValueResponse(let ranges):
            // Discover Primary Service by Service UUID: the request's value is the UUID.
            guard let uuid = request?.type else { break }
            for range in ranges {
                entries[index][server].addService(handle: range.found, end: range.groupEnd, uuid: uuid, primary: true)
            }
        case .readByTypeResponse(let pairs) where request?.type == .characteristicDeclaration:
            for pair in pairs {
                guard let declaration = CharacteristicDeclaration(value: pair.value) else { continue }
                entries[index][server].addCharacteristic(
                    declaration: pair.handle, value: declaration.valueHandle, uuid: declaration.uuid,
                    properties: declaration.properties)
            }
        case .findInformationResponse(let list):
            for item in list { entries[index][server].addDescriptor(handle: item.handle, uuid: item.type) }
        case .readBlobRequest(let handle, let offset):
            pendingBlob[key] = (handle, offset)
        case .readResponse(let bytes), .readBlobResponse(let bytes):
            if let handle = request?.attributeHandle, request?.opcode == .readRequest {
                entries[index][server].setValue(bytes, source: .read, record: record.index, for: handle)
            } else if request?.opcode == .readBlobRequest, let blob = pendingBlob.removeValue(forKey: key) {
                // A long read (Core 6.0, Vol 3, Part G, §4.8.3): the value read so far goes on.
                entries[index][server].continueRead(bytes, at: blob.offset, record: record.index, for: blob.handle)
            }
        case .writeRequest(let handle, let bytes):
            pendingWrite[key] = (handle, value(bytes, .write))
        case .writeResponse:
            if let write = pendingWrite.removeValue(forKey: key) {
                entries[index][server].setValue(write.value, for: write.handle)
            }
        case .errorResponse:
            if request?.opcode == .writeRequest { pendingWrite[key] = nil }
            if request?.opcode == .readBlobRequest { pendingBlob[key] = nil }
        case .writeCommand(let handle, let bytes):
            entries[index][server].setValue(bytes, source: .write, record: record.index, for: handle)
        case .handleValueNotification(let handle, let bytes):
            entries[index][server].setValue(bytes, source: .notification, record: record.index, for: handle)
        case .handleValueIndication(let handle, let bytes):
            entries[index][server].setValue(bytes, source: .indication, record: record.index, for: handle)
        default:
            break
        }
    }

    /// A PDU of a full discovery of the peer's primary services on `connection`, whose entry is
    /// `index`. When the discovery ends with other services than the peer's latest one on an
    /// earlier connection found, the peer bonded on an earlier connection and sent no Service
    /// Changed since, its database changed between the connections (``ServiceLayout``): the
    /// connection gets an entry of its own from then on, and the earlier one keeps the database
    /// the earlier connections showed.
    /// Returns the connection's entry.
    private mutating func discovery(
        _ pdu: ATTPDU, of connection: LifecycleAnalyzer.OpenLink, in index: Int, sentByClient: Bool,
        answered: ATTRequest?, _ record: CaptureRecord, _ analyzer: LifecycleAnalyzer
    ) -> Int {
        let id = connection.id
        if case .readByGroupTypeRequest = pdu, sentByClient {
            var layout = ServiceLayout()
            layout.add(pdu, sentByClient: true, answered: answered, record: record.index, time: record.timestamp)
            guard layout.record != nil else { return index }
            discoveries[id] = (layout, entries[index].connections.count > 1 ? entries[index].database : nil)
            return index
        }
        guard var discovery = discoveries[id] else { return index }
        discovery.layout.add(
            pdu, sentByClient: sentByClient, answered: answered, record: record.index, time: record.timestamp)
        guard discovery.layout.isComplete else {
            discoveries[id] = discovery
            return index
        }
        discoveries[id] = nil
        var index = index
        // Only for a peer bonded with this host on an earlier connection, whose database iOS
        // keeps (Formats/corebluetooth.md, "iOS on its own"): the fact `diagnose` reads too.
        if let last = lastDiscovery[index], last.connection != id, !last.told, let before = discovery.before,
            entries[index].connections.contains(where: { $0 != id && analyzer.connections[$0].bonded }),
            !discovery.layout.changes(since: last.layout).isEmpty
        {
            entries[index].database = before
            entries[index].connections.removeAll { $0 == id }
            var database = GATTDatabase()
            for service in discovery.layout.services {
                database.addService(handle: service.handle, end: service.end, uuid: service.uuid, primary: true)
            }
            index = entries.count
            entries.append(Entry(peer: connection.peer, connections: [id], database: database))
            if let peer = connection.peer { indexByPeer[peer] = index }
            indexByConnection[id] = index
        }
        lastDiscovery[index] = (id, discovery.layout, false)
        return index
    }

    private mutating func entry(for connection: LifecycleAnalyzer.OpenLink) -> Int {
        if let index = indexByConnection[connection.id] { return index }
        let index: Int
        if let peer = connection.peer, let known = indexByPeer[peer] {
            index = known
            entries[index].connections.append(connection.id)
        } else {
            index = entries.count
            entries.append(Entry(peer: connection.peer, connections: [connection.id], database: GATTDatabase()))
            if let peer = connection.peer { indexByPeer[peer] = index }
        }
        indexByConnection[connection.id] = index
        return index
    }
}

extension GATTCollector: RecordCollector {
    /// Adds `record`, in the pass that has just analysed it: a quick notification, write command
    /// or read read from its PDU in place, as its full decoding would be.
    public mutating func add(
        _ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer
    ) {
        guard let quick else { return add(record, analysis.decoded, analyzer: analysis.lifecycle) }
        guard case .att(let handle, let opcode, let attribute, _) = quick,
            let connection = analysis.lifecycle.openLink(on: handle)
        else { return }
        let index = entry(for: connection)
        let server = GATTServer(opcode.method, direction: record.direction)
        let pdu = analysis.quickPDU
        switch opcode {
        case .handleValueNotification, .writeCommand:
            let source: GATTDatabase.Value.Source = opcode == .writeCommand ? .write : .notification
            entries[index][server].setValue(
                UnsafeRawBufferPointer(rebasing: pdu[3...]), source: source, record: record.index, for: attribute)
        case .readResponse:
            let value = UnsafeRawBufferPointer(rebasing: pdu[1...])
            let request = analysis.lifecycle.lastAnswered
            if let handle = request?.attributeHandle, request?.opcode == .readRequest {
                entries[index][server].setValue(value, source: .read, record: record.index, for: handle)
            } else if request?.opcode == .readBlobRequest,
                let blob = pendingBlob.removeValue(forKey: PendingKey(connection: connection.id, server: server))
            {
                // (A damaged capture's: a Read Response paired with a Read Blob Request.)
                entries[index][server].continueRead(value, at: blob.offset, record: record.index, for: blob.handle)
            }
        default:
            break
        }
    }
}

extension GATTCollector {
    /// Reads every record of `reader` (the lifecycles seeded with `given`, a user's database for
    /// peers the capture never discovered) in one ``AnalysisPass``: each peer's databases, and
    /// the pass, with its lifecycles and the fault that stopped a damaged file (every record
    /// before it is read).
    public static func read(
        _ reader: AnalysisReader, given: GivenGATT? = nil, selection: TraceSelection = TraceSelection()
    ) -> (GATTCollector, AnalysisPass) {
        var pass = AnalysisPass(
            reader: reader, analysis: CaptureAnalyzer(diagnosing: false, given: given), selection: selection)
        var collector = GATTCollector()
        pass.run(&collector)
        return (collector, pass)
    }
}
