import Wire

/// LE Set Advertising Parameters (legacy advertising). Core 6.0, Vol 4, Part E, §7.8.5.
/// CoreBluetooth: chosen by the system for `startAdvertising(_:)`.
public struct LEAdvertisingParameters: Hashable, Sendable {
    /// In units of 0.625 ms.
    public var advertisingIntervalMin: UInt16
    public var advertisingIntervalMax: UInt16
    /// 0x00 ADV_IND, 0x01 ADV_DIRECT_IND (high duty cycle), 0x02 ADV_SCAN_IND, 0x03
    /// ADV_NONCONN_IND, 0x04 ADV_DIRECT_IND (low duty cycle).
    public var advertisingType: UInt8
    public var ownAddressType: UInt8
    public var peerAddressType: UInt8
    /// For directed advertising.
    public var peerAddress: BluetoothAddress
    /// Bit 0 channel 37, bit 1 channel 38, bit 2 channel 39.
    public var advertisingChannelMap: UInt8
    public var advertisingFilterPolicy: UInt8

    init(_ reader: inout ByteReader) throws(DecodeError) {
        advertisingIntervalMin = try reader.u16le("Advertising_Interval_Min")
        advertisingIntervalMax = try reader.u16le("Advertising_Interval_Max")
        advertisingType = try reader.u8("Advertising_Type")
        ownAddressType = try reader.u8("Own_Address_Type")
        peerAddressType = try reader.u8("Peer_Address_Type")
        peerAddress = try reader.deviceAddress("Peer_Address (6 bytes)")
        advertisingChannelMap = try reader.u8("Advertising_Channel_Map")
        advertisingFilterPolicy = try reader.u8("Advertising_Filter_Policy")
    }
}

extension AdvertisingData {
    /// LE Set Advertising Data and LE Set Scan Response Data (Core 6.0, Vol 4, Part E, §7.8.7,
    /// §7.8.8): a length of at most 31, then a 31-byte field whose first `length` bytes count.
    static func legacy(_ reader: inout ByteReader, what: String) throws(DecodeError) -> AdvertisingData {
        let length = Int(try reader.u8("Advertising_Data_Length or Scan_Response_Data_Length"))
        guard length <= 31 else {
            throw DecodeError(
                layer: reader.layer, offset: reader.offset - 1,
                expected: "a \(what) length of at most 31, not \(length)")
        }
        let start = reader.offset
        let field = try reader.bytes(31, "the 31-byte Advertising_Data or Scan_Response_Data field")
        return AdvertisingData(UnsafeRawBufferPointer(rebasing: field[..<length]), offset: start)
    }
}

/// LE Set Extended Advertising Parameters [v1]. Core 6.0, Vol 4, Part E, §7.8.53.
public struct LEExtendedAdvertisingParameters: Hashable, Sendable {
    public var advertisingHandle: UInt8
    /// Bit 0 connectable, 1 scannable, 2 directed, 3 high duty cycle directed, 4 legacy PDUs,
    /// 5 anonymous, 6 include TxPower.
    public var advertisingEventProperties: UInt16
    /// 24 bits, in units of 0.625 ms.
    public var primaryAdvertisingIntervalMin: UInt32
    public var primaryAdvertisingIntervalMax: UInt32
    /// Bit 0 channel 37, bit 1 channel 38, bit 2 channel 39.
    public var primaryAdvertisingChannelMap: UInt8
    public var ownAddressType: UInt8
    public var peerAddressType: UInt8
    public var peerAddress: BluetoothAddress
    public var advertisingFilterPolicy: UInt8
    /// In dBm; 127 means the host has no preference.
    public var advertisingTxPower: Int8
    public var primaryAdvertisingPHY: LEPHY
    public var secondaryAdvertisingMaxSkip: UInt8
    public var secondaryAdvertisingPHY: LEPHY
    public var advertisingSID: UInt8
    public var scanRequestNotificationEnable: UInt8

    public var isConnectable: Bool { advertisingEventProperties & 0x01 != 0 }
    public var isScannable: Bool { advertisingEventProperties & 0x02 != 0 }
    public var usesLegacyPDUs: Bool { advertisingEventProperties & 0x10 != 0 }

