import HCI
import Wire

/// One link-layer packet as sent over the air, without its preamble: access address, PDU, CRC.
///
/// Core 6.0, Vol 6, Part B, §2.1 (uncoded) and §2.2 (coded: a coding indicator follows the
/// access address). The PDU is an advertising physical channel PDU (§2.3) on the advertising
/// access address, and a data physical channel PDU (§2.4) on a connection's. Views borrow the
/// record's bytes.
package struct LinkLayerPacket {
    /// Core 6.0, Vol 6, Part B, §2.1.2: the access address of every advertising channel packet.
    package static let advertisingAccessAddress: UInt32 = 0x8E89_BED6

    package var accessAddress: UInt32
    /// The coded PHY's coding indicator (0 S=8, 1 S=2); nil on the uncoded PHYs.
    package var codingIndicator: UInt8?
    package var pdu: PDU
    /// The 24-bit CRC as the specification numbers its bits (Core 6.0, Vol 6, Part B, §3.1.1:
    /// sent most significant bit first, so the capture's three bytes, read least significant
    /// bit first, hold it bit-reversed); nil when the capture cut it off.
    package var crc: UInt32?
    /// The CRC's three bytes as the capture holds them, read little-endian.
    package var crcField: UInt32?
    /// The bytes the CRC covers: PDU header and payload.
    package var protectedBytes: UnsafeRawBufferPointer
    /// Where the PDU header starts in the bytes given to ``decode(_:isAdvertising:phy:offset:)``.
    package var pduOffset: Int

    package enum PDU {
        case advertising(AdvertisingPDU)
        case data(DataChannelPDU)
    }

    /// Decodes the packet at the start of `bytes`. `isAdvertising` overrides the access address
    /// when a sniffer header says which channel type it is; `channel` (the channel index) tells
    /// a primary advertising PDU from an auxiliary one. Error offsets count from the start of
    /// `bytes`.
    package static func decode(
        _ bytes: UnsafeRawBufferPointer, isAdvertising: Bool? = nil, phy: LinkLayerPHY = .le1M, channel: UInt8? = nil
    ) throws(DecodeError) -> LinkLayerPacket {
        var reader = ByteReader(bytes, layer: .linkLayer)
        let accessAddress = try reader.u32le("access address (4 bytes)")
        var codingIndicator: UInt8?
        if phy == .leCoded { codingIndicator = try reader.u8("coding indicator (1 byte)") & 0x03 }
        let start = reader.offset
        let advertising = isAdvertising ?? (accessAddress == advertisingAccessAddress)
        let pdu: PDU
        if advertising {
            let header = try reader.u8("advertising PDU header (2 bytes)")
            let length = Int(try reader.u8("advertising PDU header (2 bytes)"))
            guard length <= reader.remaining else {
                throw DecodeError(
                    layer: .linkLayer, offset: start + 1,
                    expected: "\(length) bytes of PDU payload, as the length field says, not \(reader.remaining)")
            }
            let payload = try reader.bytes(length, "PDU payload")
            pdu = .advertising(
                try AdvertisingPDU.decode(header: header, payload: payload, payloadOffset: start + 2, channel: channel))
        } else {
            pdu = .data(try DataChannelPDU.decode(&reader))
        }
        let protected = UnsafeRawBufferPointer(rebasing: bytes[start..<reader.offset])
        let field: UInt32? = reader.remaining >= 3 ? try reader.u24le("CRC (3 bytes)") : nil
        return LinkLayerPacket(
            accessAddress: accessAddress, codingIndicator: codingIndicator, pdu: pdu, crc: field.map(Self.reversed24),
            crcField: field, protectedBytes: protected, pduOffset: start)
    }

    /// The low 24 bits of `value` in reverse order.
    static func reversed24(_ value: UInt32) -> UInt32 {
        var result: UInt32 = 0
        for bit in 0..<24 where value >> UInt32(bit) & 1 != 0 { result |= 1 << UInt32(23 - bit) }
        return result
    }

    /// Core 6.0, Vol 6, Part B, §3.1.1: the CRC of `bytes` from the shift register preset to
    /// `initial` (the CRCInit of the connection, 0x555555 on the advertising channels), in the
    /// capture's bit order (comparable with ``crcField``).
    package static func crc(of bytes: UnsafeRawBufferPointer, initial: UInt32) -> UInt32 {
        var state = reversed24(initial & 0xFF_FFFF)
        for var byte in bytes {
            for _ in 0..<8 {
                let bit = (state ^ UInt32(byte)) & 1
                byte >>= 1
                state >>= 1
                if bit != 0 { state = (state | 1 << 23) ^ 0x5A_6000 }
            }
        }
        return state
    }

    /// Whether the CRC checks out with `initial`; nil when the capture has no CRC.
    package func crcMatches(initial: UInt32) -> Bool? {
        crcField.map { Self.crc(of: protectedBytes, initial: initial) == $0 }
    }
}
