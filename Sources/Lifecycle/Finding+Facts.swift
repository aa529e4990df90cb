import ATT
import CoreBluetoothCodes
import HCI
import Wire

extension Finding {
    /// What a rule found, as the values it found it from: one case per rule (two rules, a write
    /// and a subscription refused, share one), with the connection, records, times, codes and
    /// figures its finding stands on. The analysis decides; the sentences a report shows
    /// (`summary`, `coreBluetooth`, `lookAt`) are written from these facts by the Reports module
    /// (`Sources/Reports/FindingWords.swift`), and nowhere else.
    public enum Facts: Hashable, Sendable, Codable {
        // MARK: Service Changed

        /// The peer indicated Service Changed for `start`-`end`, and this host's client discovered
        /// again at record `rediscovery`.
        case rediscoveryAfterServiceChanged(start: UInt16, end: UInt16, rediscovery: Int)
        /// The peer indicated Service Changed for `start`-`end`, and no discovery followed before
        /// the link ended (`linkEnded`) or the capture did.
        case serviceChangedIgnored(start: UInt16, end: UInt16, linkEnded: Bool)

        // MARK: Why a link ended

        /// Never established (0x3E); `exchange`: the link-layer exchange that completed with the
        /// same status first, and its completion's record.
        case failedToEstablish(Connection, exchange: String?, exchangeComplete: Int?)
        /// The link was lost (0x08): after a parameter update (`update`), or with one pending
        /// (`pendingUpdate`: its start's record); the last packet from the peer; the supervision
        /// timeout in force (10 ms units) and whether the link outlived the silence on packets HCI
        /// does not show.
        case supervisionTimeout(
            Connection, update: Connection.Change?, pendingUpdate: Int?, lastReceived: Int?,
            lastReceivedTime: Timestamp?, timeout: UInt16?, outlivedSilence: Bool)
        /// LL Response Timeout (0x22): the procedure that failed with it (its name, completion and
        /// start), or the one left pending (its name and start), or neither.
        case llResponseTimeout(
            Connection, failed: String?, failedComplete: Int?, failedStart: Int?, pending: String?, pendingStart: Int?)
        /// Encryption with the bond failed with `reason`; the pairing of an earlier connection
        /// (`pairedOn`, its id) at record `pairing`.
        case bondMissing(reason: HCIStatus, pairedOn: Int?, pairing: Int?)
        /// A MIC failure (0x3D); the encryption it interrupted, by its start's record.
        case micFailure(Connection, encryptionStart: Int?)
        /// Unacceptable Connection Parameters (0x3B), with the last parameters asked for before.
        case unacceptableParameters(Connection, request: DiagnosisCollector.ParameterRequest?)
        /// An ATT request (or indication) unanswered for 30 s; whether this host waited for it.
        case attTimeout(Connection, request: ATTRequest, hostWaited: Bool)
        /// This host disconnected right after the peer's server refused a request.
        case gaveUpAfterRefusal(refusal: TraceError)
        /// The peer ended the link right after a procedure completed, `after` seconds later.
        case endedAfterProcedure(Connection, procedure: Procedure, reason: HCIStatus, after: Double)

        // MARK: Security

        /// A pairing that never finished; the link's end, if it ended.
        case pairingUnfinished(Pairing, linkEnd: Int?)
        /// A pairing that failed, and the error CoreBluetooth gives the request that needed it.
        case pairingFailed(Pairing, error: Mapped<CBATTError>?)
        /// Connection `connection` paired again after pairing on `before`; whether that pairing
        /// asked for a bond.
        case bondNotKept(connection: Int, before: Int, bonded: Bool?)
        /// A key of `size` bytes, reported by `via` (an event's name) or by the encryption after
        /// `pairing`.
        case shortKey(Connection, size: UInt8, via: String?, pairing: Pairing?)

        // MARK: GATT

