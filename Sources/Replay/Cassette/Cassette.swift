import ATT
import Lifecycle
import TraceFiles
import Wire

/// What a capture says the peers did, arranged for playback (Formats/cassette.md).
///
/// Built in one pass over the decoded records, next to the lifecycle analysis
/// (`CassetteRecorder`): per peer its advertising reports and GATT database, per connection its
/// episode (``connections``) and its conversation (``links``: every ATT request with its answer
/// and latency, the procedures they made, notifications, MTU, Service Changed, pairing and
/// encryption). ``peers`` and ``episodes`` keep the shape the connection replay reads.
public struct Cassette: Sendable {
    /// The first record played (the replay begins there).
    public var start: Timestamp
    /// The capture's first record, its notes included (a PacketLogger file's header notes come
    /// days before its traffic): the clock every command counts from, the flow's too, and the
    /// origin of `--terminate-at` and the other system events' times.
    public var origin: Timestamp
    public var end: Timestamp
    /// Peers this host connected to as central (or whose connection began before the capture),
    /// in order of first appearance.
    public var peers: [BluetoothAddress]
    /// Their connection episodes in time order.
    public var episodes: Episodes
    /// Remote centrals that connected to this host (a peripheral host), in order of first
    /// appearance, and their episodes.
    public var centrals: [BluetoothAddress]
    public var centralEpisodes: Episodes
    /// Every connection and attempt of the capture, indexed by `Connection.id`.
    public var connections: [Connection]
    /// The conversation of every connection that carried ATT or SMP traffic or changed its
    /// encryption, in order of the connection's first appearance.
    public var links: [Link]
    /// Every remote device: advertisers, peripherals, centrals; by address.
    public var peerTable: [BluetoothAddress: Peer]
    /// Addresses in ``peerTable`` in order of first appearance.
    public var peerOrder: [BluetoothAddress]
    /// This host's scans and advertising sets.
    public var scans: [Scan]
    public var advertising: [AdvertisingSet]
    public var records: Int
    /// Where the capture's clock jumped by more than a day, if it did: the cassette ends with the
    /// record before (`CassetteRecorder.maximumClockGapSeconds`).
    public var clockJump: ClockJump?
    /// The capture is a PacketLogger file: its host is Apple's Bluetooth stack (an iPhone's, a
    /// Mac's), so the MTU it exchanged is the one iOS exchanges (Formats/corebluetooth.md,
    /// "The MTU"). Another host's exchange (Android's 517, or none) is not iOS's.
    public var hostIsApple = false
    /// The capture shows its controller scanning or connecting with extended advertising (LE
    /// Extended Advertising Reports, LE Set Extended Scan and LE Extended Create Connection
    /// commands, or LE Read Local Supported Features with LE Extended Advertising): what iOS
    /// answers `CBCentralManager.supports(.extendedScanAndConnect)` with on such hardware.
    public var extendedScanAndConnect = false
    /// The controller's LE ACL buffers, when the capture shows the host asking for them (its
    /// start); nil otherwise (Formats/corebluetooth.md, "Flow control").
    public var controllerBuffers: ControllerBuffers?
    /// The controller's completed packets by connection (`Connection.id`), in time order.
    public var completions: [Int: [Completion]] = [:]

    /// A jump of the capture's clock: record `record` (0-based) is stamped `to`, the record
    /// before `from`.
    public struct ClockJump: Hashable, Sendable {
        public var record: Int
        public var from: Timestamp
        public var to: Timestamp
    }
    private var linkByConnection: [Int: Int]

    /// A cassette of connection episodes only, from a lifecycle report (no conversations, no
    /// advertising): what tests of the connection replay build by hand.
    public init(report: LifecycleReport) {
        self.init(
            connections: report.connections, firstTime: report.firstTime, lastTime: report.lastTime,
            records: report.records, scans: report.scans, advertising: report.advertising, links: [], peers: [:],
            peerOrder: [])
    }

