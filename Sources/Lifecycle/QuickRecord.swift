import ATT
import HCI

/// One of the commonest records of a capture, as ``TraceDecoder/decode(_:into:)`` recognises it
/// from its bytes, with no ``DecodedRecord`` built: what the analyzers need of it, and nothing
/// else.
///
/// In a capture of a connection's ordinary traffic most records are ATT notifications, ACL
/// fragments of them, and Number Of Completed Packets events; none of them changes a lifecycle
/// beyond a count, none carries an error. A quick record has decoded cleanly in every layer it
/// has: a record that would carry a ``DecodedRecord/fault`` or ``DecodedRecord/lostFragments``
/// is never quick.
public enum QuickRecord: Hashable, Sendable {
    /// An ACL packet gathered into an L2CAP frame that is not complete yet, on this connection
    /// handle.
    case fragment(connection: UInt16)
    /// A complete Handle Value Notification or Write Command on this connection handle; `length`
    /// is the ATT PDU's length in bytes (the L2CAP payload).
    case att(connection: UInt16, opcode: ATTOpcode, length: Int)
    /// An HCI event the HCI decoder keeps raw (``HCIEvent/unknown(code:parameters:)``), such as
    /// Number Of Completed Packets.
    case event(HCIEventCode)

    /// The ATT opcodes a quick record may carry: neither needs a request, an answer or an
    /// attribute to be understood.
    static func isQuick(_ opcode: UInt8) -> Bool { opcode == 0x1B || opcode == 0x52 }

    /// The event codes ``HCIEvent/decode(_:)`` reads fields from; every other event is kept raw.
    static func isRaw(_ code: UInt8) -> Bool {
        switch code {
        case 0x03, 0x05, 0x0E, 0x0F, 0x3E: false
        default: true
        }
    }
}
