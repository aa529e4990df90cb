import ATT
import Wire

extension Cassette {
    /// One ATT request (or command, or indication) of a connection and the answer it got.
    ///
    /// Core 6.0, Vol 3, Part F, §3.4. Each answer is paired with its request (or indication) by
    /// ATT's `ATTTransactions` (§3.3.2).
    public struct Exchange: Hashable, Sendable {
        public var opcode: ATTOpcode
        public var time: Timestamp
        public var record: Int
        /// Which side sent the request: `.client` when this host is the GATT client.
        public var sender: Side
        /// The attribute it names: a read's or write's handle, a range's start.
        public var handle: UInt16?
        /// The end of the range of Find Information, Find By Type Value, Read By (Group) Type.
        public var endHandle: UInt16?
        /// Read Multiple (Variable): every handle asked for.
        public var handles: [UInt16] = []
        /// The attribute type asked for (Read By Type, Read By Group Type), or for Find By Type
        /// Value the type (0x2800 …) and in ``value`` the value to match.
        public var type: BluetoothUUID?
        /// The value written (Write, Write Command, Signed Write, Prepare Write, indication).
        public var value: [UInt8] = []
        /// Read Blob's and Prepare Write's offset.
        public var offset: UInt16?
        /// Exchange MTU Request's client MTU; Execute Write's flags.
        public var parameter: UInt16?
        /// Nil while unanswered, and for commands, which have none.
        public var answer: Answer?

        /// Who sent a request.
        public enum Side: String, Hashable, Sendable {
            /// This host's GATT client asked the peer's server.
            case host
            /// The peer's client asked this host's server (or the peer sent an indication).
            case peer
            /// The capture records no direction.
            case unknown
        }

        /// What came back.
        public struct Answer: Hashable, Sendable {
            public var opcode: ATTOpcode
            public var time: Timestamp
            public var record: Int
            /// The ATT error, for an Error Response.
            public var error: ATTErrorCode?
            /// The attribute the Error Response names.
            public var errorHandle: UInt16?
            /// The answer's parameters: a read's value, Exchange MTU Response's server MTU (2
            /// bytes, little-endian), a discovery response's list, a Prepare Write Response's
            /// echo (handle, offset, value).
            public var value: [UInt8]
            /// Seconds from the request.
            public var latency: Double
        }

        /// The request is a GATT client's request (not a command, not an indication).
        public var expectsAnswer: Bool {
            opcode.method == .request || opcode.method == .indication
        }
    }

    /// A GATT procedure as an app sees it: one read, one write, whatever number of ATT PDUs it
    /// took (Read + Read Blob for a long read, Prepare Write … Execute Write for a long or
    /// reliable write, Core 6.0, Vol 3, Part G, §4.8.3, §4.9.4-§4.9.5).
    public struct Operation: Hashable, Sendable {
        /// Which procedure the operation is.
        public enum Kind: String, Hashable, Sendable {
            /// Read Request, and the Read Blob Requests that continued it.
            case read
            /// Read Multiple or Read Multiple Variable.
            case readMultiple
            /// Write Request.
            case write
            /// Prepare Write Requests ended by an Execute Write Request.
            case longWrite
            /// Write Command.
            case writeWithoutResponse
            /// Signed Write Command.
            case signedWrite
            /// Exchange MTU.
            case mtu
            /// Service, characteristic and descriptor discovery (Read By Group Type, Find By Type
            /// Value, Read By Type, Find Information); answered from ``Peer/database``.
            case discovery
            /// Read By Type of a characteristic UUID (Read Using Characteristic UUID).
            case readByType
            /// An indication and its confirmation.
            case indication
            case other
        }

        public var kind: Kind
        public var sender: Exchange.Side
        /// The attribute: first handle of a read or write; for Read Multiple the first of
        /// ``handles``.
        public var handle: UInt16?
        public var handles: [UInt16] = []
        public var time: Timestamp
        /// The ATT exchanges it took: indices into ``Link/exchanges`` from its first to its last
        /// (``Link/exchanges(of:)`` gives them without what the other side sent meanwhile).
        public var exchanges: Range<Int>
        /// For a write: the value written (a long write's prepared parts put together at their
        /// offsets). For a read: the value read (a long read's parts put together).
        public var value: [UInt8]
        /// The ATT error that ended it; nil when it succeeded or went unanswered.
        public var error: ATTErrorCode?
        /// When its last answer came; nil when unanswered or a command.
        public var answerTime: Timestamp?
        /// Seconds from its first request to its last answer.
        public var latency: Double?
        /// Whether the peer answered (commands never are).
        public var answered: Bool { answerTime != nil }
    }

    /// A Handle Value Notification or Indication.
    public struct ValueEvent: Hashable, Sendable {
        public var time: Timestamp
        public var record: Int
        public var handle: UInt16
        public var value: [UInt8]
        public var isIndication: Bool
        /// Who sent it: `.peer` when the peer's server notified this host.
        public var sender: Exchange.Side
        /// An indication's Handle Value Confirmation, when seen.
        public var confirmed: Timestamp?
    }

    /// A Service Changed indication (Core 6.0, Vol 3, Part G, §7.1): the handles whose
    /// attributes may have changed.
    public struct ServiceChange: Hashable, Sendable {
        public var time: Timestamp
        public var record: Int
        public var start: UInt16
        public var end: UInt16
    }

    /// Pairing and encryption on a link. Encryption changes also stay in the connection's
    /// `Connection.changes`.
    public struct SecurityEvent: Hashable, Sendable {
        /// What happened to the link's security.
        public enum Kind: Hashable, Sendable {
            /// SMP Pairing Request, from `sender`.
            case pairingRequested
            /// SMP Security Request (a peripheral asking the central to pair).
            case securityRequested
            /// Another message of a pairing in progress (Pairing Response, Confirm, Random,
            /// Public Key, DHKey Check, Keypress Notification): each restarts SMP's 30-second
            /// timer (Core 6.0, Vol 3, Part H, §3.4).
            case pairingProgressed
            /// SMP Pairing Failed with its reason (Core 6.0, Vol 3, Part H, §3.5.5).
            case pairingFailed(reason: UInt8)
            /// Encryption Change: on or off, and the key size where the event gives it.
            case encryptionChanged(enabled: Bool, keySize: UInt8?)
            /// Encryption Change or Key Refresh with an error status.
            case encryptionFailed(status: UInt8)
        }
        public var time: Timestamp
        public var record: Int
        public var sender: Exchange.Side
        public var kind: Kind
    }
}
