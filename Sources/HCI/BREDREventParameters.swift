import Wire

// The parameters of the BR/EDR link events phones' logs show beside LE traffic (a car kit, a
// speaker, a watch on the same controller): decoded for `bletrace decode`. Core 6.0, Vol 4,
// Part E, §7.7. Every field is checked before it is read; a short event fails at the first
// missing field, with its offset from the packet's start.

/// A BR/EDR link type, as Connection Request gives it. Core 6.0, Vol 4, Part E, §7.7.4. Open.
public struct HCILinkType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static var sco: Self { .init(rawValue: 0x00) }
    public static var acl: Self { .init(rawValue: 0x01) }
    public static var esco: Self { .init(rawValue: 0x02) }

    public var name: String? {
        switch rawValue {
        case 0x00: "SCO"
        case 0x01: "ACL"
        case 0x02: "eSCO"
        default: nil
        }
    }

    public var description: String { name ?? "HCILinkType(" + hex(rawValue, digits: 1) + ")" }
}

/// The mode of a BR/EDR link, as Mode Change gives it. Core 6.0, Vol 4, Part E, §7.7.20. Open.
public struct HCIConnectionMode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static var active: Self { .init(rawValue: 0x00) }
    public static var hold: Self { .init(rawValue: 0x01) }
    public static var sniff: Self { .init(rawValue: 0x02) }

    public var name: String? {
        switch rawValue {
        case 0x00: "Active"
        case 0x01: "Hold"
        case 0x02: "Sniff"
        default: nil
        }
    }

    public var description: String { name ?? "HCIConnectionMode(" + hex(rawValue, digits: 1) + ")" }
}

/// Connection Request: a BR/EDR device pages this one. Core 6.0, Vol 4, Part E, §7.7.4.
public struct HCIConnectionRequest: Hashable, Sendable {
    public var address: BluetoothAddress
    /// The 24-bit Class of Device (Assigned Numbers: service classes, major and minor class).
    public var classOfDevice: UInt32
    public var linkType: HCILinkType

    init(_ reader: inout ByteReader) throws(DecodeError) {
        address = try reader.deviceAddress("BD_ADDR (6 bytes)")
        classOfDevice = try reader.u24le("Class_Of_Device (3 bytes)")
        linkType = HCILinkType(rawValue: try reader.u8("Link_Type"))
    }
}

/// Remote Name Request Complete. Core 6.0, Vol 4, Part E, §7.7.7.
public struct HCIRemoteNameRequestComplete {
    /// The length of the Remote_Name parameter: a name shorter than this ends with a zero byte.
    public static let nameFieldLength = 248

    public var status: HCIStatus
    public var address: BluetoothAddress
    /// The name's UTF-8 bytes, up to the first zero byte (all 248 bytes when there is none).
    public var remoteName: UnsafeRawBufferPointer

    /// The name as text, where its bytes are UTF-8 (nil when not, and when empty).
    public var name: String? {
        guard !remoteName.isEmpty else { return nil }
        // Decoding repairs bad UTF-8; the repaired text's bytes then differ from the name's.
        let text = String(decoding: remoteName, as: UTF8.self)
        return text.utf8.elementsEqual(remoteName) ? text : nil
    }

    init(_ reader: inout ByteReader) throws(DecodeError) {
        status = HCIStatus(rawValue: try reader.u8("Status"))
        address = try reader.deviceAddress("BD_ADDR (6 bytes)")
        let field = try reader.bytes(Self.nameFieldLength, "Remote_Name (248 bytes)")
        remoteName = UnsafeRawBufferPointer(rebasing: field[..<(field.firstIndex(of: 0) ?? field.endIndex)])
    }
}

/// Mode Change. Core 6.0, Vol 4, Part E, §7.7.20.
public struct HCIModeChange: Hashable, Sendable {
    public var status: HCIStatus
    public var handle: UInt16
    public var currentMode: HCIConnectionMode
    /// In baseband slots (0.625 ms): the hold time or the sniff interval; 0 in active mode.
    public var interval: UInt16

    init(_ reader: inout ByteReader) throws(DecodeError) {
        status = HCIStatus(rawValue: try reader.u8("Status"))
        handle = try reader.handle("Connection_Handle")
        currentMode = HCIConnectionMode(rawValue: try reader.u8("Current_Mode"))
        interval = try reader.u16le("Interval")
    }
}

/// Read Remote Extended Features Complete: one page of the peer's LMP features.
/// Core 6.0, Vol 4, Part E, §7.7.34.
public struct HCIRemoteExtendedFeatures: Hashable, Sendable {
    public var status: HCIStatus
    public var handle: UInt16
    /// The page given (0: the standard features; 1: the host's, such as Secure Simple Pairing).
    public var pageNumber: UInt8
    /// The highest page the peer has.
    public var maxPageNumber: UInt8
    public var extendedLMPFeatures: UInt64

    init(_ reader: inout ByteReader) throws(DecodeError) {
        status = HCIStatus(rawValue: try reader.u8("Status"))
        handle = try reader.handle("Connection_Handle")
        pageNumber = try reader.u8("Page_Number")
        maxPageNumber = try reader.u8("Max_Page_Number")
        extendedLMPFeatures = try reader.u64le("Extended_LMP_Features (8 bytes)")
    }
}

/// Sniff Subrating. Core 6.0, Vol 4, Part E, §7.7.37. Every latency and timeout is in baseband
/// slots (0.625 ms).
public struct HCISniffSubrating: Hashable, Sendable {
    public var status: HCIStatus
    public var handle: UInt16
    public var maxTxLatency: UInt16
    public var maxRxLatency: UInt16
    public var minRemoteTimeout: UInt16
    public var minLocalTimeout: UInt16

    init(_ reader: inout ByteReader) throws(DecodeError) {
        status = HCIStatus(rawValue: try reader.u8("Status"))
        handle = try reader.handle("Connection_Handle")
        maxTxLatency = try reader.u16le("Max_TX_Latency")
        maxRxLatency = try reader.u16le("Max_RX_Latency")
        minRemoteTimeout = try reader.u16le("Min_Remote_Timeout")
        minLocalTimeout = try reader.u16le("Min_Local_Timeout")
    }
}
