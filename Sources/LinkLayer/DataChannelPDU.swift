import Wire

/// A data physical channel PDU: a 16-bit header (and a CTEInfo byte when its CP bit is set), then
/// the payload. Core 6.0, Vol 6, Part B, §2.4. The payload is a view into the record.
package struct DataChannelPDU {
    /// The header's first byte: LLID (bits 0-1), NESN (2), SN (3), MD (4), CP (5), RFU (6-7).
    package var header: UInt8
    /// The payload's length, from the header's second byte.
    package var length: Int
    /// The Constant Tone Extension information, when CP is set.
    package var cteInfo: UInt8?
    package var payload: UnsafeRawBufferPointer
    /// Where the payload starts, counted from the start of the link-layer packet.
    package var payloadOffset: Int

    package var llid: LLID { LLID(rawValue: header & 0x03) }
    package var nesn: UInt8 { header >> 2 & 1 }
    package var sn: UInt8 { header >> 3 & 1 }
    package var moreData: Bool { header & 0x10 != 0 }
    package var ctePresent: Bool { header & 0x20 != 0 }
    /// An Empty PDU: LLID 01 with no payload (Core 6.0, Vol 6, Part B, §2.4.1).
    package var isEmpty: Bool { llid == .continuation && length == 0 }

    /// Reads the header and payload at `reader`'s offset.
    static func decode(_ reader: inout ByteReader) throws(DecodeError) -> DataChannelPDU {
        let start = reader.offset
        let header = try reader.u8("data PDU header (2 bytes)")
        let length = Int(try reader.u8("data PDU header (2 bytes)"))
        var cteInfo: UInt8?
        if header & 0x20 != 0 { cteInfo = try reader.u8("CTEInfo (1 byte, the CP bit is set)") }
        guard length <= reader.remaining else {
            throw DecodeError(
                layer: .linkLayer, offset: start + 1,
                expected: "\(length) bytes of PDU payload, as the length field says, not \(reader.remaining)")
        }
        let payloadOffset = reader.offset
        let payload = try reader.bytes(length, "PDU payload")
        return DataChannelPDU(
            header: header, length: length, cteInfo: cteInfo, payload: payload, payloadOffset: payloadOffset)
    }
}

/// The LLID of a data channel PDU. Core 6.0, Vol 6, Part B, §2.4.
package struct LLID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: UInt8
    @inlinable package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0b01: a continuation fragment of an L2CAP message, or an Empty PDU.
    package static var continuation: Self { .init(rawValue: 0b01) }
    /// 0b10: the start of an L2CAP message, or a complete one.
    package static var start: Self { .init(rawValue: 0b10) }
    /// 0b11: an LL control PDU.
    package static var control: Self { .init(rawValue: 0b11) }

    package var description: String {
        switch rawValue {
        case 0b01: "LL data continuation"
        case 0b10: "LL data start"
        case 0b11: "LL control"
        default: "LLID(0b00, reserved)"
        }
    }
}
