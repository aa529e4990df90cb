import Wire

/// An HCI command with every field of its parameters decoded, for the commands a Bluetooth LE
/// trace is made of; any other command keeps its opcode and raw parameters.
///
/// Core 6.0, Vol 4, Part E, §5.4.1 (packet), §7 (commands). Decoded from borrowed bytes with no
/// allocation: values are views into the packet, lists are lazy and checked at decode. Fields the
/// specification fixes are read in order, each checked before it is read, so a short packet
/// fails at the first missing field with its offset from the packet's start. Bytes after a
/// fixed-size command's fields are ignored; a command whose length follows from a count (PHYs,
/// sets, a data length) must have exactly that length.
///
/// ``HCICommand`` is the summary that the connection lifecycle switches over; this is the whole.
public enum HCICommandParameters {
    /// §7.1.6.
    case disconnect(handle: UInt16, reason: HCIStatus)
    /// §7.3.1. One bit per event (Table 7.2 of §7.3.1).
    case setEventMask(UInt64)
    /// §7.3.2.
    case reset
    /// §7.4.1.
    case readLocalVersionInformation
    /// §7.4.3.
    case readLocalSupportedFeatures
    /// §7.4.6.
    case readBDADDR
    /// §7.5.4.
    case readRSSI(handle: UInt16)
    /// §7.8.1. One bit per LE subevent, bit n for subevent n + 1.
    case leSetEventMask(UInt64)
    /// §7.8.2, [v1].
    case leReadBufferSize
    /// §7.8.2, [v2] (adds the ISO buffers).
    case leReadBufferSizeV2
    /// §7.8.5.
    case leSetAdvertisingParameters(LEAdvertisingParameters)
    /// §7.8.7. The significant part of the data (Advertising_Data_Length bytes).
    case leSetAdvertisingData(AdvertisingData)
    /// §7.8.8. The significant part of the data (Scan_Response_Data_Length bytes).
    case leSetScanResponseData(AdvertisingData)
    /// §7.8.9. 0x00 disable, 0x01 enable.
    case leSetAdvertisingEnable(UInt8)
    /// §7.8.10.
    case leSetScanParameters(LEScanParameters)
    /// §7.8.11. Each 0x00 off, 0x01 on. CoreBluetooth: `scanForPeripherals`, `stopScan`,
    /// `CBCentralManagerScanOptionAllowDuplicatesKey` (the inverse of `filterDuplicates`).
    case leSetScanEnable(enable: UInt8, filterDuplicates: UInt8)
    /// §7.8.12.
    case leCreateConnection(LECreateConnection)
    /// §7.8.13.
    case leCreateConnectionCancel
    /// §7.8.16. Address type 0xFF: devices sending anonymous advertisements.
    case leAddDeviceToFilterAcceptList(addressType: UInt8, address: BluetoothAddress)
    /// §7.8.18.
    case leConnectionUpdate(LEConnectionUpdate)
    /// §7.8.21.
    case leReadRemoteFeatures(handle: UInt16)
    /// §7.8.24.
    case leStartEncryption(LEStartEncryption)
    /// §7.8.25. The key read least significant byte first.
    case leLongTermKeyRequestReply(handle: UInt16, longTermKey: UInt128)
    /// §7.8.26.
    case leLongTermKeyRequestNegativeReply(handle: UInt16)
    /// §7.8.33. Octets and microseconds the controller should use for new transmissions.
    case leSetDataLength(handle: UInt16, txOctets: UInt16, txTime: UInt16)
    /// §7.8.38.
    case leAddDeviceToResolvingList(LEResolvingListEntry)
    /// §7.8.49.
    case leSetPHY(LESetPHY)
    /// §7.8.53, [v1].
    case leSetExtendedAdvertisingParameters(LEExtendedAdvertisingParameters)
    /// §7.8.54.
    case leSetExtendedAdvertisingData(LEExtendedAdvertisingData)
    /// §7.8.55.
    case leSetExtendedScanResponseData(LEExtendedAdvertisingData)
    /// §7.8.56.
    case leSetExtendedAdvertisingEnable(LEExtendedAdvertisingEnable)
    /// §7.8.64.
    case leSetExtendedScanParameters(LEExtendedScanParameters)
    /// §7.8.65.
    case leSetExtendedScanEnable(LEExtendedScanEnable)
    /// §7.8.66.
    case leExtendedCreateConnection(LEExtendedCreateConnection)
    /// Any other command (vendor commands included): its opcode and raw parameters, losslessly.
    case unknown(opcode: HCIOpcode, parameters: UnsafeRawBufferPointer)

