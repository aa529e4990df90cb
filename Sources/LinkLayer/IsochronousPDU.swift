import Wire

/// An isochronous physical channel PDU: a connected isochronous stream's (CIS) or a broadcast
/// isochronous stream's (BIS). Core 6.0, Vol 6, Part B, §2.6: a 16-bit header, then the payload.
/// Its payload is isochronous data (or, LLID 0b11 on a BIS, a BIG control PDU), shown as bytes,
/// and for framed PDUs (LLID 0b10) as its segments (Vol 6, Part G, §6.2). Views borrow the
/// record's bytes.
package struct IsochronousPDU {
    package enum Kind: String, Hashable, Sendable {
        case connected = "CIS"
        case broadcast = "BIS"
    }

    package var kind: Kind
    /// The header's first byte. CIS: LLID (bits 0-1), NESN (2), SN (3), CIE (4), RFU (5), NPI (6),
    /// RFU (7). BIS: LLID (0-1), CSSN (2-4), CSTF (5), RFU (6-7).
    package var header: UInt8
    package var length: Int
    package var payload: UnsafeRawBufferPointer

    /// 0b00 unframed, end or whole SDU; 0b01 unframed, start or continuation; 0b10 framed;
    /// 0b11 BIG control (BIS) or reserved (CIS).
    package var llid: UInt8 { header & 0x03 }
    package var isFramed: Bool { llid == 0b10 }
    package var nesn: UInt8? { kind == .connected ? header >> 2 & 1 : nil }
    package var sn: UInt8? { kind == .connected ? header >> 3 & 1 : nil }
    /// Close Isochronous Event.
    package var cie: Bool? { kind == .connected ? header & 0x10 != 0 : nil }
    /// Null PDU Indicator: the PDU carries no data.
    package var npi: Bool? { kind == .connected ? header & 0x40 != 0 : nil }
    /// Control Subevent Sequence Number.
    package var cssn: UInt8? { kind == .broadcast ? header >> 2 & 0x07 : nil }
    /// Control Subevent Transmission Flag.
    package var cstf: Bool? { kind == .broadcast ? header & 0x20 != 0 : nil }

    /// One segment of a framed PDU: a 2-octet segmentation header (SC, CMPLT, RFU, Length),
    /// a 3-octet TimeOffset when it starts an SDU (SC 0), then its data.
    package struct Segment: Hashable, Sendable {
        /// SC: the segment continues an SDU (no TimeOffset).
        package var continuation: Bool
        /// CMPLT: the segment ends an SDU.
        package var complete: Bool
        package var timeOffset: UInt32?
        /// Octets of SDU data in the segment.
        package var length: Int
    }

    /// The segments of a framed PDU, in order; nil for an unframed one. A segment whose length
    /// runs past the payload is a fault.
    package func segments() throws(DecodeError) -> [Segment]? {
        guard isFramed else { return nil }
        var reader = ByteReader(payload, layer: .linkLayer)
        var out: [Segment] = []
        while reader.remaining > 0 {
            let flags = try reader.u8("segmentation header (2 bytes)")
            let length = Int(try reader.u8("segmentation header (2 bytes)"))
            var segment = Segment(continuation: flags & 0x01 != 0, complete: flags & 0x02 != 0, length: length)
            var data = length
            if !segment.continuation {
                segment.timeOffset = try reader.u24le("TimeOffset (3 bytes)")
                data -= 3
                segment.length = data
            }
            guard data >= 0 else {
                throw reader.error("a segment at least as long as its TimeOffset (3 bytes), not \(length)")
            }
            _ = try reader.bytes(data, "\(data) bytes of segment data")
            out.append(segment)
        }
        return out
    }

    /// Decodes the PDU from `bytes`: its header and the payload the length says. Offsets count
    /// from the header.
    package static func decode(_ bytes: UnsafeRawBufferPointer, kind: Kind) throws(DecodeError) -> IsochronousPDU {
        var reader = ByteReader(bytes, layer: .linkLayer)
        let header = try reader.u8("isochronous PDU header (2 bytes)")
        let length = Int(try reader.u8("isochronous PDU header (2 bytes)"))
        let payload = try reader.bytes(length, "\(length) bytes of payload, as the length field says")
        return IsochronousPDU(kind: kind, header: header, length: length, payload: payload)
    }
}