        /// This host's client discovered `peer`'s services on the connections `discovered` (their
        /// ids) of its `connections`, for `total` seconds in all.
        case discoveryRepeated(peer: BluetoothAddress, connections: Int, discovered: [Int], total: Double)
        /// A request on a handle outside the database discovery revealed.
        case outsideDatabase(TraceError)
        /// A refusal for security the request was not sent again after.
        case securityRefusalNotRetried(TraceError)
        /// A write (`subscription`: a subscription's) refused by the peer's server.
        case refused(TraceError, subscription: Bool)
        /// The database changed between connection `earlier` (its id) and this one, encrypted
        /// with the bond at record `encrypted`, with no Service Changed.
        case databaseChanged(Connection, earlier: Int, encrypted: Int, changes: [ServiceLayout.Change])
        /// A bonded reconnect, encrypted at record `encrypted`, that restored none of the
        /// subscriptions connection `earlier` (its id) left on, for `waited` seconds.
        case notificationsNotRestored(
            Connection, earlier: Int, subscriptions: [Connection.Subscription], encrypted: Int, waited: Double)
        /// An ATT value too long, and the refusal that answered it, if one did.
        case valueTooLong(Connection, value: TooLongValue, answer: TraceError?)
        /// A service scan filter (`filter`, set `times` times in all) no advertising of the peer
        /// could match.
        case scanFilterUnmatched(Connection, ScanFilterUnmatched)

        // MARK: Connecting

        /// An attempt this host cancelled after `waited` seconds, Android's timeout; when the
        /// capture's scans last heard the peer, and whether any scanned before.
        case connectTimedOut(Connection, waited: Double, heard: Heard?, scanned: Bool)
        /// An attempt to a peer not heard advertising connectably (or long before); whether its
        /// address is a resolvable private one; how long the host waited before cancelling.
        case connectToUnheardPeer(Connection, heard: Heard?, scanned: Bool, resolvable: Bool, waited: Double?)
        /// An attempt to a peer this host was connected (`up`) or connecting to: `other`.
        case connectWhileBusy(Connection, other: Connection, up: Bool, otherRecord: Int?)

        // MARK: Parameters and traffic

        /// Parameters a side asked for that Apple's guidelines do not allow.
        case requestedParameters(
            DiagnosisCollector.ParameterRequest, broken: [DiagnosisCollector.GuidelineViolation])
        /// The parameters a link ran with (interval, latency in 1.25 ms and 10 ms units),
        /// outside Apple's guidelines.
        case linkParameters(
            interval: UInt16, latency: UInt16, timeout: UInt16, broken: [DiagnosisCollector.GuidelineViolation])
        /// A connection's traffic: its requests' latencies (seconds: min, median, p95, max), its
        /// notifications and their rate per second, its gaps and the longest.
        case traffic(
            requests: Int, latencies: [Double], notifications: Int, perSecond: Double?, gaps: Int,
            longestGap: Double?, gapFrom: Int?, gapTo: Int?)
    }

    /// When a scan of the capture last heard a peer advertising, and whether connectably.
    public struct Heard: Hashable, Sendable, Codable {
        public var time: Timestamp
        public var connectable: Bool
    }

    /// A procedure that completed on a link just before the peer ended it: its kind, with the
    /// record that started it (if seen) and its completion's.
    public struct Procedure: Hashable, Sendable, Codable {
        /// The procedure, with the values it ended with.
        public enum Kind: Hashable, Sendable, Codable {
            case phy(tx: UInt8, rx: UInt8)
            case dataLength(tx: UInt16, rx: UInt16)
            case encryption(refresh: Bool)
            case mtuExchange(mtu: UInt16)
        }
        public var kind: Kind
        public var start: Int?
        public var record: Int
        public var time: Timestamp
    }

    /// An ATT value too long (``DiagnosisRule/valueTooLong``).
    public typealias TooLongValue = TooLong

    /// A scan filter no advertising of the peer matched (``DiagnosisRule/scanFilterUnmatched``).
    public struct ScanFilterUnmatched: Hashable, Sendable, Codable {
        /// The vendor command that set it (Android's APCF, 0xFD57).
        public var command: UInt16
        public var service: BluetoothUUID
        /// The discovery that showed the service in the peer's database.
        public var serviceRecord: Int
        /// The filter's index, its command's record and its completion's.
        public var filterIndex: UInt8
        public var filterRecord: Int
        public var filterComplete: Int?
        /// How many times a filter on the service was set.
        public var times: Int
        /// The advertising reports heard from the peer, the first of them, the service UUIDs they
        /// listed.
        public var reports: Int
        public var firstReport: Int?
        public var advertised: [BluetoothUUID]
        /// Whether any device the capture heard advertised the service.
        public var anyoneAdvertised: Bool
    }
}
