import Wire

/// One report of an LE Advertising Report event. Core 6.0, Vol 4, Part E, §7.7.65.2.
public struct LEAdvertisingReport {
    /// 0x00 ADV_IND, 0x01 ADV_DIRECT_IND, 0x02 ADV_SCAN_IND, 0x03 ADV_NONCONN_IND, 0x04 SCAN_RSP.
    public var eventType: UInt8
    /// 0x00 public, 0x01 random, 0x02 public identity, 0x03 random static identity.
    public var addressType: UInt8
    public var address: BluetoothAddress
    /// The advertising or scan response data (0 to 31 bytes), a view into the packet; where it
    /// is in the packet, for errors, is `data.offset`.
    public var data: AdvertisingData
    /// In dBm; nil when the controller says 127, "not available".
    public var rssi: Int8?

    public var isConnectable: Bool { eventType == 0x00 || eventType == 0x01 }
    public var isScanResponse: Bool { eventType == 0x04 }
}

/// The reports of an LE Advertising Report event: a lazy view, checked at decode.
///
/// Each report is Event_Type, Address_Type, Address, Data_Length, Data, RSSI, reports one after
/// another (Core 6.0, Vol 4, Part E, §5.2, §7.7.65.2): not a fixed size, each report has its own
/// data length, so the list is a sequence that walks the packet.
public struct LEAdvertisingReportList: Sequence {
    /// The reports' bytes, from the first report's Event_Type to the last report's RSSI.
    public let bytes: UnsafeRawBufferPointer
    /// Num_Reports.
    public let count: Int
    /// Where `bytes` begin in the event packet.
    let offset: Int

    init(_ reader: inout ByteReader) throws(DecodeError) {
        count = Int(try reader.u8("Num_Reports"))
        offset = reader.offset
        for _ in 0..<count {
            _ = try reader.u8("Event_Type[i]")
            _ = try reader.u8("Address_Type[i]")
            _ = try reader.deviceAddress("Address[i] (6 bytes)")
            let length = Int(try reader.u8("Data_Length[i]"))
            _ = try reader.bytes(length, "Data[i] (Data_Length[i] bytes)")
            _ = try reader.u8("RSSI[i]")
        }
        try reader.requireEnd("no parameters after the last report's RSSI")
        bytes = UnsafeRawBufferPointer(rebasing: reader.buffer[offset..<reader.offset])
    }

    /// Walks the reports in the event's order, each read over the event's bytes.
    public struct Iterator: IteratorProtocol {
        let bytes: UnsafeRawBufferPointer
        let base: Int
        var position = 0

        public mutating func next() -> LEAdvertisingReport? {
            guard position < bytes.count else { return nil }
            let length = Int(bytes[position + 8])
            let dataStart = position + 9
            let rssi = Int8(bitPattern: bytes[dataStart + length])
            defer { position = dataStart + length + 1 }
            return LEAdvertisingReport(
                eventType: bytes[position], addressType: bytes[position + 1],
                address: addressAt(bytes, position + 2),
                data: AdvertisingData(
                    UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataStart + length]), offset: base + dataStart),
                rssi: rssi == 127 ? nil : rssi)
        }
    }

    public func makeIterator() -> Iterator { Iterator(bytes: bytes, base: offset) }
}

/// The event type bits of an extended advertising report. Core 6.0, Vol 4, Part E, §7.7.65.13.
public struct LEExtendedAdvertisingEventType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt16
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    public var isConnectable: Bool { rawValue & 0x0001 != 0 }
    public var isScannable: Bool { rawValue & 0x0002 != 0 }
    public var isDirected: Bool { rawValue & 0x0004 != 0 }
    public var isScanResponse: Bool { rawValue & 0x0008 != 0 }
    /// The report is of a legacy advertising PDU.
    public var isLegacy: Bool { rawValue & 0x0010 != 0 }
    /// Bits 5-6: 0 complete; 1 incomplete, more data to come; 2 incomplete, truncated, no more
    /// to come; 3 reserved.
    public var dataStatus: UInt8 { UInt8(rawValue >> 5 & 0x3) }
    public var isComplete: Bool { dataStatus == 0 }
}

