import Wire

/// The LE RF pseudo-header of pcap link type 256 (`BLUETOOTH_LE_LL_WITH_PHDR`), 10 bytes.
///
/// tcpdump.org's LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR page; layout in Formats/link-layer.md. Written
/// by Ubertooth (libbtbb) among others. Multi-byte fields little-endian.
package struct LERFHeader: Hashable, Sendable {
    /// The RF channel, 0-39 (2402 MHz + 2 MHz × channel), not the channel index.
    package var rfChannel: UInt8
    /// dBm; meaningful when ``signalPowerValid``.
    package var signalPower: Int8
    /// dBm; meaningful when ``noisePowerValid``.
    package var noisePower: Int8
    /// Bits of the access address that differ from the reference; meaningful when
    /// ``accessAddressOffensesValid``.
    package var accessAddressOffenses: UInt8
    /// The access address the sniffer listened for; meaningful when ``referenceAccessAddressValid``.
    package var referenceAccessAddress: UInt32
    package var flags: UInt16

    package static let size = 10

    package var dewhitened: Bool { flags & 0x0001 != 0 }
    package var signalPowerValid: Bool { flags & 0x0002 != 0 }
    package var noisePowerValid: Bool { flags & 0x0004 != 0 }
    package var decrypted: Bool { flags & 0x0008 != 0 }
    package var referenceAccessAddressValid: Bool { flags & 0x0010 != 0 }
    package var accessAddressOffensesValid: Bool { flags & 0x0020 != 0 }
    package var channelAliased: Bool { flags & 0x0040 != 0 }
    /// Bits 7-9: 0 advertising or data (direction not given), 1 auxiliary advertising, 2 data
    /// central to peripheral, 3 data peripheral to central, 4 and 5 connected isochronous (same
    /// directions), 6 broadcast isochronous.
    package var pduType: UInt8 { UInt8(flags >> 7 & 0x7) }
    package var crcChecked: Bool { flags & 0x0400 != 0 }
    package var crcValid: Bool { flags & 0x0800 != 0 }
    package var micChecked: Bool { flags & 0x1000 != 0 }
    package var micValid: Bool { flags & 0x2000 != 0 }
    /// Bits 14-15.
    package var phy: LinkLayerPHY { LinkLayerPHY(rawValue: UInt8(flags >> 14)) }

    /// The direction the PDU type field gives, where it gives one.
    package var direction: LinkLayerDirection? {
        switch pduType {
        case 2, 4: .centralToPeripheral
        case 3, 5: .peripheralToCentral
        default: nil
        }
    }

    /// The channel index of ``rfChannel``: RF 0, 12 and 39 are the primary advertising channels
    /// 37, 38 and 39; the others number the data channels 0-36 in frequency order.
    package var channelIndex: UInt8 {
        switch rfChannel {
        case 0: 37
        case 12: 38
        case 39: 39
        case 1...11: rfChannel - 1
        case 13...38: rfChannel - 2
        default: rfChannel
        }
    }

    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> LERFHeader {
        var reader = ByteReader(bytes, layer: .snifferHeader)
        try reader.require(size, "the 10-byte LE RF pseudo-header")
        return LERFHeader(
            rfChannel: try reader.u8("RF channel"),
            signalPower: Int8(bitPattern: try reader.u8("signal power")),
            noisePower: Int8(bitPattern: try reader.u8("noise power")),
            accessAddressOffenses: try reader.u8("access address offenses"),
            referenceAccessAddress: try reader.u32le("reference access address"),
            flags: try reader.u16le("flags"))
    }
}