    init(
        connections: [Connection], firstTime: Timestamp?, lastTime: Timestamp?, records: Int, scans: [Scan],
        advertising: [AdvertisingSet], links: [Link], peers: [BluetoothAddress: Peer], peerOrder: [BluetoothAddress]
    ) {
        start = firstTime ?? Timestamp(microseconds: 0)
        origin = start
        end = lastTime ?? start
        self.connections = connections
        self.records = records
        self.scans = scans
        self.advertising = advertising
        self.links = links
        peerTable = peers
        self.peerOrder = peerOrder
        linkByConnection = Dictionary(
            uniqueKeysWithValues: links.enumerated().map { ($0.element.connection, $0.offset) })
        var peripheralIndex: [BluetoothAddress: [Int32]] = [:]
        var centralIndex: [BluetoothAddress: [Int32]] = [:]
        var peripherals: [BluetoothAddress] = []
        var centrals: [BluetoothAddress] = []
        for (position, connection) in connections.enumerated() where connection.transport == .le {
            guard let peer = connection.peer else { continue }
            if connection.role == .peripheral {
                if centralIndex[peer] == nil { centrals.append(peer) }
                centralIndex[peer, default: []].append(Int32(position))
            } else {
                if peripheralIndex[peer] == nil { peripherals.append(peer) }
                peripheralIndex[peer, default: []].append(Int32(position))
            }
        }
        self.peers = peripherals
        self.centrals = centrals
        episodes = Episodes(connections: connections, index: peripheralIndex)
        centralEpisodes = Episodes(connections: connections, index: centralIndex)
    }

    /// Reads a capture into a cassette, in one pass; a damaged file gives the cassette of its
    /// good records and the fault. An over-the-air capture is read as `air` says
    /// (`AnalysisReader`): the cassette is the one its host's HCI trace would have made. A peer
    /// the capture never discovered gets the database `given` gives it, else the one its traffic
    /// shows (``completeDatabases(given:)``).
    public static func load(path: String, air: AirOptions = AirOptions(), given: GivenGATT? = nil) throws -> (
        Cassette, fault: (any Error)?
    ) {
        let reader = try AnalysisReader(path: path, air: air)
        var recorder = CassetteRecorder()
        var fault: (any Error)?
        do {
            while let record = try reader.next() { recorder.add(record) }
        } catch {
            fault = error
        }
        var cassette = recorder.cassette()
        cassette.hostIsApple = reader.format == .packetLogger
        if let given { cassette.completeDatabases(given: given) }
        return (cassette, fault)
    }

    /// The address a peer the capture never names plays under: `00:00:00:00:` and the connection
    /// handle (a connection that began before the capture).
    public static func standInAddress(handle: UInt16) -> BluetoothAddress { BluetoothAddress(rawValue: UInt64(handle)) }

    // MARK: Looking up

    /// This host's role: central when it connected to any peripheral (or only scanned),
    /// peripheral when remote centrals connected to it or it only advertised.
    public var hostRole: HostRole? {
        if !peers.isEmpty { return .central }
        if !centrals.isEmpty || links.contains(where: { $0.hostRole == .peripheral }) { return .peripheral }
        if !advertising.isEmpty { return .peripheral }
        if !scans.isEmpty || !links.isEmpty { return .central }
        return nil
    }

    /// Every remote device in order of first appearance.
    public var allPeers: [Peer] { peerOrder.compactMap { peerTable[$0] } }

    public func peer(_ address: BluetoothAddress) -> Peer? { peerTable[address] }

    /// The conversation of connection `id` (`Connection.id`), if it had one.
    public func link(connection id: Int) -> Link? { linkByConnection[id].map { links[$0] } }

    /// The index in ``links`` of connection `id`'s link, if it had one.
    public func linkIndex(connection id: Int) -> Int? { linkByConnection[id] }

    /// The links of `peer`, in order.
    public func links(of peer: BluetoothAddress) -> [Link] { peerTable[peer]?.links.map { links[$0] } ?? [] }

    /// The answers the capture's `peer` gave to procedures of `kind` on `handle`, over all its
    /// links, in capture order. By default only requests of this host's client (for a peripheral
    /// host's server, ask `from: .peer`).
    public func answers(
        for kind: Operation.Kind, handle: UInt16?, on peer: BluetoothAddress, from sender: Exchange.Side = .host
    ) -> [Operation] {
        links(of: peer).flatMap { $0.operations(kind, handle: handle, from: sender) }
    }

