import ATT
import HCI
import Wire

/// One over-the-air capture record decoded through every layer: sniffer header, link-layer
/// packet, and for data channel PDUs the connection, direction, L2CAP frame, ATT PDU or SMP
/// command.
///
/// Views borrow the record's bytes or the decoder's reassembly buffers: valid until the next
/// record is decoded.
package struct LinkLayerRecord {
    package var snifferHeader: SnifferHeader?
    package var packet: LinkLayerPacket?
    /// Whether the packet's CRC is good: the sniffer's check where it made one, else bletrace's
    /// own (advertising channel: CRCInit 0x555555; data channel: the CONNECT_IND's CRCInit).
    /// Nil when neither could check. A packet with a bad CRC is shown but changes no state.
    package var crcOK: Bool?
    /// True when ``crcOK`` is the sniffer's word rather than bletrace's own check.
    package var crcCheckedBySniffer = false
    /// The LL control PDU of an LLID 0b11 data PDU.
    package var control: LLControlPDU?
    /// The connection the packet belongs to (data channel PDUs, and the CONNECT_IND that made it).
    package var connection: LinkLayerConnection?
    /// Which way the packet went on its connection, where known.
    package var direction: LinkLayerDirection?
    /// How ``direction`` was learned.
    package var directionSource: DirectionSource?
    /// True for a data PDU that repeats the last one from the same side (its SN, LLID and
    /// payload): a retransmission the peer had not acknowledged. Its payload is not passed to
    /// L2CAP again.
    package var isRetransmission = false
    /// True for a data PDU whose payload is ciphertext bletrace cannot read: sent after the
    /// connection's LL_START_ENC_REQ (or flagged encrypted by the nRF Sniffer, which did not
    /// decrypt it). Its payload (with its 4-byte MIC) is not decoded as LL control or L2CAP.
    package var isEncrypted = false
    /// True for an encrypted PDU decrypted with a key given to the decoder (`--ltk`): its
    /// payload (in ``packet``) is the plaintext, without its MIC, and is decoded as any other.
    package var decrypted = false
    /// True for an encrypted PDU that keys were given for but none decrypts: its MIC does not
    /// check out (a wrong key, a missed PDU that put the packet counter out of step, or damage).
    package var micFailed = false
    /// For a retransmission: the record (0-based) of the PDU it repeats.
    package var repeats: Int?
    /// The L2CAP frame this PDU completed, if it completed one.
    package var l2cap: L2CAPFrame?
    package var att: ATTPDU?
    package var smp: SMPPDU?
    /// What an ATT answer answers: for a response or an Error Response, the request the other
    /// side has outstanding on the connection; for a confirmation, its indication
    /// (``ATTTransactions``).
    package var answering: LinkLayerATTRequest?
    /// Why a layer could not be decoded; offsets count from the start of the record.
    package var fault: DecodeError?
    /// L2CAP fragments lost before this PDU.
    package var lostFragments: DecodeError?
    /// A CIS or BIS PDU (on the access address an LL_CIS_IND gave, or so marked by the LE RF
    /// header's PDU type 4-6): read as an isochronous PDU, not as a data channel PDU (``packet``
    /// keeps its data-channel reading, which nothing else uses). No connection state changes.
    package var isochronous: IsochronousPDU?
    /// An auxiliary advertising PDU's place in its chain (AUX_ADV_IND, AUX_SCAN_RSP or
    /// AUX_SYNC_IND as a head, AUX_CHAIN_IND after it), with what the head said of the advertiser.
    package var chain: AdvertisingChainLink?
    /// On the last AUX_CHAIN_IND of a chain: the data of the whole chain, head first, joined (AD
    /// structures may be cut across its PDUs). A view into the decoder, valid until the next record.
    package var chainData: AdvertisingData?
    /// Chains whose next PDU was due before this record and was not heard (each given by the
    /// last link heard): their data ends truncated.
    package var lostChains: [AdvertisingChainLink] = []

    package init() {}

    package enum DirectionSource: String, Hashable, Sendable {
        /// The sniffer's pseudo-header says (nRF Sniffer's direction flag, the LE RF header's PDU type).
        case header
        /// Inferred from timing: a packet that follows the previous one on its connection within
        /// the inter-frame space answers it; any other opens a connection event, which the
        /// central does.
        case timing
    }
}

/// An ATT request (or indication) as the link-layer decoder remembers it, to read the answer to it.
package struct LinkLayerATTRequest: Hashable, Sendable {
    package var opcode: ATTOpcode
    /// The attribute handle it names, or the start of its range.
    package var handle: UInt16?
    /// The record that carried it (0-based).
    package var record: Int
}

/// A connection as the air shows it: its access address, and from its CONNECT_IND the two
/// devices and the parameters it started with.
package struct LinkLayerConnection: Hashable, Sendable {
    /// 0-based, in the order connections were first seen.
    package var index: Int
    package var accessAddress: UInt32
    /// InitA of the CONNECT_IND; nil for a connection the capture joined after it began.
    package var central: BluetoothAddress?
    package var centralRandom = false
    /// AdvA of the CONNECT_IND.
    package var peripheral: BluetoothAddress?
    package var peripheralRandom = false
    /// The parameters of the CONNECT_IND.
    package var parameters: ConnectionData?
    /// The record of the CONNECT_IND (0-based).
    package var connectRecord: Int?
}
