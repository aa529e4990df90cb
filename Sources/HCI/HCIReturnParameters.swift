import Wire

/// The return parameters of a Command Complete event, decoded for the command it completes.
///
/// Core 6.0, Vol 4, Part E, §7.7.14 (the event) and, per command, the return parameters of its
/// section in §7. Every command here returns Status first. When a command fails its other return
/// parameters are not valid, and controllers often send the Status alone (Unknown HCI Command,
/// for one); such a failure decodes to ``status(_:)``. A successful command must return every
/// parameter.
public enum HCIReturnParameters {
    /// Commands whose only return parameter is Status (Reset, Set Event Mask, LE Set Event Mask,
    /// the LE scan and advertising commands, LE Create Connection Cancel, LE Add Device To Filter
    /// Accept List / Resolving List), and any command here that failed with nothing but a status.
    case status(HCIStatus)
    /// §7.4.1.
    case readLocalVersionInformation(HCILocalVersionInformation)
    /// §7.4.3. The LMP features page 0 bit mask.
    case readLocalSupportedFeatures(status: HCIStatus, features: UInt64)
    /// §7.4.6.
    case readBDADDR(status: HCIStatus, address: BluetoothAddress)
    /// §7.5.4. RSSI in dBm (signed); for LE, the absolute received signal strength.
    case readRSSI(status: HCIStatus, handle: UInt16, rssi: Int8)
    /// §7.8.2, [v1] and [v2].
    case leReadBufferSize(LEBufferSize)
    /// §7.8.53: the transmit power the controller chose, in dBm.
    case leSetExtendedAdvertisingParameters(status: HCIStatus, selectedTxPower: Int8)
    /// §7.8.25, §7.8.26, §7.8.31, §7.8.32, §7.8.33: LE Long Term Key Request Reply / Negative
    /// Reply, LE Remote Connection Parameter Request Reply / Negative Reply and LE Set Data Length
    /// return the connection handle after the status.
    case connectionHandle(status: HCIStatus, handle: UInt16)
    /// §7.5.7: the key size in bytes of an encrypted connection.
    case readEncryptionKeySize(status: HCIStatus, handle: UInt16, keySize: UInt8)
    /// Commands bletrace does not decode, or that complete with Command Status and so have no
    /// return parameters defined (including opcode 0x0000, which only returns credits): raw.
    case unknown(UnsafeRawBufferPointer)

    /// The Status return parameter; nil for ``unknown(_:)``.
    public var status: HCIStatus? {
        switch self {
        case .status(let status), .readLocalSupportedFeatures(let status, _), .readBDADDR(let status, _),
            .readRSSI(let status, _, _), .leSetExtendedAdvertisingParameters(let status, _),
            .connectionHandle(let status, _), .readEncryptionKeySize(let status, _, _):
            status
        case .readLocalVersionInformation(let version): version.status
        case .leReadBufferSize(let size): size.status
        case .unknown: nil
        }
    }

    /// Decodes `returnParameters` (as ``HCIEvent/commandComplete(numPackets:opcode:returnParameters:)``
    /// carries them) for `opcode`; `offset` is where they begin in the event packet (5, after the
    /// event code, length, credits and opcode), so that errors count from the packet's start.
    /// Bytes after the parameters a command defines are ignored.
    public static func decode(opcode: HCIOpcode, _ returnParameters: UnsafeRawBufferPointer, offset: Int = 5)
        throws(DecodeError) -> HCIReturnParameters
    {
        var reader = ByteReader(returnParameters, layer: .hci)
        do {
            return try decode(opcode: opcode, &reader)
        } catch {
            throw error.shifted(by: offset)
        }
    }