    /// The answer to the `occurrence`-th (0-based) request of `kind` on `handle`: the capture's
    /// answer to its own `occurrence`-th such request, or its last one once they run out; nil
    /// when the capture never made it.
    public func answer(
        for kind: Operation.Kind, handle: UInt16?, on peer: BluetoothAddress, occurrence: Int,
        from sender: Exchange.Side = .host
    ) -> Operation? {
        let all = answers(for: kind, handle: handle, on: peer, from: sender)
        guard !all.isEmpty else { return nil }
        return all[min(max(0, occurrence), all.count - 1)]
    }

    /// `peer`'s services the capture revealed, in handle order, only those of `uuids` when given
    /// (as `discoverServices(_:)` filters).
    public func services(of peer: BluetoothAddress, matching uuids: [BluetoothUUID]? = nil) -> [GATTDatabase.Service] {
        let all = peerTable[peer]?.database?.services ?? []
        guard let uuids else { return all }
        return all.filter { uuids.contains($0.uuid) }
    }

    /// The characteristics of the service starting at `serviceHandle`, only those of `uuids` when
    /// given.
    public func characteristics(
        of peer: BluetoothAddress, service serviceHandle: UInt16, matching uuids: [BluetoothUUID]? = nil
    ) -> [GATTDatabase.Characteristic] {
        let all = services(of: peer).first { $0.handle == serviceHandle }?.characteristics ?? []
        guard let uuids else { return all }
        return all.filter { uuids.contains($0.uuid) }
    }

    /// The descriptors of the characteristic whose value is at `valueHandle`.
    public func descriptors(of peer: BluetoothAddress, characteristic valueHandle: UInt16) -> [GATTDatabase.Descriptor]
    {
        for service in services(of: peer) {
            if let characteristic = service.characteristics.first(where: { $0.valueHandle == valueHandle }) {
                return characteristic.descriptors
            }
        }
        return []
    }

    /// `peer`'s notifications and indications over all its links, in time order.
    public func notifications(of peer: BluetoothAddress, handle: UInt16? = nil) -> [ValueEvent] {
        links(of: peer).flatMap { $0.notifications(of: handle) }
    }

    /// Advertising reports for a scan that starts at `start` (the capture's start when nil), in
    /// time order over every peer: only peers advertising one of `services` (every peer when nil
    /// or empty), and without duplicates only each peer's first report of each distinct payload
    /// from `start` on (CoreBluetooth coalesces repeated packets when
    /// `CBCentralManagerScanOptionAllowDuplicatesKey` is false; a new scan reports them again).
    public func discoveries(
        services: [BluetoothUUID]? = nil, allowDuplicates: Bool = false, from start: Timestamp? = nil
    ) -> [(peer: BluetoothAddress, report: AdvertisingReport)] {
        var result: [(peer: BluetoothAddress, report: AdvertisingReport)] = []
        for peer in allPeers where !peer.reports.isEmpty {
            let wanted = peer.advertisements.map { $0.advertises(anyOf: services ?? []) }
            // A scan filtered by service also reports a peer's scan responses once its
            // advertising matched.
            guard wanted.contains(true) else { continue }
            var seen = Set<Int>()
            for report in peer.reports
            where (start.map { report.time >= $0 } ?? true)
                && (allowDuplicates || seen.insert(report.advertisement).inserted)
            {
                result.append((peer.address, report))
            }
        }
        return result.sorted { ($0.report.time, $0.report.record) < ($1.report.time, $1.report.record) }
    }

    /// Connection episodes by peer, sharing the cassette's ``connections``.
    public struct Episodes: Sendable {
        let connections: [Connection]
        let index: [BluetoothAddress: [Int32]]

        /// The episodes of `peer` in time order; nil for a peer with none.
        public subscript(peer: BluetoothAddress) -> EpisodeList? {
            index[peer].map { EpisodeList(connections: connections, positions: $0) }
        }

        public var peers: Dictionary<BluetoothAddress, [Int32]>.Keys { index.keys }
        public var isEmpty: Bool { index.isEmpty }
    }

    /// One peer's episodes: a view, in time order.
    public struct EpisodeList: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
        let connections: [Connection]
        let positions: [Int32]

        init(connections: [Connection], positions: [Int32]) {
            self.connections = connections
            self.positions = positions
        }

        public init(arrayLiteral elements: Connection...) {
            connections = elements
            positions = (0..<Int32(elements.count)).map { $0 }
        }

        public var startIndex: Int { 0 }
        public var endIndex: Int { positions.count }
        public subscript(position: Int) -> Connection { connections[Int(positions[position])] }
    }
}
