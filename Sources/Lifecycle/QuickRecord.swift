import ATT
import HCI

/// One of the commonest records of a capture, as ``TraceDecoder/decode(_:into:)`` recognises it
/// from its bytes, with no ``DecodedRecord`` built: what the analyzers need of it, and nothing
/// else.
///
/// In a capture of a connection's ordinary traffic most records are ATT notifications, writes
/// without response and reads, ACL fragments of them, and Number Of Completed Packets events;
/// none of them carries an error. A quick record has decoded cleanly in every layer it has: a
/// record that would carry a ``DecodedRecord/fault`` or ``DecodedRecord/lostFragments`` is never
/// quick.
public enum QuickRecord: Hashable, Sendable {
    /// An ACL packet gathered into an L2CAP frame that is not complete yet, on this connection
    /// handle.
    case fragment(connection: UInt16)
    /// A complete Handle Value Notification, Write Command, Read Request or Read Response on this
    /// connection handle: its opcode, the attribute handle it names (0 for a Read Response, which
    /// names none), and its length in bytes (the L2CAP payload). (Scalars only, not an
    /// `ATTPDU`: a quick record is copied as a few words.)
    case att(connection: UInt16, opcode: ATTOpcode, attribute: UInt16, length: Int)
    /// An HCI event the HCI decoder keeps raw (`HCIEvent.unknown(code:parameters:)`), such as
    /// Number Of Completed Packets.
    case event(HCIEventCode)

    /// The quick form of the ATT PDU in `bytes` (the whole L2CAP payload, at least its opcode), if
    /// it has one: a PDU ``ATTPDU/decode(_:)`` decodes without a fault, of a kind no analyzer
    /// reads more of than its opcode and attribute handle. (No Error Response, nothing that
    /// discovery or a subscription reads: those take the full path.)
    @inline(__always)
    static func att(connection: UInt16, _ bytes: UnsafeRawBufferPointer) -> QuickRecord? {
        let opcode = bytes[0]
        switch opcode {
        // (A Write Command of two bytes whose value a Client Characteristic Configuration takes,
        // 0x0000-0x0003, may turn notifications or indications on or off: it takes the full
        // path.)
        case 0x1B where bytes.count >= 3,
            0x52 where bytes.count >= 3 && !(bytes.count == 5 && bytes[3] <= 3 && bytes[4] == 0),
            0x0A where bytes.count == 3:
            let attribute = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt16.self))
            return .att(
                connection: connection, opcode: ATTOpcode(rawValue: opcode), attribute: attribute, length: bytes.count)
        case 0x0B:
            return .att(connection: connection, opcode: .readResponse, attribute: 0, length: bytes.count)
        default:
            return nil
        }
    }

    /// The event codes `HCIEvent.decode(_:)` reads fields from; every other event is kept raw.
    static func isRaw(_ code: UInt8) -> Bool {
        switch code {
        case 0x03, 0x05, 0x0E, 0x0F, 0x3E: false
        default: true
        }
    }
}
