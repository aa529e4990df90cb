import ATT
import Lifecycle
import Wire

extension Cassette {
    /// Which role this host had on a link (Core 6.0, Vol 6, Part B, §4.5): a central host's app
    /// is a `CBCentralManager`'s; a peripheral host's is a `CBPeripheralManager`'s, and the peer is
    /// a remote central.
    public enum HostRole: String, Hashable, Sendable { case central, peripheral }

    /// Everything the capture shows of one connection's conversation. Its connection episode
    /// (attempt, completion, parameters, encryption changes, disconnection, reason, initiator)
    /// is ``Cassette/connections``[``connection``]; links are made only for connections that
    /// carried ATT or SMP traffic.
    public struct Link: Sendable {
        /// `Connection.id`: the index in ``Cassette/connections``.
        public var connection: Int
        public var peer: BluetoothAddress?
        public var hostRole: HostRole?
        /// The MTU the Exchange MTU agreed (the smaller of the two), and when.
        public var mtu: UInt16?
        public var mtuTime: Timestamp?
        /// Every ATT request, command and indication, in the order sent, each with its answer.
        public var exchanges: [Exchange] = []
        /// The same, grouped into the procedures an app would call (a long read is one).
        public var operations: [Operation] = []
        /// Notifications and indications in time order.
        public var notifications: [ValueEvent] = []
        public var serviceChanges: [ServiceChange] = []
        public var security: [SecurityEvent] = []
        /// The GATT database the capture revealed for this link's peer (shared with
        /// ``Peer/database``; the link's own when the capture does not name the peer).
        public var database: GATTDatabase?
        /// The peer's database as iOS kept it for this link, where it differs from ``database``:
        /// the peer bonded with this host before the link, and its database changed since iOS
        /// last discovered it, with no Service Changed indication (Formats/corebluetooth.md, "iOS
        /// on its own"). The app's discovery on the link gets this one; its requests reach the
        /// peer's, ``database``. ``phoneDatabaseConnection`` is the connection that discovered it.
        public var phoneDatabase: GATTDatabase?
        public var phoneDatabaseConnection: Int?
        /// The link's ``database`` is not the peer's latest (its database changed between
        /// connections): the flow names characteristics from the link's own.
        public var hasOwnDatabase = false
        /// This host's GATT server as the link's peer discovered it (its client's discovery of
        /// this host: a remote central's of a peripheral host, or a peripheral that is also a
        /// client of this central host).
        public var localDatabase: GATTDatabase?
        /// Included services the capture's discovery found (Core 6.0, Vol 3, Part G, §4.5.1),
        /// which `GATTDatabase` does not hold.
        public var includedServices: [IncludedService] = []

        init(connection: Int, peer: BluetoothAddress?, hostRole: HostRole?) {
            self.connection = connection
            self.peer = peer
            self.hostRole = hostRole
        }

        /// The operations of `kind` on `handle` (any when nil) sent by `sender` (either side when
        /// nil), in order. Operations of a capture that records no direction (`.unknown`) match
        /// either side.
        public func operations(_ kind: Operation.Kind, handle: UInt16?, from sender: Exchange.Side? = nil)
            -> [Operation]
        {
            operations.filter {
                $0.kind == kind && (handle == nil || $0.handle == handle)
                    && (sender == nil || $0.sender == sender || $0.sender == .unknown)
            }
        }

        /// The exchanges `operation` took. (Its ``Operation/exchanges`` range may also span the
        /// other side's requests or indications sent meanwhile; these are left out.)
        public func exchanges(of operation: Operation) -> [Exchange] {
            exchanges[operation.exchanges].filter {
                $0.sender == operation.sender
                    && ($0.opcode == .handleValueIndication) == (operation.kind == .indication)
            }
        }

        /// Notifications and indications of `handle` (all of them when nil), in time order.
        public func notifications(of handle: UInt16?) -> [ValueEvent] {
            handle.map { h in notifications.filter { $0.handle == h } } ?? notifications
        }
    }

    /// An Include declaration: at `handle`, inside the service that holds it, pointing at the
    /// service `start`…`end` (its UUID when 16-bit; otherwise nil, Core 6.0, Vol 3, Part G, §3.2).
    public struct IncludedService: Hashable, Sendable {
        public var handle: UInt16
        public var start: UInt16
        public var end: UInt16
        public var uuid: BluetoothUUID?
    }

    /// A remote device: what it advertised, its links, and the GATT database its traffic revealed.
    public struct Peer: Sendable {
        public var address: BluetoothAddress
        /// The address type of its first report or connection (0 public, 1 random, …).
        public var addressType: UInt8?
        /// Distinct advertising payloads in order of first report.
        public var advertisements: [Advertisement] = []
        /// Every advertising report, in time order.
        public var reports: [AdvertisingReport] = []
        /// Indices in ``Cassette/links`` of its links, in order.
        public var links: [Int] = []
        /// Its GATT server as this host's client discovered it in the capture; for a peer the
        /// capture never discovered, the one the user gave or the one its traffic shows
        /// (``databaseSource``, ``Cassette/completeDatabases(given:)``).
        public var database: GATTDatabase?
        /// Where ``database`` came from; nil when there is none.
        public var databaseSource: GATTSource?
        /// This host's GATT server as the peer's client discovered it (a remote central's
        /// discovery of a peripheral host, or a peripheral that is also a GATT client).
        public var localDatabase: GATTDatabase?
        /// This host's role on the peer's first link (`central`: the peer is a peripheral;
        /// `peripheral`: the peer is a remote central).
        public var hostRole: HostRole?

        init(address: BluetoothAddress) { self.address = address }

        /// The payload of `report`.
        public func advertisement(of report: AdvertisingReport) -> Advertisement {
            advertisements[report.advertisement]
        }
    }
}