    static func decode(opcode: HCIOpcode, _ r: inout ByteReader) throws(DecodeError) -> HCIReturnParameters {
        switch opcode.rawValue {
        case 0x0C01, 0x0C03, 0x2001, 0x2006, 0x2008, 0x2009, 0x200A, 0x200B, 0x200C, 0x200E, 0x2011,
            0x2027, 0x2037, 0x2038, 0x2039, 0x2041, 0x2042,
            // Other commands whose only return parameter is Status, common in LE traces: Set Event
            // Mask Page 2, Write LE Host Support, LE Set Random Address, LE Clear / Remove Device
            // From Filter Accept List, LE Write Suggested Default Data Length, LE Remove Device From
            // / Clear Resolving List, LE Set Address Resolution Enable, LE Set Default PHY, LE Set
            // Advertising Set Random Address, LE Remove Advertising Set, LE Clear Advertising Sets.
            0x0C63, 0x0C6D, 0x2005, 0x2010, 0x2012, 0x2024, 0x2028, 0x2029, 0x202D, 0x2031, 0x2035,
            0x203C, 0x203D:
            return .status(HCIStatus(rawValue: try r.u8("Status")))
        case 0x1001, 0x1003, 0x1009, 0x1405, 0x1408, 0x2002, 0x2060, 0x2036, 0x201A, 0x201B, 0x2020, 0x2021, 0x2022:
            break
        default:
            return .unknown(r.rest())
        }
        let status = HCIStatus(rawValue: try r.u8("Status"))
        if status != .success && r.isAtEnd { return .status(status) }
        switch opcode.rawValue {
        case 0x1001: return .readLocalVersionInformation(try HCILocalVersionInformation(status: status, &r))
        case 0x1003: return .readLocalSupportedFeatures(status: status, features: try r.u64le("LMP_Features (8 bytes)"))
        case 0x1009: return .readBDADDR(status: status, address: try r.deviceAddress("BD_ADDR (6 bytes)"))
        case 0x1405:
            let handle = try r.handle("Handle")
            return .readRSSI(status: status, handle: handle, rssi: try r.i8("RSSI"))
        case 0x1408:
            let handle = try r.handle("Connection_Handle")
            return .readEncryptionKeySize(status: status, handle: handle, keySize: try r.u8("Key_Size"))
        case 0x2002, 0x2060:
            return .leReadBufferSize(try LEBufferSize(status: status, v2: opcode.rawValue == 0x2060, &r))
        case 0x2036:
            return .leSetExtendedAdvertisingParameters(status: status, selectedTxPower: try r.i8("Selected_TX_Power"))
        default:
            return .connectionHandle(status: status, handle: try r.handle("Connection_Handle"))
        }
    }
}

/// Read Local Version Information's return parameters. Core 6.0, Vol 4, Part E, §7.4.1.
public struct HCILocalVersionInformation: Hashable, Sendable {
    public var status: HCIStatus
    /// The HCI version (Assigned Numbers, §2.1: 0x09 is 5.0, 0x0C is 5.3, 0x0E is 6.0).
    public var hciVersion: BluetoothVersion
    /// HCI_Subversion (HCI_Revision before Core 5.3): the manufacturer's own number.
    public var hciSubversion: UInt16
    /// The LMP / Link Layer version, numbered as the HCI version.
    public var lmpVersion: BluetoothVersion
    /// Company_Identifier (Manufacturer_Name before Core 5.3), from Assigned Numbers, §7.
    public var companyIdentifier: UInt16
    public var lmpSubversion: UInt16

    init(status: HCIStatus, _ reader: inout ByteReader) throws(DecodeError) {
        self.status = status
        hciVersion = BluetoothVersion(rawValue: try reader.u8("HCI_Version"))
        hciSubversion = try reader.u16le("HCI_Subversion")
        lmpVersion = BluetoothVersion(rawValue: try reader.u8("LMP_Version"))
        companyIdentifier = try reader.u16le("Company_Identifier")
        lmpSubversion = try reader.u16le("LMP_Subversion")
    }
}

/// The LE ACL (and, for [v2], ISO) buffers of the controller: how many packets of what size the
/// host may have outstanding. Core 6.0, Vol 4, Part E, §7.8.2.
public struct LEBufferSize: Hashable, Sendable {
    public var status: HCIStatus
    /// 0 when the controller shares its BR/EDR ACL buffers with LE (Read Buffer Size tells).
    public var leACLDataPacketLength: UInt16
    public var totalNumLEACLDataPackets: UInt8
    /// [v2] only.
    public var isoDataPacketLength: UInt16?
    public var totalNumISODataPackets: UInt8?

    init(status: HCIStatus, v2: Bool, _ reader: inout ByteReader) throws(DecodeError) {
        self.status = status
        leACLDataPacketLength = try reader.u16le("LE_ACL_Data_Packet_Length")
        totalNumLEACLDataPackets = try reader.u8("Total_Num_LE_ACL_Data_Packets")
        if v2 {
            isoDataPacketLength = try reader.u16le("ISO_Data_Packet_Length")
            totalNumISODataPackets = try reader.u8("Total_Num_ISO_Data_Packets")
        }
    }
}

/// A Bluetooth Core Specification version as HCI_Version and LMP_Version give it.
/// Assigned Numbers, §2.1. Open: later versions are kept.
public struct BluetoothVersion: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String? {
        switch rawValue {
        case 0x00: "1.0b"
        case 0x01: "1.1"
        case 0x02: "1.2"
        case 0x03: "2.0 + EDR"
        case 0x04: "2.1 + EDR"
        case 0x05: "3.0 + HS"
        case 0x06: "4.0"
        case 0x07: "4.1"
        case 0x08: "4.2"
        case 0x09: "5.0"
        case 0x0A: "5.1"
        case 0x0B: "5.2"
        case 0x0C: "5.3"
        case 0x0D: "5.4"
        case 0x0E: "6.0"
        default: nil
        }
    }

    public var description: String {
        name.map { "Bluetooth " + $0 } ?? "BluetoothVersion(" + hex(rawValue, digits: 1) + ")"
    }
}