    public var opcode: HCIOpcode {
        switch self {
        case .disconnect: .disconnect
        case .setEventMask: .setEventMask
        case .reset: .reset
        case .readLocalVersionInformation: .readLocalVersionInformation
        case .readLocalSupportedFeatures: .readLocalSupportedFeatures
        case .readBDADDR: .readBDADDR
        case .readRSSI: .readRSSI
        case .leSetEventMask: .leSetEventMask
        case .leReadBufferSize: .leReadBufferSize
        case .leReadBufferSizeV2: .leReadBufferSizeV2
        case .leSetAdvertisingParameters: .leSetAdvertisingParameters
        case .leSetAdvertisingData: .leSetAdvertisingData
        case .leSetScanResponseData: .leSetScanResponseData
        case .leSetAdvertisingEnable: .leSetAdvertisingEnable
        case .leSetScanParameters: .leSetScanParameters
        case .leSetScanEnable: .leSetScanEnable
        case .leCreateConnection: .leCreateConnection
        case .leCreateConnectionCancel: .leCreateConnectionCancel
        case .leAddDeviceToFilterAcceptList: .leAddDeviceToFilterAcceptList
        case .leConnectionUpdate: .leConnectionUpdate
        case .leReadRemoteFeatures: .leReadRemoteFeatures
        case .leStartEncryption: .leStartEncryption
        case .leLongTermKeyRequestReply: .leLongTermKeyRequestReply
        case .leLongTermKeyRequestNegativeReply: .leLongTermKeyRequestNegativeReply
        case .leSetDataLength: .leSetDataLength
        case .leAddDeviceToResolvingList: .leAddDeviceToResolvingList
        case .leSetPHY: .leSetPHY
        case .leSetExtendedAdvertisingParameters: .leSetExtendedAdvertisingParameters
        case .leSetExtendedAdvertisingData: .leSetExtendedAdvertisingData
        case .leSetExtendedScanResponseData: .leSetExtendedScanResponseData
        case .leSetExtendedAdvertisingEnable: .leSetExtendedAdvertisingEnable
        case .leSetExtendedScanParameters: .leSetExtendedScanParameters
        case .leSetExtendedScanEnable: .leSetExtendedScanEnable
        case .leExtendedCreateConnection: .leExtendedCreateConnection
        case .unknown(let opcode, _): opcode
        }
    }

    /// The connection handle the command is about, where it names one.
    public var handle: UInt16? {
        switch self {
        case .disconnect(let handle, _), .readRSSI(let handle), .leReadRemoteFeatures(let handle),
            .leLongTermKeyRequestReply(let handle, _), .leLongTermKeyRequestNegativeReply(let handle),
            .leSetDataLength(let handle, _, _):
            handle
        case .leConnectionUpdate(let update): update.handle
        case .leStartEncryption(let start): start.handle
        case .leSetPHY(let phy): phy.handle
        default: nil
        }
    }

