import Wire

/// LE Set Scan Parameters. Core 6.0, Vol 4, Part E, §7.8.10.
/// CoreBluetooth: chosen by the system for `scanForPeripherals(withServices:options:)`.
public struct LEScanParameters: Hashable, Sendable {
    /// 0x00 passive (no scan requests), 0x01 active.
    public var scanType: UInt8
    /// In units of 0.625 ms.
    public var scanInterval: UInt16
    /// In units of 0.625 ms.
    public var scanWindow: UInt16
    public var ownAddressType: UInt8
    /// 0x00 accept all advertisements; 0x01 only from the Filter Accept List; 0x02, 0x03 the
    /// extended policies for directed advertising.
    public var scanningFilterPolicy: UInt8

    public var isActive: Bool { scanType == 0x01 }

    init(_ reader: inout ByteReader) throws(DecodeError) {
        scanType = try reader.u8("LE_Scan_Type")
        scanInterval = try reader.u16le("LE_Scan_Interval")
        scanWindow = try reader.u16le("LE_Scan_Window")
        ownAddressType = try reader.u8("Own_Address_Type")
        scanningFilterPolicy = try reader.u8("Scanning_Filter_Policy")
    }
}

/// LE Set Extended Scan Parameters. Core 6.0, Vol 4, Part E, §7.8.64.
public struct LEExtendedScanParameters {
    public var ownAddressType: UInt8
    public var scanningFilterPolicy: UInt8
    /// Bit 0 LE 1M, bit 2 LE Coded; one entry of ``phys`` per bit set.
    public var scanningPHYs: LEPHYSet
    /// The scan type, interval and window of each scanning PHY, lowest PHY bit first.
    public var phys: LEScanPHYList

    /// The PHY bits that have parameters: LE 1M and LE Coded (bit 1 is reserved: no one scans
    /// on LE 2M, the primary advertising channels do not use it).
    static let definedPHYs: UInt8 = 0b101

    init(_ reader: inout ByteReader) throws(DecodeError) {
        ownAddressType = try reader.u8("Own_Address_Type")
        scanningFilterPolicy = try reader.u8("Scanning_Filter_Policy")
        scanningPHYs = LEPHYSet(rawValue: try reader.u8("Scanning_PHYs"))
        let count = entryCount(scanningPHYs.rawValue, defined: Self.definedPHYs)
        guard count > 0 else {
            throw DecodeError(
                layer: reader.layer, offset: reader.offset - 1,
                expected: "at least one scanning PHY bit (0: LE 1M, 2: LE Coded)")
        }
        let start = reader.offset
        for _ in 0..<count {
            _ = try reader.u8("Scan_Type[i]")
            _ = try reader.u16le("Scan_Interval[i]")
            _ = try reader.u16le("Scan_Window[i]")
        }
        try reader.requireEnd("no parameters after the last scanning PHY's (3 + 5 bytes a PHY)")
        phys = LEScanPHYList(entries: .since(start, in: reader, entryLength: 5), mask: scanningPHYs)
    }
}

/// One scanning PHY's parameters in LE Set Extended Scan Parameters.
public struct LEScanPHYParameters: Hashable, Sendable {
    public var phy: LEPHY
    /// 0x00 passive, 0x01 active.
    public var scanType: UInt8
    /// In units of 0.625 ms.
    public var scanInterval: UInt16
    public var scanWindow: UInt16
}

/// The per-PHY entries of LE Set Extended Scan Parameters: a lazy view, validated at decode.
public struct LEScanPHYList: RandomAccessCollection {
    let entries: HCIEntryList
    let mask: LEPHYSet

    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }

    public subscript(position: Int) -> LEScanPHYParameters {
        let entry = entries[position]
        return LEScanPHYParameters(
            phy: mask.phy(ofEntry: position, defined: LEExtendedScanParameters.definedPHYs),
            scanType: entry[0], scanInterval: le16(entry, 1), scanWindow: le16(entry, 3))
    }
}

/// LE Set Extended Scan Enable. Core 6.0, Vol 4, Part E, §7.8.65.
public struct LEExtendedScanEnable: Hashable, Sendable {
    /// 0x00 disabled, 0x01 enabled.
    public var enable: UInt8
    /// 0x00 off, 0x01 on, 0x02 on and reset for each scan period.
    public var filterDuplicates: UInt8
    /// In units of 10 ms; 0 scans until disabled.
    public var duration: UInt16
    /// In units of 1.28 s; 0 scans continuously.
    public var period: UInt16

    init(_ reader: inout ByteReader) throws(DecodeError) {
        enable = try reader.u8("Enable")
        filterDuplicates = try reader.u8("Filter_Duplicates")
        duration = try reader.u16le("Duration")
        period = try reader.u16le("Period")
    }
}
