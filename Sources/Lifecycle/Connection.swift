import ATT
import AndroidCodes
import CoreBluetoothCodes
import HCI
import Wire

/// The story of one connection, or of one attempt that never became a connection.
public struct Connection: Hashable, Sendable, Codable {
    /// LE or BR/EDR; `unknown` for a link that began before the capture and showed nothing that
    /// belongs to one transport (an L2CAP channel, an event of one transport only).
    public enum Transport: String, Hashable, Sendable, Codable { case le, classic, unknown }
    /// This host's role in the connection.
    public enum Role: String, Hashable, Sendable, Codable { case central, peripheral }
    /// Who ended the connection: `local` when this host asked (HCI Disconnect, or reason 0x16),
    /// `remote` when it did not (the peer, or the link itself, as with a supervision timeout).
    public enum Initiator: String, Hashable, Sendable, Codable { case local, remote, unknown }

    /// Where the connection stands at the end of the capture.
    public enum Outcome: String, Hashable, Sendable, Codable {
        /// An attempt with no completion in the capture (connection attempts do not time out).
        case pending
        /// The attempt completed with an error status.
        case failed
        /// The host cancelled the attempt (LE Create Connection Cancel).
        case cancelled
        /// Connected, and still connected when the capture ends.
        case open
        /// Connected, then disconnected.
        case disconnected
    }

    /// 0-based, in order of first appearance.
    public var id: Int
    public var transport: Transport = .le
    public var role: Role?
    public var handle: UInt16?
    public var peer: BluetoothAddress?
    public var peerAddressType: UInt8?
    /// The name the peer advertised, where a scan in the capture heard it.
    public var peerName: String?

    /// The host's LE Create Connection (or Extended), when the capture shows it.
    public var attempt: Attempt?
    /// LE Create Connection Cancel sent while the attempt was pending: apart from ``attempt``, as
    /// a cancel can end an attempt that began before the capture (its completion comes next).
    public var cancelTime: Timestamp?
    /// The completion event, when the capture shows it.
    public var completion: Completion?
    /// The connection was already up when the capture began (traffic with no completion).
    public var beganBeforeCapture = false
    /// The Disconnection Complete that ended the link, when the capture shows it.
    public var disconnection: Disconnection?
    /// What the app is told of the end, a failed completion or the disconnection (so apart from
    /// both): what CoreBluetooth would pass to `didDisconnectPeripheral` (or `didFailToConnect`).
    public var cbError: Mapped<ConnectionError?>?
    /// What Android's `onConnectionStateChange` would receive for the same end (AndroidMapping),
    /// decided with ``cbError``.
    public var android: AndroidStatus?

    /// LE Create Connection (or Extended): its time and record.
    public struct Attempt: Hashable, Sendable, Codable {
        public var time: Timestamp
        public var record: Int
        /// The attempt named no peer: the controller connects to any Filter Accept List device.
        public var usesFilterAcceptList: Bool

        public init(time: Timestamp, record: Int, usesFilterAcceptList: Bool = false) {
            (self.time, self.record, self.usesFilterAcceptList) = (time, record, usesFilterAcceptList)
        }
    }

    /// The completion event: its time, record and status (success or why it failed).
    public struct Completion: Hashable, Sendable, Codable {
        public var time: Timestamp
        public var record: Int
        public var status: HCIStatus

        public init(time: Timestamp, record: Int, status: HCIStatus) {
            (self.time, self.record, self.status) = (time, record, status)
        }
    }

    /// The end of the link: the Disconnection Complete's time, record and reason, who ended it,
    /// and the HCI Disconnect this host sent for it, if it did.
    public struct Disconnection: Hashable, Sendable, Codable {
        public var time: Timestamp
        public var record: Int
        public var reason: HCIStatus
        public var initiator: Initiator
        /// The HCI Disconnect this host sent for the link, when it did: the moment it ended the
        /// link, whatever reason the completion then carries (a controller whose terminate went
        /// unacknowledged reports 0x22 or 0x08 there).
        public var request: Request?
        /// Disconnection Complete events after the first for the same link and reason: a
        /// controller that repeated the event, folded into the first.
        public var repeats = 0

        /// This host's HCI Disconnect: its time and record.
        public struct Request: Hashable, Sendable, Codable {
            public var time: Timestamp
            public var record: Int

            public init(time: Timestamp, record: Int) { (self.time, self.record) = (time, record) }
        }

        public init(time: Timestamp, record: Int, reason: HCIStatus, initiator: Initiator, request: Request? = nil) {
            (self.time, self.record, self.reason, self.initiator) = (time, record, reason, initiator)
            self.request = request
        }
    }

