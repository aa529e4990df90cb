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

    /// The event's name in Core 6.0, Vol 4, Part E, §7.7 (every event, BR/EDR and LE; a few later
    /// additions); nil for unknown codes.
    public var name: String? {
        switch rawValue {
        case 0x01: "Inquiry Complete"
        case 0x02: "Inquiry Result"
        case 0x03: "Connection Complete"
        case 0x04: "Connection Request"
        case 0x05: "Disconnection Complete"
        case 0x06: "Authentication Complete"
        case 0x07: "Remote Name Request Complete"
        case 0x08: "Encryption Change"
        case 0x09: "Change Connection Link Key Complete"
        case 0x0A: "Link Key Type Changed"
        case 0x0B: "Read Remote Supported Features Complete"
        case 0x0C: "Read Remote Version Information Complete"
        case 0x0D: "QoS Setup Complete"
        case 0x0E: "Command Complete"
        case 0x0F: "Command Status"
        case 0x10: "Hardware Error"
        case 0x11: "Flush Occurred"
        case 0x12: "Role Change"
        case 0x13: "Number Of Completed Packets"
        case 0x14: "Mode Change"
        case 0x15: "Return Link Keys"
        case 0x16: "PIN Code Request"
        case 0x17: "Link Key Request"
        case 0x18: "Link Key Notification"
        case 0x19: "Loopback Command"
        case 0x1A: "Data Buffer Overflow"
        case 0x1B: "Max Slots Change"
        case 0x1C: "Read Clock Offset Complete"
        case 0x1D: "Connection Packet Type Changed"
        case 0x1E: "QoS Violation"
        case 0x20: "Page Scan Repetition Mode Change"
        case 0x21: "Flow Specification Complete"
        case 0x22: "Inquiry Result with RSSI"
        case 0x23: "Read Remote Extended Features Complete"
        case 0x2C: "Synchronous Connection Complete"
        case 0x2D: "Synchronous Connection Changed"
        case 0x2E: "Sniff Subrating"
        case 0x2F: "Extended Inquiry Result"
        case 0x30: "Encryption Key Refresh Complete"
        case 0x31: "IO Capability Request"
        case 0x32: "IO Capability Response"
        case 0x33: "User Confirmation Request"
        case 0x34: "User Passkey Request"
        case 0x35: "Remote OOB Data Request"
        case 0x36: "Simple Pairing Complete"
        case 0x38: "Link Supervision Timeout Changed"
        case 0x39: "Enhanced Flush Complete"
        case 0x3B: "User Passkey Notification"
        case 0x3C: "Keypress Notification"
        case 0x3D: "Remote Host Supported Features Notification"
        case 0x3E: "LE Meta"
        case 0x48: "Number of Completed Data Blocks"
        case 0x49: "Triggered Clock Capture"
        case 0x4A: "Synchronization Train Complete"
        case 0x4B: "Synchronization Train Received"
        case 0x4C: "Connectionless Peripheral Broadcast Receive"
        case 0x4D: "Connectionless Peripheral Broadcast Timeout"
        case 0x4E: "Truncated Page Complete"
        case 0x4F: "Peripheral Page Response Timeout"
        case 0x50: "Connectionless Peripheral Broadcast Channel Map Change"
        case 0x51: "Inquiry Response Notification"
        case 0x52: "Authenticated Payload Timeout Expired"
        case 0x53: "SAM Status Change"
        case 0x59: "Encryption Change v2"
        case 0xFF: "Vendor Specific"
        default: nil
        }
    }

    public var description: String {
        name ?? "HCIEventCode(" + hex(rawValue, digits: 1) + ")"
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

    /// The subevent's name in Core 6.0, Vol 4, Part E, §7.7.65 (every LE subevent; a few later
    /// additions); nil for unknown codes.
    public var name: String? {
        switch rawValue {
        case 0x01: "LE Connection Complete"
        case 0x02: "LE Advertising Report"
        case 0x03: "LE Connection Update Complete"
        case 0x04: "LE Read Remote Features Complete"
        case 0x05: "LE Long Term Key Request"
        case 0x06: "LE Remote Connection Parameter Request"
        case 0x07: "LE Data Length Change"
        case 0x08: "LE Read Local P-256 Public Key Complete"
        case 0x09: "LE Generate DHKey Complete"
        case 0x0A: "LE Enhanced Connection Complete"
        case 0x0B: "LE Directed Advertising Report"
        case 0x0C: "LE PHY Update Complete"
        case 0x0D: "LE Extended Advertising Report"
        case 0x0E: "LE Periodic Advertising Sync Established"
        case 0x0F: "LE Periodic Advertising Report"
        case 0x10: "LE Periodic Advertising Sync Lost"
        case 0x11: "LE Scan Timeout"
        case 0x12: "LE Advertising Set Terminated"
        case 0x13: "LE Scan Request Received"
        case 0x14: "LE Channel Selection Algorithm"
        case 0x15: "LE Connectionless IQ Report"
        case 0x16: "LE Connection IQ Report"
        case 0x17: "LE CTE Request Failed"
        case 0x18: "LE Periodic Advertising Sync Transfer Received"
        case 0x19: "LE CIS Established"
        case 0x1A: "LE CIS Request"
        case 0x1B: "LE Create BIG Complete"
        case 0x1C: "LE Terminate BIG Complete"
        case 0x1D: "LE BIG Sync Established"
        case 0x1E: "LE BIG Sync Lost"
        case 0x1F: "LE Request Peer SCA Complete"
        case 0x20: "LE Path Loss Threshold"
        case 0x21: "LE Transmit Power Reporting"
        case 0x22: "LE BIGInfo Advertising Report"
        case 0x23: "LE Subrate Change"
        case 0x24: "LE Periodic Advertising Sync Established v2"
        case 0x25: "LE Periodic Advertising Report v2"
        case 0x26: "LE Periodic Advertising Sync Transfer Received v2"
        case 0x27: "LE Periodic Advertising Subevent Data Request"
        case 0x28: "LE Periodic Advertising Response Report"
        case 0x29: "LE Enhanced Connection Complete v2"
        case 0x2A: "LE CIS Established v2"
        case 0x2B: "LE Read All Remote Features Complete"
        case 0x2C: "LE CS Read Remote Supported Capabilities Complete"
        case 0x2D: "LE CS Read Remote FAE Table Complete"
        case 0x2E: "LE CS Security Enable Complete"
        case 0x2F: "LE CS Config Complete"
        case 0x30: "LE CS Procedure Enable Complete"
        case 0x31: "LE CS Subevent Result"
        case 0x32: "LE CS Subevent Result Continue"
        case 0x33: "LE CS Test End Complete"
        case 0x34: "LE Monitored Advertisers Report"
        case 0x35: "LE Frame Space Update Complete"
        case 0x36: "LE UTP Receive"
        case 0x37: "LE Connection Rate Change"
        case 0x38: "LE CS Read Remote Supported Capabilities Complete v2"
        default: nil
        }
    }

    public var description: String {
        name ?? "LESubeventCode(" + hex(rawValue, digits: 1) + ")"
    }
}
