import HCI
import Wire

/// The short answer for a busy capture: connections by transport, outcome and reason, the peers,
/// the scans, the errors.
public struct LifecycleSummary: Hashable, Sendable, Codable {
    /// Connections and attempts of one transport.
    public struct Transport: Hashable, Sendable, Codable {
        /// Attempts and connections (a connection that began before the capture counts once).
        public var total = 0
        /// Connected, and disconnected or still open.
        public var connected = 0
        public var disconnected = 0
        public var open = 0
        public var failed = 0
        public var cancelled = 0
        public var pending = 0
        /// Why attempts failed: HCI status and how often.
        public var failures: [Count] = []
        /// Why connections ended: reason, who ended them (`local`, `remote`), how often.
        public var disconnections: [Count] = []
    }

    /// How often one reason (an HCI code, with its name and who ended the link) occurred.
    public struct Count: Hashable, Sendable, Codable {
        public var code: UInt8
        public var name: String
        public var initiator: String?
        public var count: Int
    }

    /// One peer's connection attempts: connected, failed, cancelled and pending.
    public struct Peer: Hashable, Sendable, Codable {
        public var address: String
        public var name: String?
        /// Attempts that connected (open at the end, or disconnected).
        public var connections: Int
        public var failed: Int
        /// Attempts this host cancelled, and attempts still pending at the end.
        public var cancelled = 0
        public var pending = 0
    }

    public var le = Transport()
    public var brEdr = Transport()
    /// Links that began before the capture and showed nothing of their transport.
    public var unknownTransport = Transport()
    /// Disconnection Complete events with no link (``LifecycleReport/strayDisconnections``), and
    /// repeats of a link's own folded into it (``Connection/Disconnection/repeats``).
    public var strayDisconnections = 0
    public var repeatedDisconnections = 0
    /// Peers by number of connections and attempts, most first.
    public var peers: [Peer] = []
    public var scans = 0
    /// Scans that heard no advertising report.
    public var emptyScans = 0
    public var errors = 0
    public var unexpectedErrors = 0

    enum CodingKeys: String, CodingKey {
        case le, brEdr = "br_edr", unknownTransport = "unknown_transport", strayDisconnections = "stray_disconnections"
        case repeatedDisconnections = "repeated_disconnections", peers, scans, emptyScans = "empty_scans", errors
        case unexpectedErrors = "unexpected_errors"
    }

    public init(connections: [Connection], scans: [Scan], errors: [TraceError], strayDisconnections: Int = 0) {
        self.strayDisconnections = strayDisconnections
        var failures: [Connection.Transport: [Key: Int]] = [:]
        var endings: [Connection.Transport: [Key: Int]] = [:]
        var peers: [BluetoothAddress: Peer] = [:]
        for connection in connections {
            var counts = self[connection.transport]
            counts.total += 1
            repeatedDisconnections += connection.disconnection?.repeats ?? 0
            switch connection.outcome {
            case .open: counts.connected += 1; counts.open += 1
            case .disconnected: counts.connected += 1; counts.disconnected += 1
            case .failed: counts.failed += 1
            case .cancelled: counts.cancelled += 1
            case .pending: counts.pending += 1
            }
            if connection.outcome == .failed, let status = connection.completion?.status {
                failures[connection.transport, default: [:]][Key(code: status, initiator: nil), default: 0] += 1
            }
            if let disconnection = connection.disconnection {
                endings[connection.transport, default: [:]][
                    Key(code: disconnection.reason, initiator: disconnection.initiator), default: 0] += 1
            }
            self[connection.transport] = counts
            if let address = connection.peer {
                var peer =
                    peers[address] ?? Peer(address: "\(address)", name: connection.peerName, connections: 0, failed: 0)
                switch connection.outcome {
                case .failed: peer.failed += 1
                case .cancelled: peer.cancelled += 1
                case .pending: peer.pending += 1
                case .open, .disconnected: peer.connections += 1
                }
                peer.name = peer.name ?? connection.peerName
                peers[address] = peer
            }
        }
        func counts(_ table: [Key: Int]?) -> [Count] {
            (table ?? [:]).map { key, count in
                Count(
                    code: key.code.rawValue, name: key.code.name ?? "\(key.code)", initiator: key.initiator?.rawValue,
                    count: count)
            }.sorted {
                $0.count != $1.count
                    ? $0.count > $1.count : ($0.code, $0.initiator ?? "") < ($1.code, $1.initiator ?? "")
            }
        }
        le.failures = counts(failures[.le])
        le.disconnections = counts(endings[.le])
        brEdr.failures = counts(failures[.classic])
        brEdr.disconnections = counts(endings[.classic])
        unknownTransport.disconnections = counts(endings[.unknown])
        self.peers = peers.values.sorted {
            ($0.connections + $0.failed + $0.cancelled + $0.pending, $1.address) > (
                $1.connections + $1.failed + $1.cancelled + $1.pending, $0.address
            )
        }
        self.scans = scans.count
        emptyScans = scans.count { $0.reports == 0 }
        self.errors = errors.count
        unexpectedErrors = errors.count { !$0.expected }
    }

    /// The counts of one transport.
    public subscript(transport: Connection.Transport) -> Transport {
        get {
            switch transport {
            case .le: le
            case .classic: brEdr
            case .unknown: unknownTransport
            }
        }
        set {
            switch transport {
            case .le: le = newValue
            case .classic: brEdr = newValue
            case .unknown: unknownTransport = newValue
            }
        }
    }

    private struct Key: Hashable {
        var code: HCIStatus
        var initiator: Connection.Initiator?
    }
}