    /// Connection parameters as the completion set them: interval (1.25 ms units), peripheral
    /// latency, supervision timeout (10 ms units). Each later update is a ``changes`` entry;
    /// ``parameters(after:)`` gives those in force after a record.
    public var interval: UInt16?
    public var latency: UInt16?
    public var supervisionTimeout: UInt16?
    /// What changed during the connection: parameters, data length, PHY, encryption, the peer's
    /// database (Service Changed).
    public var changes: [Change] = []
    /// Each discovery procedure (Core 6.0, Vol 3, Part G, §4.4-§4.7), from its first request to
    /// the last answer.
    public var discoveryProcedures: [DiscoveryProcedure] = []

    /// One discovery procedure: its kind, from its first request to its last answer.
    public struct DiscoveryProcedure: Hashable, Sendable, Codable {
        /// Primary services (Read By Group Type of «Primary Service», Find By Type Value),
        /// secondary services (Read By Group Type of «Secondary Service», as BlueZ searches),
        /// included services (Read By Type of «Include»), characteristics, descriptors (Find
        /// Information).
        public enum Kind: String, Hashable, Sendable, Codable {
            case services, characteristics, descriptors
            case secondaryServices = "secondary_services", includedServices = "included_services"

            /// As the story names it.
            public var name: String {
                switch self {
                case .secondaryServices: "secondary services"
                case .includedServices: "included services"
                default: rawValue
                }
            }
        }
        public var kind: Kind
        public var start: Timestamp
        public var end: Timestamp
        public var requests: Int
        /// The record of its first request.
        public var record: Int?
        public var duration: Double { end.seconds(since: start) }
    }

    /// Client Characteristic Configuration writes of this host's client (the app's) that the
    /// peer's server confirmed, in order.
    public var subscriptions: [Subscription] = []
    /// Client Characteristic Configuration writes of the peer's client that this host's server
    /// confirmed: the peer subscribing to this host's characteristics (Service Changed, ANCS, or
    /// an app's peripheral-manager service).
    public var peerSubscriptions: [Subscription] = []
    /// Pairings (SMP) on the connection, in order.
    public var pairings: [Pairing] = []
    /// ATT requests still unanswered when the connection ended, or when the capture did.
    public var unansweredRequests: [ATTRequest] = []
    /// Indications of the Service Changed characteristic (the peer's database changed).
    public var serviceChangedIndications = 0

    /// One change to a connection, from an HCI event.
    public struct Change: Hashable, Sendable, Codable {
        /// What changed, with its new values.
        public enum Kind: Hashable, Sendable, Codable {
            /// LE Connection Update Complete.
            case parameters(interval: UInt16, latency: UInt16, supervisionTimeout: UInt16)
            /// LE Data Length Change: the largest payloads each way.
            case dataLength(maxTxOctets: UInt16, maxRxOctets: UInt16)
            /// LE PHY Update Complete (1 = 1M, 2 = 2M, 3 = Coded).
            case phy(tx: UInt8, rx: UInt8)
            /// Encryption Change: on or off, and the key size (v2 only).
            case encryption(enabled: Bool, keySize: UInt8?)
            /// Encryption Key Refresh Complete.
            case keyRefresh
            /// One of the above completed with an error status.
            case failed(String, HCIStatus)
            /// A Service Changed indication from the peer: the attributes from `start` to `end`
            /// changed, and what discovery found there before no longer holds.
            case serviceChanged(start: UInt16, end: UInt16)
        }
        public var time: Timestamp
        public var record: Int
        public var kind: Kind
    }

    /// A confirmed write of a Client Characteristic Configuration descriptor.
    public struct Subscription: Hashable, Sendable, Codable {
        /// What the value written turns on: nothing, notifications, indications or both.
        public enum Mode: String, Hashable, Sendable, Codable { case off, notify, indicate, both }
        public var time: Timestamp
        public var record: Int
        public var descriptorHandle: UInt16
        /// The characteristic's value handle and UUID, where discovery in the capture shows them.
        public var characteristicHandle: UInt16?
        public var uuid: BluetoothUUID?
        public var mode: Mode
    }

    /// The ATT MTU agreed by Exchange MTU (the smaller of the two), if exchanged.
    public var mtu: UInt16?
    /// For a connection read from an over-the-air capture: what the air showed of its link beyond
    /// what this host's HCI would have (``AirLink``); nil for HCI traces.
    public var air: AirLink?

    /// The ATT MTU in effect at the end: the exchanged one, else LE's default of 23 (Core 6.0,
    /// Vol 3, Part F, §3.2.8) for an LE connection seen from its start; nil when unknown (the
    /// connection began before the capture, where an exchange may have been missed, or BR/EDR).
    public var effectiveMTU: UInt16? {
        if let mtu { return mtu }
        return transport == .le && !beganBeforeCapture && completion?.status == .success ? 23 : nil
    }
    /// The ATT PDUs of the connection, counted by kind.
    public var att = ATTCounts()

