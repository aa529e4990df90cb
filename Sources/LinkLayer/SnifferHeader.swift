import Wire

/// The pseudo-header a sniffer writes before each over-the-air packet, by pcap link type.
///
/// Link type 272 (`NORDIC_BLE`) carries ``NordicBLEHeader``, 256 (`BLUETOOTH_LE_LL_WITH_PHDR`)
/// ``LERFHeader``, and 251 (`BLUETOOTH_LE_LL`) none: its packet starts at the access address.
/// Layouts and sources: Formats/link-layer.md.
package enum SnifferHeader: Hashable, Sendable {
    case nordic(NordicBLEHeader)
    case rf(LERFHeader)

    /// Reads the pseudo-header of link type `linkType` from the start of `bytes`; returns it with
    /// the offset where the link-layer packet begins (nil header for 251).
    package static func decode(_ bytes: UnsafeRawBufferPointer, linkType: Int32) throws(DecodeError)
        -> (header: SnifferHeader?, packetOffset: Int)
    {
        switch linkType {
        case 272:
            let header = try NordicBLEHeader.decode(bytes)
            return (.nordic(header), header.packetOffset)
        case 256:
            return (.rf(try LERFHeader.decode(bytes)), LERFHeader.size)
        case 251:
            return (nil, 0)
        default:
            throw DecodeError(
                layer: .snifferHeader, offset: 0, expected: "a link-layer link type (251, 256 or 272), not \(linkType)")
        }
    }

    /// The channel index (0-39) the packet was heard on.
    package var channelIndex: UInt8 {
        switch self {
        case .nordic(let header): header.channel
        case .rf(let header): header.channelIndex
        }
    }

    /// The PHY the packet came over.
    package var phy: LinkLayerPHY {
        switch self {
        case .nordic(let header): header.phy
        case .rf(let header): header.phy
        }
    }

    /// Whether the sniffer found the packet's CRC good; nil when it did not check.
    package var crcOK: Bool? {
        switch self {
        case .nordic(let header): header.crcOK
        case .rf(let header): header.crcChecked ? header.crcValid : nil
        }
    }

    /// The direction the sniffer recorded, where it recorded one (a data channel PDU).
    package var direction: LinkLayerDirection? {
        switch self {
        case .nordic(let header): header.direction
        case .rf(let header): header.direction
        }
    }

    /// True when the header says the packet is an advertising channel PDU (primary or auxiliary),
    /// false when it says data channel, nil when it does not say (the access address decides).
    /// The nRF Sniffer's AUX type of an advertising packet on a secondary channel (0
    /// AUX_ADV_IND, 1 AUX_CHAIN_IND, 2 AUX_SYNC_IND, 3 AUX_SCAN_RSP); nil from other sniffers.
    package var auxType: UInt8? {
        if case .nordic(let header) = self { return header.auxType }
        return nil
    }

    package var saysAdvertising: Bool? {
        switch self {
        case .nordic(let header):
            header.protocolVersion >= 3 ? header.packetID == NordicBLEHeader.advertisingPacketID : nil
        case .rf(let header):
            switch header.pduType {
            case 1: true
            case 2, 3: false
            default: nil
            }
        }
    }
}

/// Which way a packet went on a connection.
package enum LinkLayerDirection: String, Hashable, Sendable, CustomStringConvertible {
    case centralToPeripheral = "central-to-peripheral"
    case peripheralToCentral = "peripheral-to-central"

    package var description: String { self == .centralToPeripheral ? "C->P" : "P->C" }

    package var reversed: Self { self == .centralToPeripheral ? .peripheralToCentral : .centralToPeripheral }
}

/// An LE PHY as the sniffer headers number it: 0 LE 1M, 1 LE 2M, 2 LE Coded.
package struct LinkLayerPHY: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: UInt8
    @inlinable package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static var le1M: Self { .init(rawValue: 0) }
    package static var le2M: Self { .init(rawValue: 1) }
    package static var leCoded: Self { .init(rawValue: 2) }

    package var description: String {
        switch rawValue {
        case 0: "LE 1M"
        case 1: "LE 2M"
        case 2: "LE Coded"
        default: "LinkLayerPHY(\(rawValue))"
        }
    }
}
