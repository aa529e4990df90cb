import ATT
import HCI
import TraceFiles
import Wire

/// One capture record decoded through every layer bletrace knows.
///
/// All views borrow from the record's bytes or from the decoder's reassembly buffers: valid until
/// the next record is decoded.
public struct DecodedRecord {
    /// The HCI packet; nil for records that are not HCI (kind `.other`) or that failed to decode.
    public var packet: HCIPacket?
    /// The L2CAP frame this record completed, if it completed one.
    public var l2cap: L2CAPFrame?
    /// The ATT PDU of that frame, on the ATT channel.
    public var att: ATTPDU?
    /// The SMP command of that frame, on the Security Manager channel.
    public var smp: SMPPDU?
    /// Why a layer of this record could not be decoded.
    public var fault: DecodeError?
    /// ACL fragments lost before this record (reported on the record that revealed the loss).
    public var lostFragments: DecodeError?

    /// The connection handle the record is about, where it names one.
    public var handle: UInt16? {
        switch packet {
        case .acl(let acl): acl.handle
        case .command(.disconnect(let handle, _)): handle
        case .event(.disconnectionComplete(_, let handle, _)): handle
        case .event(.connectionComplete(_, let handle, _, _)): handle
        case .event(.le(.connectionComplete(let complete))): complete.handle
        default: nil
        }
    }
}

/// Decodes capture records: HCI, then per-handle ACL reassembly, L2CAP and ATT.
///
/// Keeps the state decoding needs across records (the reassembly buffers); allocates nothing per
/// record once every handle in use has been seen.
public struct TraceDecoder {
    private var reassembler = ACLReassembler()

    public init() {}

    public mutating func decode(_ record: CaptureRecord) -> DecodedRecord {
        // Each layer goes into a local, and the record is built once at the end, straight into
        // the caller's storage: a DecodedRecord is some 230 bytes, and this runs once a record.
        var packet: HCIPacket?
        var l2cap: L2CAPFrame?
        var att: ATTPDU?
        var smp: SMPPDU?
        var fault: DecodeError?
        var lostFragments: DecodeError?
        do throws(DecodeError) {
            let decoded = try HCIPacket.decode(kind: record.kind, record.bytes)
            packet = decoded
            switch decoded {
            case .acl(let acl):
                guard acl.handle != ACLPacket.androidDebugHandle else { break }
                let outcome = reassembler.push(acl, direction: record.direction)
                lostFragments = outcome.fault
                guard let frame = outcome.frame else { break }
                let frameDecoded = try L2CAPFrame.decode(frame)
                l2cap = frameDecoded
                if frameDecoded.channel == .att { att = try ATTPDU.decode(frameDecoded.payload) }
                if frameDecoded.channel == .smp { smp = try SMPPDU.decode(frameDecoded.payload) }
            case .event(.disconnectionComplete(let status, let handle, _)) where status == .success:
                reassembler.reset(handle: handle)
            default:
                break
            }
        } catch {
            var located = error
            located.recordIndex = record.index
            fault = located
        }
        return DecodedRecord(
            packet: packet, l2cap: l2cap, att: att, smp: smp, fault: fault, lostFragments: lostFragments)
    }
}