    /// Decodes a command packet without its H4 indicator byte.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> HCICommandParameters {
        var reader = ByteReader(bytes, layer: .hci)
        let opcode = HCIOpcode(rawValue: try reader.u16le("command opcode (2 bytes)"))
        let length = Int(try reader.u8("parameter total length (1 byte)"))
        guard length <= reader.remaining else {
            throw reader.error("\(length) bytes of command parameters, not \(reader.remaining)")
        }
        // Fields are read within the declared length, with offsets counted from the packet start.
        var fields = ByteReader(
            UnsafeRawBufferPointer(rebasing: bytes[..<(3 + length)]), layer: .hci, offset: 3)
        return try decode(opcode: opcode, &fields)
    }

    /// Decodes the parameters of a command with `opcode` (as ``HCICommand/unknown(opcode:parameters:)``
    /// carries them); `offset` is where they begin in their packet (3, after the opcode and the
    /// length), so that errors count from the packet's start.
    public static func decode(opcode: HCIOpcode, parameters: UnsafeRawBufferPointer, offset: Int = 3)
        throws(DecodeError) -> HCICommandParameters
    {
        var fields = ByteReader(parameters, layer: .hci)
        do {
            return try decode(opcode: opcode, &fields).rebased(by: offset)
        } catch {
            throw error.shifted(by: offset)
        }
    }

    /// The same command with the packet offsets it carries (where advertising data begins)
    /// moved by `base`.
    func rebased(by base: Int) -> HCICommandParameters {
        func moved(_ data: AdvertisingData) -> AdvertisingData {
            AdvertisingData(data.bytes, offset: data.offset + base, layer: data.layer)
        }
        switch self {
        case .leSetAdvertisingData(let data): return .leSetAdvertisingData(moved(data))
        case .leSetScanResponseData(let data): return .leSetScanResponseData(moved(data))
        case .leSetExtendedAdvertisingData(var fragment):
            fragment.data = moved(fragment.data)
            return .leSetExtendedAdvertisingData(fragment)
        case .leSetExtendedScanResponseData(var fragment):
            fragment.data = moved(fragment.data)
            return .leSetExtendedScanResponseData(fragment)
        default: return self
        }
    }

    static func decode(opcode: HCIOpcode, _ r: inout ByteReader) throws(DecodeError) -> HCICommandParameters {
        switch opcode.rawValue {
        case 0x0406:
            let handle = try r.handle("Connection_Handle")
            return .disconnect(handle: handle, reason: HCIStatus(rawValue: try r.u8("Reason")))
        case 0x0C01: return .setEventMask(try r.u64le("Event_Mask (8 bytes)"))
        case 0x0C03: return .reset
        case 0x1001: return .readLocalVersionInformation
        case 0x1003: return .readLocalSupportedFeatures
        case 0x1009: return .readBDADDR
        case 0x1405: return .readRSSI(handle: try r.handle("Handle"))
        case 0x2001: return .leSetEventMask(try r.u64le("LE_Event_Mask (8 bytes)"))
        case 0x2002: return .leReadBufferSize
        case 0x2060: return .leReadBufferSizeV2
        case 0x2006: return .leSetAdvertisingParameters(try LEAdvertisingParameters(&r))
        case 0x2008: return .leSetAdvertisingData(try .legacy(&r, what: "Advertising_Data"))
        case 0x2009: return .leSetScanResponseData(try .legacy(&r, what: "Scan_Response_Data"))
        case 0x200A: return .leSetAdvertisingEnable(try r.u8("Advertising_Enable"))
        case 0x200B: return .leSetScanParameters(try LEScanParameters(&r))
        case 0x200C:
            let enable = try r.u8("LE_Scan_Enable")
            return .leSetScanEnable(enable: enable, filterDuplicates: try r.u8("Filter_Duplicates"))
        case 0x200D: return .leCreateConnection(try LECreateConnection(legacy: &r))
        case 0x200E: return .leCreateConnectionCancel
        case 0x2011:
            let type = try r.u8("Address_Type")
            return .leAddDeviceToFilterAcceptList(addressType: type, address: try r.deviceAddress("Address (6 bytes)"))
        case 0x2013: return .leConnectionUpdate(try LEConnectionUpdate(&r))
        case 0x2016: return .leReadRemoteFeatures(handle: try r.handle("Connection_Handle"))
        case 0x2019: return .leStartEncryption(try LEStartEncryption(&r))
        case 0x201A:
            let handle = try r.handle("Connection_Handle")
            return .leLongTermKeyRequestReply(handle: handle, longTermKey: try r.u128le("Long_Term_Key (16 bytes)"))
        case 0x201B: return .leLongTermKeyRequestNegativeReply(handle: try r.handle("Connection_Handle"))
        case 0x2022:
            let handle = try r.handle("Connection_Handle")
            let octets = try r.u16le("TX_Octets")
            return .leSetDataLength(handle: handle, txOctets: octets, txTime: try r.u16le("TX_Time"))
        case 0x2027: return .leAddDeviceToResolvingList(try LEResolvingListEntry(&r))
        case 0x2032: return .leSetPHY(try LESetPHY(&r))
        case 0x2036: return .leSetExtendedAdvertisingParameters(try LEExtendedAdvertisingParameters(&r))
        case 0x2037: return .leSetExtendedAdvertisingData(try LEExtendedAdvertisingData(&r))
        case 0x2038: return .leSetExtendedScanResponseData(try LEExtendedAdvertisingData(&r))
        case 0x2039: return .leSetExtendedAdvertisingEnable(try LEExtendedAdvertisingEnable(&r))
        case 0x2041: return .leSetExtendedScanParameters(try LEExtendedScanParameters(&r))
        case 0x2042: return .leSetExtendedScanEnable(try LEExtendedScanEnable(&r))
        case 0x2043: return .leExtendedCreateConnection(try LEExtendedCreateConnection(&r))
        default: return .unknown(opcode: opcode, parameters: r.rest())
        }
    }
}