    init(_ reader: inout ByteReader) throws(DecodeError) {
        advertisingHandle = try reader.u8("Advertising_Handle")
        advertisingEventProperties = try reader.u16le("Advertising_Event_Properties")
        primaryAdvertisingIntervalMin = try reader.u24le("Primary_Advertising_Interval_Min (3 bytes)")
        primaryAdvertisingIntervalMax = try reader.u24le("Primary_Advertising_Interval_Max (3 bytes)")
        primaryAdvertisingChannelMap = try reader.u8("Primary_Advertising_Channel_Map")
        ownAddressType = try reader.u8("Own_Address_Type")
        peerAddressType = try reader.u8("Peer_Address_Type")
        peerAddress = try reader.deviceAddress("Peer_Address (6 bytes)")
        advertisingFilterPolicy = try reader.u8("Advertising_Filter_Policy")
        advertisingTxPower = try reader.i8("Advertising_TX_Power")
        primaryAdvertisingPHY = LEPHY(rawValue: try reader.u8("Primary_Advertising_PHY"))
        secondaryAdvertisingMaxSkip = try reader.u8("Secondary_Advertising_Max_Skip")
        secondaryAdvertisingPHY = LEPHY(rawValue: try reader.u8("Secondary_Advertising_PHY"))
        advertisingSID = try reader.u8("Advertising_SID")
        scanRequestNotificationEnable = try reader.u8("Scan_Request_Notification_Enable")
    }
}

/// LE Set Extended Advertising Data and LE Set Extended Scan Response Data.
/// Core 6.0, Vol 4, Part E, §7.8.54 and §7.8.55 (the same layout).
public struct LEExtendedAdvertisingData {
    public var advertisingHandle: UInt8
    /// 0x00 intermediate fragment, 0x01 first fragment, 0x02 last fragment, 0x03 complete data,
    /// 0x04 unchanged data (advertising data only: new Advertising DID).
    public var operation: UInt8
    /// 0x00 the controller may fragment; 0x01 it should not.
    public var fragmentPreference: UInt8
    /// This command's fragment of the data. A fragment may end mid-structure, in which case
    /// only the whole data (the fragments joined) parses.
    public var data: AdvertisingData

    init(_ reader: inout ByteReader) throws(DecodeError) {
        advertisingHandle = try reader.u8("Advertising_Handle")
        operation = try reader.u8("Operation")
        fragmentPreference = try reader.u8("Fragment_Preference")
        let length = Int(try reader.u8("Advertising_Data_Length or Scan_Response_Data_Length"))
        let start = reader.offset
        data = AdvertisingData(
            try reader.bytes(length, "as many data bytes as Advertising_Data_Length says"), offset: start)
        try reader.requireEnd("no parameters after the data (4 + Advertising_Data_Length bytes)")
    }
}

/// LE Set Extended Advertising Enable. Core 6.0, Vol 4, Part E, §7.8.56.
public struct LEExtendedAdvertisingEnable {
    /// 0x00 disable, 0x01 enable.
    public var enable: UInt8
    /// The sets concerned; none (with `enable` 0) disables every set.
    public var sets: LEAdvertisingSetList

    init(_ reader: inout ByteReader) throws(DecodeError) {
        enable = try reader.u8("Enable")
        let count = Int(try reader.u8("Num_Sets"))
        let start = reader.offset
        for _ in 0..<count {
            _ = try reader.u8("Advertising_Handle[i]")
            _ = try reader.u16le("Duration[i]")
            _ = try reader.u8("Max_Extended_Advertising_Events[i]")
        }
        try reader.requireEnd("no parameters after the last set's (2 + 4 bytes a set)")
        sets = LEAdvertisingSetList(entries: .since(start, in: reader, entryLength: 4))
    }
}

/// One advertising set in LE Set Extended Advertising Enable.
public struct LEAdvertisingSetEnable: Hashable, Sendable {
    public var advertisingHandle: UInt8
    /// In units of 10 ms; 0 advertises until disabled.
    public var duration: UInt16
    /// 0 for no maximum.
    public var maxExtendedAdvertisingEvents: UInt8
}

/// The sets of LE Set Extended Advertising Enable: a lazy view, validated at decode.
public struct LEAdvertisingSetList: RandomAccessCollection {
    let entries: HCIEntryList

    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }

    public subscript(position: Int) -> LEAdvertisingSetEnable {
        let entry = entries[position]
        return LEAdvertisingSetEnable(
            advertisingHandle: entry[0], duration: le16(entry, 1), maxExtendedAdvertisingEvents: entry[3])
    }
}
