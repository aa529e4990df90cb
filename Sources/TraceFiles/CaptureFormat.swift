import Wire

/// A capture file format, detected from the file's first bytes (never from its name).
public enum CaptureFormat: Hashable, Sendable, CustomStringConvertible {
    case btsnoop(datalink: UInt32)
    case pcap(linkType: Int32)
    case pcapng(linkType: Int32)
    case packetLogger

    /// Short name used in output and JSON: `btsnoop`, `pcap`, `pcapng`, `pklg`.
    public var name: String {
        switch self {
        case .btsnoop: "btsnoop"
        case .pcap: "pcap"
        case .pcapng: "pcapng"
        case .packetLogger: "pklg"
        }
    }

    /// The datalink or link type number, where the format has one.
    public var datalink: Int? {
        switch self {
        case .btsnoop(let datalink): Int(datalink)
        case .pcap(let linkType), .pcapng(let linkType): Int(linkType)
        case .packetLogger: nil
        }
    }

    /// The over-the-air sniffer link type (pcap/pcapng 251, 256 or 272), when the capture is a
    /// link-layer capture rather than an HCI trace.
    public var linkLayerType: Int32? {
        switch self {
        case .pcap(let linkType), .pcapng(let linkType): PcapReader.linkLayerSniffer.contains(linkType) ? linkType : nil
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .btsnoop(let datalink): "btsnoop, datalink \(datalink) (\(BTSnoopDatalink(datalink)))"
        case .pcap(let linkType): "pcap, link type \(linkType) (\(PcapLinkType(linkType)))"
        case .pcapng(let linkType): "pcapng, link type \(linkType) (\(PcapLinkType(linkType)))"
        case .packetLogger: "Apple PacketLogger"
        }
    }

    /// What the first bytes of a file say it is.
    enum Signature: Equatable {
        case btsnoop, pcap, pcapng, unknown
    }

    static func signature(of prefix: UnsafeRawBufferPointer) -> Signature {
        if prefix.count >= 8, Array(prefix[0..<8]) == Array("btsnoop\0".utf8) { return .btsnoop }
        if prefix.count >= 4 {
            let magic = Array(prefix[0..<4])
            if magic == [0x0A, 0x0D, 0x0D, 0x0A] { return .pcapng }
            let pcapMagics: [[UInt8]] = [
                [0xA1, 0xB2, 0xC3, 0xD4], [0xD4, 0xC3, 0xB2, 0xA1],  // microseconds
                [0xA1, 0xB2, 0x3C, 0x4D], [0x4D, 0x3C, 0xB2, 0xA1],  // nanoseconds
            ]
            if pcapMagics.contains(magic) { return .pcap }
        }
        return .unknown
    }
}

/// Names of btsnoop datalinks.
func BTSnoopDatalink(_ value: UInt32) -> String {
    switch value {
    case 1001: "HCI un-encapsulated (H1)"
    case 1002: "HCI UART (H4)"
    case 1003: "HCI BCSP"
    case 1004: "HCI Serial (H5)"
    case 2001: "Linux monitor"
    case 2002: "simulator"
    default: "unknown"
    }
}

/// Names of the pcap link types that carry Bluetooth, and of a few common others (a capture of
/// the wrong interface); "unknown" for the rest.
func PcapLinkType(_ value: Int32) -> String {
    switch value {
    case 1: "ETHERNET"
    case 101: "RAW"
    case 105: "IEEE802_11"
    case 113: "LINUX_SLL"
    case 127: "IEEE802_11_RADIOTAP"
    case 276: "LINUX_SLL2"
    case 187: "BLUETOOTH_HCI_H4"
    case 201: "BLUETOOTH_HCI_H4_WITH_PHDR"
    case 251: "BLUETOOTH_LE_LL"
    case 254: "BLUETOOTH_LINUX_MONITOR"
    case 256: "BLUETOOTH_LE_LL_WITH_PHDR"
    case 272: "NORDIC_BLE"
    default: "unknown"
    }
}
