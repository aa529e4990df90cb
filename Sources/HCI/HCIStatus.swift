import Wire

/// An HCI error code, as carried in status and reason parameters.
///
/// Core 6.0, Vol 1, Part F, §1.3 (list of error codes). Open: an unassigned value is kept and
/// printed as `HCIStatus(0x9c)`.
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static var success: Self { .init(rawValue: 0x00) }
    public static var unknownHCICommand: Self { .init(rawValue: 0x01) }
    public static var unknownConnectionIdentifier: Self { .init(rawValue: 0x02) }
    public static var pageTimeout: Self { .init(rawValue: 0x04) }
    public static var authenticationFailure: Self { .init(rawValue: 0x05) }
    public static var pinOrKeyMissing: Self { .init(rawValue: 0x06) }
    public static var connectionTimeout: Self { .init(rawValue: 0x08) }
    public static var commandDisallowed: Self { .init(rawValue: 0x0C) }
    public static var invalidHCICommandParameters: Self { .init(rawValue: 0x12) }
    public static var remoteUserTerminatedConnection: Self { .init(rawValue: 0x13) }
    public static var remoteDeviceTerminatedLowResources: Self { .init(rawValue: 0x14) }
    public static var remoteDeviceTerminatedPowerOff: Self { .init(rawValue: 0x15) }
    public static var connectionTerminatedByLocalHost: Self { .init(rawValue: 0x16) }
    public static var llResponseTimeout: Self { .init(rawValue: 0x22) }
    public static var connectionTerminatedMICFailure: Self { .init(rawValue: 0x3D) }
    public static var connectionFailedToBeEstablished: Self { .init(rawValue: 0x3E) }
    public static var operationCancelledByHost: Self { .init(rawValue: 0x44) }

    /// The specification's name, or nil for an unassigned value.
    public var name: String? {
        let index = Int(rawValue)
        return index < Self.names.count ? Self.names[index] : nil
    }

    public var description: String {
        name ?? "HCIStatus(" + hex(rawValue, digits: 1) + ")"
    }

    // Core 6.0, Vol 1, Part F, §1.3, in code order from 0x00. Where the specification names a
    // code for both BR/EDR and LE, the LE name comes second after a slash.
    static let names: [String?] = [
        "Success",
        "Unknown HCI Command",
        "Unknown Connection Identifier",
        "Hardware Failure",
        "Page Timeout",
        "Authentication Failure",
        "PIN or Key Missing",
        "Memory Capacity Exceeded",
        "Connection Timeout",
        "Connection Limit Exceeded",
        "Synchronous Connection Limit To A Device Exceeded",
        "Connection Already Exists",
        "Command Disallowed",
        "Connection Rejected due to Limited Resources",
        "Connection Rejected Due To Security Reasons",
        "Connection Rejected due to Unacceptable BD_ADDR",
        "Connection Accept Timeout Exceeded",
        "Unsupported Feature or Parameter Value",
        "Invalid HCI Command Parameters",
        "Remote User Terminated Connection",
        "Remote Device Terminated Connection due to Low Resources",
        "Remote Device Terminated Connection due to Power Off",
        "Connection Terminated By Local Host",
        "Repeated Attempts",
        "Pairing Not Allowed",
        "Unknown LMP PDU",
        "Unsupported Remote Feature",
        "SCO Offset Rejected",
        "SCO Interval Rejected",
        "SCO Air Mode Rejected",
        "Invalid LMP Parameters / Invalid LL Parameters",
        "Unspecified Error",
        "Unsupported LMP Parameter Value / Unsupported LL Parameter Value",
        "Role Change Not Allowed",
        "LMP Response Timeout / LL Response Timeout",
        "LMP Error Transaction Collision / LL Procedure Collision",
        "LMP PDU Not Allowed",
        "Encryption Mode Not Acceptable",
        "Link Key cannot be Changed",
        "Requested QoS Not Supported",
        "Instant Passed",
        "Pairing With Unit Key Not Supported",
        "Different Transaction Collision",
        nil,  // 0x2B reserved
        "QoS Unacceptable Parameter",
        "QoS Rejected",
        "Channel Classification Not Supported",
        "Insufficient Security",
        "Parameter Out Of Mandatory Range",
        nil,  // 0x31 reserved
        "Role Switch Pending",
        nil,  // 0x33 reserved
        "Reserved Slot Violation",
        "Role Switch Failed",
        "Extended Inquiry Response Too Large",
        "Secure Simple Pairing Not Supported By Host",
        "Host Busy - Pairing",
        "Connection Rejected due to No Suitable Channel Found",
        "Controller Busy",
        "Unacceptable Connection Parameters",
        "Advertising Timeout",
        "Connection Terminated due to MIC Failure",
        "Connection Failed to be Established / Synchronization Timeout",
        "Previously Used",
        "Coarse Clock Adjustment Rejected but Will Try to Adjust Using Clock Dragging",
        "Type0 Submap Not Defined",
        "Unknown Advertising Identifier",
        "Limit Reached",
        "Operation Cancelled by Host",
        "Packet Too Long",
        "Too Late",
        "Too Early",
        "Insufficient Channels",
    ]
}
