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

    /// A record with nothing decoded: no packet, no fault.
    public init() {}

    init(
        packet: HCIPacket?, l2cap: L2CAPFrame? = nil, att: ATTPDU? = nil, smp: SMPPDU? = nil,
        fault: DecodeError? = nil, lostFragments: DecodeError? = nil
    ) {
        self.packet = packet
        self.l2cap = l2cap
        self.att = att
        self.smp = smp
        self.fault = fault
        self.lostFragments = lostFragments
    }

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
    /// The ATT PDU of the last quick ``QuickRecord/att(connection:opcode:attribute:length:)``
    /// returned (opcode and parameters): valid, as the record's bytes are, until the next record.
    public private(set) var quickPDU = UnsafeRawBufferPointer(start: nil, count: 0)

    public init() {}

    public mutating func decode(_ record: CaptureRecord) -> DecodedRecord {
        var decoded = DecodedRecord()
        decodeWhole(record, into: &decoded)
        return decoded
    }

    /// Decodes `record` as ``decode(_:)`` does, but returns the commonest records in their
    /// ``QuickRecord`` form instead, with no ``DecodedRecord`` built: then `decoded` is left as it
    /// was. Otherwise `decoded` is the whole record, decoded, and the result is nil.
    ///
    /// Feed a quick record to the `add(_:_:)` of ``LifecycleAnalyzer`` and ``ErrorCollector`` that
    /// take one: they do with it exactly what they do with its full decoding. `decoded` is the
    /// caller's, kept across records, so that the full decoding is written in place.
    @inline(__always)
    public mutating func decode(_ record: CaptureRecord, into decoded: inout DecodedRecord) -> QuickRecord? {
        let bytes = record.bytes
        switch record.kind {
        case .acl:
            // The commonest record of all first, read in place: a start fragment that holds its
            // whole frame, on a handle and direction with no frame being gathered (so that the
            // reassembler would hand the packet back as it is, and change nothing), carrying a
            // quick ATT PDU. ACL header (handle and flags, length), then the L2CAP basic header
            // (length, channel), then the opcode.
            if bytes.count >= 9 {
                let word = UInt16(littleEndian: bytes.loadUnaligned(as: UInt16.self))
                let handle = word & 0x0FFF
                let data = Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
                let length = Int(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt16.self)))
                let channel = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 6, as: UInt16.self))
                if word >> 12 & 0x3 != 0b01, data <= bytes.count - 4, length >= 1, data >= 4 + length,
                    channel == L2CAPChannelID.att.rawValue, handle != ACLPacket.androidDebugHandle,
                    !reassembler.isGathering(handle: handle, direction: record.direction)
                {
                    let pdu = UnsafeRawBufferPointer(rebasing: bytes[8..<8 + length])
                    if let quick = QuickRecord.att(connection: handle, pdu) {
                        quickPDU = pdu
                        return quick
                    }
                }
            }
            return decodeACL(record, into: &decoded)
        case .event:
            // Code, parameter length, then the parameters, which a raw event keeps whole.
            if bytes.count >= 2, Int(bytes[1]) <= bytes.count - 2, QuickRecord.isRaw(bytes[0]) {
                return .event(HCIEventCode(rawValue: bytes[0]))
            }
        default:
            break
        }
        decodeWhole(record, into: &decoded)
        return nil
    }

    /// ``decode(_:into:)`` of any other ACL packet: through the reassembler, quick when it leaves a
    /// fragment gathered or completes a quick ATT PDU's frame.
    @inline(never)
    private mutating func decodeACL(_ record: CaptureRecord, into decoded: inout DecodedRecord) -> QuickRecord? {
        let bytes = record.bytes
        whole: do {
            guard let acl = try? ACLPacket.decode(bytes), acl.handle != ACLPacket.androidDebugHandle else {
                break whole
            }
            let outcome = reassembler.push(acl, direction: record.direction)
            if outcome.fault == nil {
                guard let frame = outcome.frame else { return .fragment(connection: acl.handle) }
                // A basic header, then an opcode at least.
                if frame.count >= 5 {
                    let length = Int(UInt16(littleEndian: frame.loadUnaligned(as: UInt16.self)))
                    let channel = UInt16(littleEndian: frame.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
                    if channel == L2CAPChannelID.att.rawValue, length >= 1, length <= frame.count - 4 {
                        let pdu = UnsafeRawBufferPointer(rebasing: frame[4..<4 + length])
                        if let quick = QuickRecord.att(connection: acl.handle, pdu) {
                            quickPDU = pdu
                            return quick
                        }
                    }
                }
            }
            frameLayers(acl, outcome, record, into: &decoded)
            return nil
        }
        decodeWhole(record, into: &decoded)
        return nil
    }

    /// Every layer of `record`, written over `decoded` (every field of it).
    @inline(never)
    private mutating func decodeWhole(_ record: CaptureRecord, into decoded: inout DecodedRecord) {
        switch record.kind {
        case .acl:
            // (The ACL layer is decoded here and its frame by ``frameLayers``, the same code as the
            // quick path's.)
            let acl: ACLPacket
            do throws(DecodeError) {
                acl = try ACLPacket.decode(record.bytes)
            } catch {
                decoded = DecodedRecord(packet: nil, fault: located(error, record))
                return
            }
            guard acl.handle != ACLPacket.androidDebugHandle else {
                decoded = DecodedRecord(packet: .acl(acl))
                return
            }
            frameLayers(acl, reassembler.push(acl, direction: record.direction), record, into: &decoded)
        default:
            do throws(DecodeError) {
                let packet = try HCIPacket.decode(kind: record.kind, record.bytes)
                if case .event(.disconnectionComplete(let status, let handle, _)) = packet, status == .success {
                    reassembler.reset(handle: handle)
                }
                decoded = DecodedRecord(packet: packet)
            } catch {
                decoded = DecodedRecord(packet: nil, fault: located(error, record))
            }
        }
    }

    /// The layers above ACL: the L2CAP frame the packet completed, and its ATT or SMP PDU.
    private func frameLayers(
        _ acl: ACLPacket, _ outcome: ACLReassembler.Outcome, _ record: CaptureRecord, into decoded: inout DecodedRecord
    ) {
        decoded.packet = .acl(acl)
        decoded.lostFragments = outcome.fault
        decoded.l2cap = nil
        decoded.att = nil
        decoded.smp = nil
        decoded.fault = nil
        guard let frame = outcome.frame else { return }
        do throws(DecodeError) {
            let l2cap = try L2CAPFrame.decode(frame)
            decoded.l2cap = l2cap
            if l2cap.channel == .att { decoded.att = try ATTPDU.decode(l2cap.payload) }
            if l2cap.channel == .smp { decoded.smp = try SMPPDU.decode(l2cap.payload) }
        } catch {
            decoded.fault = located(error, record)
        }
    }

    private func located(_ error: DecodeError, _ record: CaptureRecord) -> DecodeError {
        var located = error
        located.recordIndex = record.index
        return located
    }
}
