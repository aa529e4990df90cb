import HCI
import Wire

/// The common extended advertising payload of ADV_EXT_IND, the AUX_ PDUs and AUX_CONNECT_RSP:
/// extended header length and AdvMode, the extended header's flags and the fields they announce
/// (in that order), then AdvData. Core 6.0, Vol 6, Part B, §2.3.4.
package struct ExtendedAdvertisingPayload {
    /// 0 non-connectable and non-scannable, 1 connectable, 2 scannable.
    package var advMode: UInt8
    package var headerLength: Int
    /// Which fields the header holds: bit 0 AdvA, 1 TargetA, 2 CTEInfo, 3 ADI, 4 AuxPtr,
    /// 5 SyncInfo, 6 TxPower. Zero when the header is empty.
    package var flags: UInt8
    package var advertiser: BluetoothAddress?
    package var target: BluetoothAddress?
    package var cteInfo: UInt8?
    /// Advertising Data Info: the data set ID (12 bits) and the set ID (4 bits).
    package var dataInfo: UInt16?
    package var auxPointer: AuxPointer?
    /// The 18-byte SyncInfo, kept as bytes.
    package var syncInfo: UnsafeRawBufferPointer?
    /// dBm.
    package var txPower: Int8?
    /// Additional Controller Advertising Data: what follows the announced fields in the header.
    package var acad: UnsafeRawBufferPointer
    package var data: AdvertisingData

    package var dataID: UInt16? { dataInfo.map { $0 & 0x0FFF } }
    package var setID: UInt8? { dataInfo.map { UInt8($0 >> 12) } }

    /// Where the next part of an advertisement is sent. §2.3.4.5.
    package struct AuxPointer: Hashable, Sendable {
        package var channel: UInt8
        /// Clock accuracy: false 51-500 ppm, true 0-50 ppm.
        package var clockAccuracy: Bool
        /// Offset units: false 30 µs, true 300 µs.
        package var offsetUnits300: Bool
        package var offset: UInt16
        /// 0 LE 1M, 1 LE 2M, 2 LE Coded.
        package var phy: UInt8
    }

    /// Checks that a field of `size` bytes at the reader fits inside the extended header. (A
    /// static helper, not a nested function capturing the reader: that would box it.)
    private static func field(_ size: Int, _ expected: String, _ reader: ByteReader, headerEnd: Int, headerLength: Int)
        throws(DecodeError)
    {
        guard reader.offset + size <= headerEnd else {
            throw reader.error("\(expected) inside the \(headerLength)-byte extended header")
        }
    }

    static func decode(_ reader: inout ByteReader, payloadOffset: Int) throws(DecodeError) -> ExtendedAdvertisingPayload
    {
        let first = try reader.u8("extended header length and AdvMode (1 byte)")
        let headerLength = Int(first & 0x3F)
        try reader.require(headerLength, "an extended header of \(headerLength) bytes")
        let headerEnd = reader.offset + headerLength
        var payload = ExtendedAdvertisingPayload(
            advMode: first >> 6, headerLength: headerLength, flags: 0,
            acad: UnsafeRawBufferPointer(start: nil, count: 0),
            data: AdvertisingData(UnsafeRawBufferPointer(start: nil, count: 0)))
        if headerLength > 0 {
            let flags = try reader.u8("extended header flags")
            payload.flags = flags
            if flags & 0x01 != 0 {
                try field(6, "AdvA (6 bytes)", reader, headerEnd: headerEnd, headerLength: headerLength)
                payload.advertiser = try reader.address("AdvA")
            }
            if flags & 0x02 != 0 {
                try field(6, "TargetA (6 bytes)", reader, headerEnd: headerEnd, headerLength: headerLength)
                payload.target = try reader.address("TargetA")
            }
            if flags & 0x04 != 0 {
                try field(1, "CTEInfo (1 byte)", reader, headerEnd: headerEnd, headerLength: headerLength)
                payload.cteInfo = try reader.u8("CTEInfo")
            }
            if flags & 0x08 != 0 {
                try field(2, "ADI (2 bytes)", reader, headerEnd: headerEnd, headerLength: headerLength)
                payload.dataInfo = try reader.u16le("ADI")
            }
            if flags & 0x10 != 0 {
                try field(3, "AuxPtr (3 bytes)", reader, headerEnd: headerEnd, headerLength: headerLength)
                let channel = try reader.u8("AuxPtr")
                let rest = try reader.u16le("AuxPtr")
                payload.auxPointer = AuxPointer(
                    channel: channel & 0x3F, clockAccuracy: channel & 0x40 != 0, offsetUnits300: channel & 0x80 != 0,
                    offset: rest & 0x1FFF, phy: UInt8(rest >> 13))
            }
            if flags & 0x20 != 0 {
                try field(18, "SyncInfo (18 bytes)", reader, headerEnd: headerEnd, headerLength: headerLength)
                payload.syncInfo = try reader.bytes(18, "SyncInfo")
            }
            if flags & 0x40 != 0 {
                try field(1, "TxPower (1 byte)", reader, headerEnd: headerEnd, headerLength: headerLength)
                payload.txPower = Int8(bitPattern: try reader.u8("TxPower"))
            }
            payload.acad = try reader.bytes(headerEnd - reader.offset, "ACAD")
        }
        payload.data = AdvertisingData(reader.rest(), offset: payloadOffset + headerEnd, layer: .linkLayer)
        return payload
    }
}
