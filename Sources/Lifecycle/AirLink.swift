import HCI
import Wire

/// Which side of an over-the-air capture's connections is "this host", the one whose HCI the
/// analyses read (the phone, in bletrace's questions). Formats/link-layer.md, "Lifecycles".
public enum AirHost: String, Hashable, Sendable, Codable, CaseIterable {
    /// The central (initiator): what a phone usually is. The default.
    case central
    /// The peripheral (advertiser): for a capture of a phone acting as a peripheral.
    case peripheral
}

/// How an over-the-air capture is read for the analyses: which side is this host, and the
/// long-term keys to decrypt encrypted links with.
public struct AirOptions: Hashable, Sendable {
    public var host: AirHost
    /// Long-term keys, 16 octets each, least significant first (as SMP's Encryption Information
    /// carries them).
    public var keys: [[UInt8]]

    public init(host: AirHost = .central, keys: [[UInt8]] = []) {
        self.host = host
        self.keys = keys
    }
}

/// What an over-the-air capture showed beyond its HCI records: its own records and times, and
/// its links (``AnalysisReader/air``).
package struct AirCapture: Hashable, Sendable {
    /// The air records read, and the first's and last's times.
    package var records = 0
    package var firstTime: Timestamp?
    package var lastTime: Timestamp?
    package var links: [AirLink] = []

    package init() {}
}

/// What the air shows of one connection beyond what its host's HCI would: the link's own
/// parameters and changes, each side's packets, and what went wrong on the radio. Attached to the
/// connection the lifecycle made from the same link (``Connection/air``).
public struct AirLink: Hashable, Sendable, Codable {
    /// The connection's link-layer number in the capture (0-based, `conn N` in `decode`), which
    /// is also the handle the analyses know it by.
    public var index: Int
    public var accessAddress: UInt32
    public var central: BluetoothAddress?
    public var peripheral: BluetoothAddress?
    /// Which side the analyses took as this host.
    public var host: AirHost
    /// The record (0-based) of the CONNECT_IND; nil when the capture joined the link later.
    public var connectRecord: Int?
    /// Where the capture joined a link it did not see begin: its first data PDU (0-based).
    public var joinedRecord: Int?
    /// The channel map in use at the end (bit n: data channel n), the hop increment, and the
    /// transmit window of the CONNECT_IND (1.25 ms units).
    public var channelMap: UInt64?
    public var hop: UInt8?
    public var windowSize: UInt8?
    public var windowOffset: UInt16?
    /// Packets heard with a good CRC (Empty PDUs included) from each side.
    public var centralPackets = 0
    public var peripheralPackets = 0
    /// Packets whose CRC did not check out (they change nothing).
    public var crcErrors = 0
    /// Packets that repeat their sender's last one (not acknowledged by the other side).
    public var retransmissions = 0
    /// Connection events the capture heard nothing in: from the sniffer's event counters where
    /// its header gives them (nRF Sniffer), else from the time between the events it did hear
    /// (the central sends in every event).
    public var missedEvents = 0
    /// Connection events heard.
    public var events = 0
    /// Encryption was started on the link (LL_START_ENC_REQ).
    public var encrypted = false
    /// Encrypted PDUs with a payload: decrypted (with a key given, or by the sniffer itself: the
    /// nRF Sniffer's MIC-checked flag, the LE RF header's decrypted flag), not decrypted, or
    /// whose MIC no key given checks.
    public var decryptedPackets = 0
    public var undecryptedPackets = 0
    public var micFailures = 0
    /// The record (0-based) of the first encrypted PDU that could not be decrypted.
    public var firstUndecryptedRecord: Int?
    /// The LL_TERMINATE_IND that ended the link: who sent it, and its reason.
    public var terminatedBy: AirHost?
    public var terminateReason: HCIStatus?
    /// The link went silent for longer than its supervision timeout while the capture went on:
    /// the analyses take it as a supervision timeout (reason 0x08), which is an inference (a
    /// sniffer that lost the link looks the same).
    public var supervisionTimeoutInferred = false
    /// The link's end inferred from what came after it (an inference): the same two devices
    /// connected again, or its peripheral advertised connectably, at `evidenceRecord`, while the
    /// link was still open; `lastControlRecord` is its last LL control PDU the capture could not
    /// read (encrypted), most likely the LL_TERMINATE_IND that ended it, and `lastControlSender`
    /// who sent it.
    public var endInferred: InferredEnd?

    /// The evidence the link had ended, and its last LL control PDU the capture could not read.
    public struct InferredEnd: Hashable, Sendable, Codable {
        public var evidenceRecord: Int
        /// Why the evidence ends the link: `reconnected` or `advertised`.
        public var evidence: String
        public var lastControlRecord: Int?
        public var lastControlSender: AirHost?
    }
    /// The link-layer procedures that changed the link, at their instants.
    public var updates: [Update] = []

    /// A link-layer procedure that changed the link, and the instant it took effect.
    public struct Update: Hashable, Sendable, Codable {
        /// The procedure, with the values it set.
        public enum Kind: Hashable, Sendable, Codable {
            /// LL_CONNECTION_UPDATE_IND: interval (1.25 ms), latency, supervision timeout (10 ms).
            case parameters(interval: UInt16, latency: UInt16, timeout: UInt16)
            /// LL_CHANNEL_MAP_IND: the data channels used from the instant on.
            case channelMap(UInt64)
            /// LL_PHY_UPDATE_IND: each direction's PHY (1 LE 1M, 2 LE 2M, 3 LE Coded; 0 unchanged).
            case phy(centralToPeripheral: UInt8, peripheralToCentral: UInt8)
        }
        /// The record (0-based) of the PDU that asked for it, its instant, and when the capture
        /// reached the instant (nil: the capture ended or the link closed first).
        public var record: Int
        public var instant: UInt16
        public var applied: Timestamp?
        public var kind: Kind
    }

    public init(index: Int, accessAddress: UInt32, host: AirHost) {
        self.index = index
        self.accessAddress = accessAddress
        self.host = host
    }

    /// How many data channels the channel map uses.
    public var usedChannels: Int? { channelMap.map { ($0 & 0x1F_FFFF_FFFF).nonzeroBitCount } }
}
