import Wire

/// An HCI event code. Core 6.0, Vol 4, Part E, §7.7. Open: unknown and vendor codes are kept.
public struct HCIEventCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Core 6.0, Vol 4, Part E, §7.7.3.
    public static var connectionComplete: Self { .init(rawValue: 0x03) }
    /// Core 6.0, Vol 4, Part E, §7.7.5.
    public static var disconnectionComplete: Self { .init(rawValue: 0x05) }
    /// Core 6.0, Vol 4, Part E, §7.7.8 [v1].
    public static var encryptionChange: Self { .init(rawValue: 0x08) }
    /// Core 6.0, Vol 4, Part E, §7.7.14.
    public static var commandComplete: Self { .init(rawValue: 0x0E) }
    /// Core 6.0, Vol 4, Part E, §7.7.15.
    public static var commandStatus: Self { .init(rawValue: 0x0F) }
    /// Core 6.0, Vol 4, Part E, §7.7.16.
    public static var hardwareError: Self { .init(rawValue: 0x10) }
    /// Core 6.0, Vol 4, Part E, §7.7.19.
    public static var numberOfCompletedPackets: Self { .init(rawValue: 0x13) }
    /// Core 6.0, Vol 4, Part E, §7.7.26.
    public static var dataBufferOverflow: Self { .init(rawValue: 0x1A) }
    /// Core 6.0, Vol 4, Part E, §7.7.39.
    public static var encryptionKeyRefreshComplete: Self { .init(rawValue: 0x30) }
    /// Core 6.0, Vol 4, Part E, §7.7.65.
    public static var leMeta: Self { .init(rawValue: 0x3E) }
    /// Core 6.0, Vol 4, Part E, §7.7.8 [v2].
    public static var encryptionChangeV2: Self { .init(rawValue: 0x59) }
    /// Core 6.0, Vol 4, Part E, §5.4.4: the code reserved for vendor-specific events.
    public static var vendorSpecific: Self { .init(rawValue: 0xFF) }

    public var name: String? {
        switch rawValue {
        case 0x03: "Connection Complete"
        case 0x05: "Disconnection Complete"
        case 0x08: "Encryption Change"
        case 0x0C: "Read Remote Version Information Complete"
        case 0x0E: "Command Complete"
        case 0x0F: "Command Status"
        case 0x10: "Hardware Error"
        case 0x13: "Number Of Completed Packets"
        case 0x1A: "Data Buffer Overflow"
        case 0x30: "Encryption Key Refresh Complete"
        case 0x3E: "LE Meta"
        case 0x59: "Encryption Change v2"
        case 0xFF: "Vendor Specific"
        default: nil
        }
    }

    public var description: String {
        name ?? "HCIEventCode(0x" + String(rawValue, radix: 16) + ")"
    }
}

/// An LE Meta event's subevent code. Core 6.0, Vol 4, Part E, §7.7.65.
public struct LESubeventCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Core 6.0, Vol 4, Part E, §7.7.65.1.
    public static var connectionComplete: Self { .init(rawValue: 0x01) }
    /// Core 6.0, Vol 4, Part E, §7.7.65.2.
    public static var advertisingReport: Self { .init(rawValue: 0x02) }
    /// Core 6.0, Vol 4, Part E, §7.7.65.3.
    public static var connectionUpdateComplete: Self { .init(rawValue: 0x03) }
    /// Core 6.0, Vol 4, Part E, §7.7.65.4.
    public static var readRemoteFeaturesComplete: Self { .init(rawValue: 0x04) }
    /// Core 6.0, Vol 4, Part E, §7.7.65.5.
    public static var longTermKeyRequest: Self { .init(rawValue: 0x05) }
    /// Core 6.0, Vol 4, Part E, §7.7.65.6.
    public static var remoteConnectionParameterRequest: Self { .init(rawValue: 0x06) }
    /// Core 6.0, Vol 4, Part E, §7.7.65.7.
    public static var dataLengthChange: Self { .init(rawValue: 0x07) }
    /// Core 6.0, Vol 4, Part E, §7.7.65.12.
    public static var phyUpdateComplete: Self { .init(rawValue: 0x0C) }
    /// Core 6.0, Vol 4, Part E, §7.7.65.13.
    public static var extendedAdvertisingReport: Self { .init(rawValue: 0x0D) }
    /// Core 6.0, Vol 4, Part E, §7.7.65.20.
    public static var channelSelectionAlgorithm: Self { .init(rawValue: 0x14) }
    /// Core 6.0, Vol 4, Part E, §7.7.65.10.
    public static var enhancedConnectionComplete: Self { .init(rawValue: 0x0A) }
    /// Core 6.0, Vol 4, Part E, §7.7.65.10 (v2 adds advertising handle and sync handle).
    public static var enhancedConnectionCompleteV2: Self { .init(rawValue: 0x29) }

    public var name: String? {
        switch rawValue {
        case 0x01: "LE Connection Complete"
        case 0x02: "LE Advertising Report"
        case 0x03: "LE Connection Update Complete"
        case 0x04: "LE Read Remote Features Complete"
        case 0x05: "LE Long Term Key Request"
        case 0x06: "LE Remote Connection Parameter Request"
        case 0x07: "LE Data Length Change"
        case 0x0A: "LE Enhanced Connection Complete"
        case 0x0C: "LE PHY Update Complete"
        case 0x0D: "LE Extended Advertising Report"
        case 0x14: "LE Channel Selection Algorithm"
        case 0x29: "LE Enhanced Connection Complete v2"
        default: nil
        }
    }

    public var description: String {
        name ?? "LESubeventCode(0x" + String(rawValue, radix: 16) + ")"
    }
}