    /// ATT PDUs counted by kind, and their bytes.
    public struct ATTCounts: Hashable, Sendable, Codable {
        public var requests = 0
        public var errors = 0
        public var notifications = 0
        public var indications = 0
        /// Read requests of any kind (Read, Read Blob, Read Multiple) and write requests (Write
        /// Request, Prepare Write): both among ``requests``; discovery is counted apart.
        public var reads = 0
        public var writes = 0
        /// Writes without response (Write Command, Signed Write Command): commands, not requests.
        public var writeCommands = 0
        /// ATT bytes both ways (opcodes, parameters and values).
        public var bytes = 0

        public init() {}
    }

    public var outcome: Outcome {
        if disconnection != nil { return .disconnected }
        if let status = completion?.status, status != .success {
            return cancelTime != nil && status == .unknownConnectionIdentifier ? .cancelled : .failed
        }
        if completion?.status == .success || beganBeforeCapture { return .open }
        return cancelTime != nil ? .cancelled : .pending
    }

    public init(id: Int) { self.id = id }

    /// The parameters in force after `record` (interval, latency, supervision timeout): those of
    /// the last update completed by then, else the completion's; nil for a link whose parameters
    /// the capture never showed.
    public func parameters(after record: Int = .max) -> (interval: UInt16, latency: UInt16, supervisionTimeout: UInt16)?
    {
        for change in changes.reversed() where change.record <= record {
            if case .parameters(let interval, let latency, let timeout) = change.kind {
                return (interval, latency, timeout)
            }
        }
        guard let interval, let latency, let supervisionTimeout else { return nil }
        return (interval, latency, supervisionTimeout)
    }

    /// The first discovery request (services, characteristics, descriptors) and the last answer
    /// of that discovery: its procedures up to the next discovery of all services from the start
    /// (a client that discovers again, after pairing or a Service Changed).
    public var discoveryStart: Timestamp? { discoveryProcedures.map(\.start).min() }
    public var discoveryEnd: Timestamp? {
        let again = discoveryProcedures.indices.dropFirst().first { discoveryProcedures[$0].kind == .services }
        return discoveryProcedures[..<(again ?? discoveryProcedures.endIndex)].map(\.end).max()
    }

    /// How long discovery took, where the capture shows it.
    public var discoveryDuration: Double? {
        guard let discoveryStart, let discoveryEnd else { return nil }
        return discoveryEnd.seconds(since: discoveryStart)
    }

    /// Time from completion to disconnection, where both are in the capture.
    public var duration: Double? {
        guard let completion, let disconnection else { return nil }
        return disconnection.time.seconds(since: completion.time)
    }

    /// When the connection failed to be established, if it did: an LE completion with status
    /// 0x3E, or a link the controller completed and then lost with reason 0x3E, not by this
    /// host's hand, before its first exchange (Core 6.0, Vol 6, Part B, §4.5: no packet within
    /// six connection events). What the app hears then is `EstablishmentFailure`'s; by default
    /// nothing, as iOS tries again by itself.
    public var failedEstablishment: Timestamp? {
        guard !beganBeforeCapture, transport == .le else { return nil }
        guard let completion else { return nil }
        if completion.status == .connectionFailedToBeEstablished { return completion.time }
        if completion.status == .success, let disconnection, disconnection.initiator == .remote,
            disconnection.reason == .connectionFailedToBeEstablished
        {
            return disconnection.time
        }
        return nil
    }
}

/// Every connection of a capture, in order of first appearance.
public struct LifecycleReport: Hashable, Sendable, Codable {
    public var connections: [Connection]
    public var firstTime: Timestamp?
    public var lastTime: Timestamp?
    public var records: Int
    public var scans: [Scan]
    public var advertising: [AdvertisingSet]
    /// Disconnection Complete events for a handle on which the capture showed no link (logs often
    /// begin with one): reported, never a connection.
    public var strayDisconnections: [StrayDisconnection]

    public init(
        connections: [Connection], firstTime: Timestamp?, lastTime: Timestamp?, records: Int,
        scans: [Scan] = [], advertising: [AdvertisingSet] = [], strayDisconnections: [StrayDisconnection] = []
    ) {
        self.connections = connections
        self.firstTime = firstTime
        self.lastTime = lastTime
        self.records = records
        self.scans = scans
        self.advertising = advertising
        self.strayDisconnections = strayDisconnections
    }
}

/// A Disconnection Complete for a handle the capture showed no link on, or repeated with another
/// reason after its link had ended.
public struct StrayDisconnection: Hashable, Sendable, Codable {
    public var time: Timestamp
    public var record: Int
    public var handle: UInt16
    public var reason: HCIStatus
    /// The same event repeated after it (same handle and reason, nothing opened on the handle
    /// between), folded into it.
    public var repeats = 0
    public init(time: Timestamp, record: Int, handle: UInt16, reason: HCIStatus) {
        (self.time, self.record, self.handle, self.reason) = (time, record, handle, reason)
    }
}