/// One report of an LE Extended Advertising Report event. Core 6.0, Vol 4, Part E, §7.7.65.13.
public struct LEExtendedAdvertisingReport {
    public var eventType: LEExtendedAdvertisingEventType
    /// 0x00 public, 0x01 random, 0x02 public identity, 0x03 random static identity, 0xFF anonymous.
    public var addressType: UInt8
    public var address: BluetoothAddress
    public var primaryPHY: LEPHY
    /// `LEPHY(rawValue: 0)` when nothing was sent on the secondary channel.
    public var secondaryPHY: LEPHY
    /// 0xFF when no ADI field was present.
    public var advertisingSID: UInt8
    /// In dBm; nil for 127, "not available".
    public var txPower: Int8?
    /// In dBm; nil for 127, "not available".
    public var rssi: Int8?
    /// In units of 1.25 ms; 0 when there is no periodic advertising.
    public var periodicAdvertisingInterval: UInt16
    public var directAddressType: UInt8
    public var directAddress: BluetoothAddress
    /// This report's data, a view into the packet. An incomplete report (see
    /// ``LEExtendedAdvertisingEventType/dataStatus``) may cut a structure in two.
    public var data: AdvertisingData
}

/// The reports of an LE Extended Advertising Report event: a lazy view, checked at decode.
/// Each report is 24 bytes of fields, then its own Data_Length bytes of data.
public struct LEExtendedAdvertisingReportList: Sequence {
    public let bytes: UnsafeRawBufferPointer
    /// Num_Reports.
    public let count: Int
    let offset: Int

    init(_ reader: inout ByteReader) throws(DecodeError) {
        count = Int(try reader.u8("Num_Reports"))
        offset = reader.offset
        for _ in 0..<count {
            _ = try reader.u16le("Event_Type[i]")
            _ = try reader.u8("Address_Type[i]")
            _ = try reader.deviceAddress("Address[i] (6 bytes)")
            _ = try reader.u8("Primary_PHY[i]")
            _ = try reader.u8("Secondary_PHY[i]")
            _ = try reader.u8("Advertising_SID[i]")
            _ = try reader.u8("TX_Power[i]")
            _ = try reader.u8("RSSI[i]")
            _ = try reader.u16le("Periodic_Advertising_Interval[i]")
            _ = try reader.u8("Direct_Address_Type[i]")
            _ = try reader.deviceAddress("Direct_Address[i] (6 bytes)")
            let length = Int(try reader.u8("Data_Length[i]"))
            _ = try reader.bytes(length, "Data[i] (Data_Length[i] bytes)")
        }
        try reader.requireEnd("no parameters after the last report's data")
        bytes = UnsafeRawBufferPointer(rebasing: reader.buffer[offset..<reader.offset])
    }

    /// Walks the reports in the event's order, each read over the event's bytes.
    public struct Iterator: IteratorProtocol {
        let bytes: UnsafeRawBufferPointer
        let base: Int
        var position = 0

        public mutating func next() -> LEExtendedAdvertisingReport? {
            guard position < bytes.count else { return nil }
            let p = position
            let length = Int(bytes[p + 23])
            defer { position = p + 24 + length }
            let tx = Int8(bitPattern: bytes[p + 12])
            let rssi = Int8(bitPattern: bytes[p + 13])
            return LEExtendedAdvertisingReport(
                eventType: LEExtendedAdvertisingEventType(rawValue: le16(bytes, p)),
                addressType: bytes[p + 2], address: addressAt(bytes, p + 3),
                primaryPHY: LEPHY(rawValue: bytes[p + 9]), secondaryPHY: LEPHY(rawValue: bytes[p + 10]),
                advertisingSID: bytes[p + 11], txPower: tx == 127 ? nil : tx, rssi: rssi == 127 ? nil : rssi,
                periodicAdvertisingInterval: le16(bytes, p + 14), directAddressType: bytes[p + 16],
                directAddress: addressAt(bytes, p + 17),
                data: AdvertisingData(
                    UnsafeRawBufferPointer(rebasing: bytes[p + 24..<p + 24 + length]), offset: base + p + 24))
        }
    }

    public func makeIterator() -> Iterator { Iterator(bytes: bytes, base: offset) }
}

/// A 6-byte address at `offset`, least significant byte first.
@inline(__always)
func addressAt(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> BluetoothAddress {
    BluetoothAddress(
        rawValue: UInt64(le16(bytes, offset)) | UInt64(le16(bytes, offset + 2)) << 16
            | UInt64(le16(bytes, offset + 4)) << 32)
}
