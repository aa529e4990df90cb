import Wire

/// The nRF Sniffer for Bluetooth LE pseudo-header (pcap link type 272, `NORDIC_BLE`).
///
/// Nordic's sniffer UART protocol as its firmware writes it to pcap, header versions 0 (legacy,
/// starting 0xBE 0xEF) to 3; layout in Formats/link-layer.md, after Nordic's published format
/// (nRF Sniffer for Bluetooth LE user guide) and tcpdump.org's LINKTYPE_NORDIC_BLE page. All
/// multi-byte fields little-endian.
package struct NordicBLEHeader: Hashable, Sendable {
    /// The sniffer board's number; nil in the legacy format, which has none.
    package var boardID: UInt8?
    /// 0 (legacy), 1, 2 or 3. Later versions are read as 3.
    package var protocolVersion: UInt8
    /// Version 1 only: the header's length (board ID excluded).
    package var headerLength: UInt8?
    /// Bytes after the packet header: the event packet header and the link-layer packet.
    package var payloadLength: UInt16
    /// The sniffer's running count of packets sent to the host.
    package var packetCounter: UInt16
    /// 0x02 advertising packet (version 3), 0x06 data packet (any packet, before version 3).
    package var packetID: UInt8
    /// The event packet header's length byte (10); nil in the legacy format.
    package var eventHeaderLength: UInt8?
    package var flags: UInt8
    /// Channel index, 0-39.
    package var channel: UInt8
    /// Signal strength in dBm (the firmware writes it without its sign).
    package var rssi: Int
    /// The connection event counter.
    package var eventCounter: UInt16
    /// Version 3: the firmware's timestamp of the packet's start, in µs. Before: the time from
    /// the end of the previous packet to the start of this one, in µs.
    package var time: UInt32
    /// Where the link-layer packet starts in the record.
    package var packetOffset: Int
    /// True when the packet ID (version 3) or the access address (before) says data channel.
    package var isData: Bool

    package static let advertisingPacketID: UInt8 = 0x02
    package static let dataPacketID: UInt8 = 0x06
    /// The event packet header: length, flags, channel, RSSI, event counter, time.
    static let eventHeaderSize = 10

    /// Flags bit 0: the CRC checked good.
    package var crcOK: Bool { flags & 0x01 != 0 }
    /// Flags bits 4-6.
    package var phy: LinkLayerPHY { LinkLayerPHY(rawValue: flags >> 4 & 0x07) }
    /// Data packets, flags bit 1: 1 central to peripheral, 0 peripheral to central.
    package var direction: LinkLayerDirection? {
        guard isData else { return nil }
        return flags & 0x02 != 0 ? .centralToPeripheral : .peripheralToCentral
    }
    /// Data packets, flags bit 2: the link was encrypted (and the MIC checked).
    package var encrypted: Bool { isData && flags & 0x04 != 0 }
    /// Data packets on an encrypted link, flags bit 3: the MIC checked good.
    package var micOK: Bool? { encrypted ? flags & 0x08 != 0 : nil }
    /// Advertising packets on a secondary channel (index < 37), flags bits 1-2: 0 AUX_ADV_IND,
    /// 1 AUX_CHAIN_IND, 2 AUX_SYNC_IND, 3 AUX_SCAN_RSP.
    package var auxType: UInt8? { !isData && channel < 37 ? flags >> 1 & 0x03 : nil }
    /// Advertising packets, flags bit 3: the sniffer resolved the advertiser's private address.
    package var addressResolved: Bool? { isData ? nil : flags & 0x08 != 0 }

    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> NordicBLEHeader {
        var reader = ByteReader(bytes, layer: .snifferHeader)
        var header = NordicBLEHeader(
            boardID: nil, protocolVersion: 0, headerLength: nil, payloadLength: 0, packetCounter: 0, packetID: 0,
            eventHeaderLength: nil, flags: 0, channel: 0, rssi: 0, eventCounter: 0, time: 0, packetOffset: 0,
            isData: false)
        let total: Int
        if bytes.count >= 2, bytes[0] == 0xBE, bytes[1] == 0xEF {
            // Legacy: marker, packet ID, counter, 2 unused bytes, payload length.
            try reader.skip(2, "the legacy marker 0xBEEF")
            header.packetID = try reader.u8("packet ID (1 byte)")
            header.packetCounter = try reader.u16le("packet counter (2 bytes)")
            try reader.skip(2, "2 unused bytes")
            header.payloadLength = UInt16(try reader.u8("payload length (1 byte)"))
            total = 8 + Int(header.payloadLength)
        } else {
            header.boardID = try reader.u8("board ID (1 byte)")
            try reader.require(3, "the packet header's lengths and protocol version (3 bytes)")
            let version = bytes[3]
            if version == 1 {
                let length = try reader.u8("header length (1 byte)")
                header.headerLength = length
                header.payloadLength = UInt16(try reader.u8("payload length (1 byte)"))
                total = 1 + Int(length) + Int(header.payloadLength)
            } else {
                header.payloadLength = try reader.u16le("payload length (2 bytes)")
                total = 7 + Int(header.payloadLength)
            }
            header.protocolVersion = try reader.u8("protocol version (1 byte)")
            header.packetCounter = try reader.u16le("packet counter (2 bytes)")
            header.packetID = try reader.u8("packet ID (1 byte)")
            header.eventHeaderLength = try reader.u8("event packet header length (1 byte)")
        }
        header.flags = try reader.u8("flags (1 byte)")
        header.channel = try reader.u8("channel index (1 byte)")
        header.rssi = -Int(try reader.u8("RSSI (1 byte)"))
        header.eventCounter = try reader.u16le("event counter (2 bytes)")
        header.time = try reader.u32le("timestamp or delta time (4 bytes)")
        header.packetOffset = reader.offset
        guard total == bytes.count else {
            throw DecodeError(
                layer: .snifferHeader, offset: header.boardID == nil ? 7 : 1,
                expected: "a record as long as the header's lengths say (\(total) bytes), not \(bytes.count)")
        }
        if header.protocolVersion >= 3 {
            header.isData = header.packetID == Self.dataPacketID
        } else {
            try reader.require(4, "the access address (4 bytes)")
            header.isData =
                bytes.loadUnaligned(fromByteOffset: reader.offset, as: UInt32.self).littleEndian
                != LinkLayerPacket.advertisingAccessAddress
        }
        return header
    }
}
