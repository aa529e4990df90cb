import Wire

/// An HCI command opcode: OGF in the top 6 bits, OCF in the low 10.
///
/// Core 6.0, Vol 4, Part E, §5.4.1. Open: vendor and unknown opcodes are kept as they are.
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(ogf: UInt8, ocf: UInt16) { rawValue = UInt16(ogf) << 10 | (ocf & 0x3FF) }

    public var ogf: UInt8 { UInt8(rawValue >> 10) }
    public var ocf: UInt16 { rawValue & 0x3FF }

    /// Core 6.0, Vol 4, Part E, §7.1.6.
    public static var disconnect: Self { .init(rawValue: 0x0406) }
    /// Core 6.0, Vol 4, Part E, §7.3.1.
    public static var setEventMask: Self { .init(rawValue: 0x0C01) }
    /// Core 6.0, Vol 4, Part E, §7.3.2.
    public static var reset: Self { .init(rawValue: 0x0C03) }
    /// Core 6.0, Vol 4, Part E, §7.4.1.
    public static var readLocalVersionInformation: Self { .init(rawValue: 0x1001) }
    /// Core 6.0, Vol 4, Part E, §7.4.3.
    public static var readLocalSupportedFeatures: Self { .init(rawValue: 0x1003) }
    /// Core 6.0, Vol 4, Part E, §7.4.6.
    public static var readBDADDR: Self { .init(rawValue: 0x1009) }
    /// Core 6.0, Vol 4, Part E, §7.5.4.
    public static var readRSSI: Self { .init(rawValue: 0x1405) }
    /// Core 6.0, Vol 4, Part E, §7.8.1.
    public static var leSetEventMask: Self { .init(rawValue: 0x2001) }
    /// Core 6.0, Vol 4, Part E, §7.8.2 [v1].
    public static var leReadBufferSize: Self { .init(rawValue: 0x2002) }
    /// Core 6.0, Vol 4, Part E, §7.8.2 [v2].
    public static var leReadBufferSizeV2: Self { .init(rawValue: 0x2060) }
    /// Core 6.0, Vol 4, Part E, §7.8.5.
    public static var leSetAdvertisingParameters: Self { .init(rawValue: 0x2006) }
    /// Core 6.0, Vol 4, Part E, §7.8.7.
    public static var leSetAdvertisingData: Self { .init(rawValue: 0x2008) }
    /// Core 6.0, Vol 4, Part E, §7.8.8.
    public static var leSetScanResponseData: Self { .init(rawValue: 0x2009) }
    /// Core 6.0, Vol 4, Part E, §7.8.9.
    public static var leSetAdvertisingEnable: Self { .init(rawValue: 0x200A) }
    /// Core 6.0, Vol 4, Part E, §7.8.10.
    public static var leSetScanParameters: Self { .init(rawValue: 0x200B) }
    /// Core 6.0, Vol 4, Part E, §7.8.11.
    public static var leSetScanEnable: Self { .init(rawValue: 0x200C) }
    /// Core 6.0, Vol 4, Part E, §7.8.12.
    public static var leCreateConnection: Self { .init(rawValue: 0x200D) }
    /// Core 6.0, Vol 4, Part E, §7.8.13.
    public static var leCreateConnectionCancel: Self { .init(rawValue: 0x200E) }
    /// Core 6.0, Vol 4, Part E, §7.8.16.
    public static var leAddDeviceToFilterAcceptList: Self { .init(rawValue: 0x2011) }
    /// Core 6.0, Vol 4, Part E, §7.8.18.
    public static var leConnectionUpdate: Self { .init(rawValue: 0x2013) }
    /// Core 6.0, Vol 4, Part E, §7.8.21.
    public static var leReadRemoteFeatures: Self { .init(rawValue: 0x2016) }
    /// Core 6.0, Vol 4, Part E, §7.8.24 (LE Enable Encryption).
    public static var leStartEncryption: Self { .init(rawValue: 0x2019) }
    /// Core 6.0, Vol 4, Part E, §7.8.25.
    public static var leLongTermKeyRequestReply: Self { .init(rawValue: 0x201A) }
    /// Core 6.0, Vol 4, Part E, §7.8.26.
    public static var leLongTermKeyRequestNegativeReply: Self { .init(rawValue: 0x201B) }
    /// Core 6.0, Vol 4, Part E, §7.8.33.
    public static var leSetDataLength: Self { .init(rawValue: 0x2022) }
    /// Core 6.0, Vol 4, Part E, §7.8.38.
    public static var leAddDeviceToResolvingList: Self { .init(rawValue: 0x2027) }
    /// Core 6.0, Vol 4, Part E, §7.8.49.
    public static var leSetPHY: Self { .init(rawValue: 0x2032) }
    /// Core 6.0, Vol 4, Part E, §7.8.53 [v1].
    public static var leSetExtendedAdvertisingParameters: Self { .init(rawValue: 0x2036) }
    /// Core 6.0, Vol 4, Part E, §7.8.54.
    public static var leSetExtendedAdvertisingData: Self { .init(rawValue: 0x2037) }
    /// Core 6.0, Vol 4, Part E, §7.8.55.
    public static var leSetExtendedScanResponseData: Self { .init(rawValue: 0x2038) }
    /// Core 6.0, Vol 4, Part E, §7.8.56.
    public static var leSetExtendedAdvertisingEnable: Self { .init(rawValue: 0x2039) }
    /// Core 6.0, Vol 4, Part E, §7.8.64.
    public static var leSetExtendedScanParameters: Self { .init(rawValue: 0x2041) }
    /// Core 6.0, Vol 4, Part E, §7.8.65.
    public static var leSetExtendedScanEnable: Self { .init(rawValue: 0x2042) }
    /// Core 6.0, Vol 4, Part E, §7.8.66.
    public static var leExtendedCreateConnection: Self { .init(rawValue: 0x2043) }

    /// The command's name in Core 6.0, Vol 4, Part E, §7 (every command of §7.1-§7.8, BR/EDR and
    /// LE; a few later additions), without "HCI_"; nil for vendor (OGF 0x3F) and unknown opcodes.
    public var name: String? {
        switch rawValue {
        case 0x0401: "Inquiry"
        case 0x0402: "Inquiry Cancel"
        case 0x0403: "Periodic Inquiry Mode"
        case 0x0404: "Exit Periodic Inquiry Mode"
        case 0x0405: "Create Connection"
        case 0x0406: "Disconnect"
        case 0x0408: "Create Connection Cancel"
        case 0x0409: "Accept Connection Request"
        case 0x040A: "Reject Connection Request"
        case 0x040B: "Link Key Request Reply"
        case 0x040C: "Link Key Request Negative Reply"
        case 0x040D: "PIN Code Request Reply"
        case 0x040E: "PIN Code Request Negative Reply"
        case 0x040F: "Change Connection Packet Type"
        case 0x0411: "Authentication Requested"
        case 0x0413: "Set Connection Encryption"
        case 0x0415: "Change Connection Link Key"
        case 0x0417: "Link Key Selection"
        case 0x0419: "Remote Name Request"
        case 0x041A: "Remote Name Request Cancel"
        case 0x041B: "Read Remote Supported Features"
        case 0x041C: "Read Remote Extended Features"
        case 0x041D: "Read Remote Version Information"
        case 0x041F: "Read Clock Offset"
        case 0x0420: "Read LMP Handle"
        case 0x0428: "Setup Synchronous Connection"
        case 0x0429: "Accept Synchronous Connection Request"
        case 0x042A: "Reject Synchronous Connection Request"
        case 0x042B: "IO Capability Request Reply"
        case 0x042C: "User Confirmation Request Reply"
        case 0x042D: "User Confirmation Request Negative Reply"
        case 0x042E: "User Passkey Request Reply"
        case 0x042F: "User Passkey Request Negative Reply"
        case 0x0430: "Remote OOB Data Request Reply"
        case 0x0433: "Remote OOB Data Request Negative Reply"
        case 0x0434: "IO Capability Request Negative Reply"
        case 0x043D: "Enhanced Setup Synchronous Connection"
        case 0x043E: "Enhanced Accept Synchronous Connection Request"
        case 0x043F: "Truncated Page"
        case 0x0440: "Truncated Page Cancel"
        case 0x0441: "Set Connectionless Peripheral Broadcast"
        case 0x0442: "Set Connectionless Peripheral Broadcast Receive"
        case 0x0443: "Start Synchronization Train"
        case 0x0444: "Receive Synchronization Train"
        case 0x0445: "Remote OOB Extended Data Request Reply"
        case 0x0801: "Hold Mode"
        case 0x0803: "Sniff Mode"
        case 0x0804: "Exit Sniff Mode"
        case 0x0807: "QoS Setup"
        case 0x0809: "Role Discovery"
        case 0x080B: "Switch Role"
        case 0x080C: "Read Link Policy Settings"
        case 0x080D: "Write Link Policy Settings"
        case 0x080E: "Read Default Link Policy Settings"
        case 0x080F: "Write Default Link Policy Settings"
        case 0x0810: "Flow Specification"
        case 0x0811: "Sniff Subrating"
        case 0x0C01: "Set Event Mask"
        case 0x0C03: "Reset"
        case 0x0C05: "Set Event Filter"
        case 0x0C08: "Flush"
        case 0x0C09: "Read PIN Type"
        case 0x0C0A: "Write PIN Type"
        case 0x0C0D: "Read Stored Link Key"
        case 0x0C11: "Write Stored Link Key"
        case 0x0C12: "Delete Stored Link Key"
        case 0x0C13: "Write Local Name"
        case 0x0C14: "Read Local Name"
        case 0x0C15: "Read Connection Accept Timeout"
        case 0x0C16: "Write Connection Accept Timeout"
        case 0x0C17: "Read Page Timeout"
        case 0x0C18: "Write Page Timeout"
        case 0x0C19: "Read Scan Enable"
        case 0x0C1A: "Write Scan Enable"
        case 0x0C1B: "Read Page Scan Activity"
        case 0x0C1C: "Write Page Scan Activity"
        case 0x0C1D: "Read Inquiry Scan Activity"
        case 0x0C1E: "Write Inquiry Scan Activity"
        case 0x0C1F: "Read Authentication Enable"
        case 0x0C20: "Write Authentication Enable"
        case 0x0C23: "Read Class of Device"
        case 0x0C24: "Write Class of Device"
        case 0x0C25: "Read Voice Setting"
        case 0x0C26: "Write Voice Setting"
        case 0x0C27: "Read Automatic Flush Timeout"
        case 0x0C28: "Write Automatic Flush Timeout"
        case 0x0C29: "Read Num Broadcast Retransmissions"
        case 0x0C2A: "Write Num Broadcast Retransmissions"
        case 0x0C2B: "Read Hold Mode Activity"
        case 0x0C2C: "Write Hold Mode Activity"
        case 0x0C2D: "Read Transmit Power Level"
        case 0x0C2E: "Read Synchronous Flow Control Enable"
        case 0x0C2F: "Write Synchronous Flow Control Enable"
        case 0x0C31: "Set Controller To Host Flow Control"
        case 0x0C33: "Host Buffer Size"
        case 0x0C35: "Host Number of Completed Packets"
        case 0x0C36: "Read Link Supervision Timeout"
        case 0x0C37: "Write Link Supervision Timeout"
        case 0x0C38: "Read Number of Supported IAC"
        case 0x0C39: "Read Current IAC LAP"
        case 0x0C3A: "Write Current IAC LAP"
        case 0x0C3F: "Set AFH Host Channel Classification"
        case 0x0C42: "Read Inquiry Scan Type"
        case 0x0C43: "Write Inquiry Scan Type"
        case 0x0C44: "Read Inquiry Mode"
        case 0x0C45: "Write Inquiry Mode"
        case 0x0C46: "Read Page Scan Type"
        case 0x0C47: "Write Page Scan Type"
        case 0x0C48: "Read AFH Channel Assessment Mode"
        case 0x0C49: "Write AFH Channel Assessment Mode"
        case 0x0C51: "Read Extended Inquiry Response"
        case 0x0C52: "Write Extended Inquiry Response"
        case 0x0C53: "Refresh Encryption Key"
        case 0x0C55: "Read Simple Pairing Mode"
        case 0x0C56: "Write Simple Pairing Mode"
        case 0x0C57: "Read Local OOB Data"
        case 0x0C58: "Read Inquiry Response Transmit Power Level"
        case 0x0C59: "Write Inquiry Transmit Power Level"
        case 0x0C5A: "Read Default Erroneous Data Reporting"
        case 0x0C5B: "Write Default Erroneous Data Reporting"
        case 0x0C5F: "Enhanced Flush"
        case 0x0C60: "Send Keypress Notification"
        case 0x0C63: "Set Event Mask Page 2"
        case 0x0C66: "Read Flow Control Mode"
        case 0x0C67: "Write Flow Control Mode"
        case 0x0C68: "Read Enhanced Transmit Power Level"
        case 0x0C6C: "Read LE Host Support"
        case 0x0C6D: "Write LE Host Support"
        case 0x0C6E: "Set MWS Channel Parameters"
        case 0x0C6F: "Set External Frame Configuration"
        case 0x0C70: "Set MWS Signaling"
        case 0x0C71: "Set MWS Transport Layer"
        case 0x0C72: "Set MWS Scan Frequency Table"
        case 0x0C73: "Set MWS Pattern Configuration"
        case 0x0C74: "Set Reserved Lt ADDR"
        case 0x0C75: "Delete Reserved Lt ADDR"
        case 0x0C76: "Set Connectionless Peripheral Broadcast Data"
        case 0x0C77: "Read Synchronization Train Parameters"
        case 0x0C78: "Write Synchronization Train Parameters"
        case 0x0C79: "Read Secure Connections Host Support"
        case 0x0C7A: "Write Secure Connections Host Support"
        case 0x0C7B: "Read Authenticated Payload Timeout"
        case 0x0C7C: "Write Authenticated Payload Timeout"
        case 0x0C7D: "Read Local OOB Extended Data"
        case 0x0C7E: "Read Extended Page Timeout"
        case 0x0C7F: "Write Extended Page Timeout"
        case 0x0C80: "Read Extended Inquiry Length"
        case 0x0C81: "Write Extended Inquiry Length"
        case 0x0C82: "Set Ecosystem Base Interval"
        case 0x0C83: "Configure Data Path"
        case 0x0C84: "Set Min Encryption Key Size"
        case 0x1001: "Read Local Version Information"
        case 0x1002: "Read Local Supported Commands"
        case 0x1003: "Read Local Supported Features"
        case 0x1004: "Read Local Extended Features"
        case 0x1005: "Read Buffer Size"
        case 0x1009: "Read BD_ADDR"
        case 0x100A: "Read Data Block Size"
        case 0x100B: "Read Local Supported Codecs"
        case 0x100C: "Read Local Simple Pairing Options"
        case 0x100D: "Read Local Supported Codecs v2"
        case 0x100E: "Read Local Supported Codec Capabilities"
        case 0x100F: "Read Local Supported Controller Delay"
        case 0x1401: "Read Failed Contact Counter"
        case 0x1402: "Reset Failed Contact Counter"
        case 0x1403: "Read Link Quality"
        case 0x1405: "Read RSSI"
        case 0x1406: "Read AFH Channel Map"
        case 0x1407: "Read Clock"
        case 0x1408: "Read Encryption Key Size"
        case 0x140C: "Get MWS Transport Layer Configuration"
        case 0x140D: "Set Triggered Clock Capture"
        case 0x1801: "Read Loopback Mode"
        case 0x1802: "Write Loopback Mode"
        case 0x1803: "Enable Device Under Test Mode"
        case 0x1804: "Write Simple Pairing Debug Mode"
        case 0x180A: "Write Secure Connections Test Mode"
        case 0x2001: "LE Set Event Mask"
        case 0x2002: "LE Read Buffer Size"
        case 0x2003: "LE Read Local Supported Features"
        case 0x2005: "LE Set Random Address"
        case 0x2006: "LE Set Advertising Parameters"
        case 0x2007: "LE Read Advertising Physical Channel TX Power"
        case 0x2008: "LE Set Advertising Data"
        case 0x2009: "LE Set Scan Response Data"
        case 0x200A: "LE Set Advertising Enable"
        case 0x200B: "LE Set Scan Parameters"
        case 0x200C: "LE Set Scan Enable"
        case 0x200D: "LE Create Connection"
        case 0x200E: "LE Create Connection Cancel"
        case 0x200F: "LE Read Filter Accept List Size"
        case 0x2010: "LE Clear Filter Accept List"
        case 0x2011: "LE Add Device To Filter Accept List"
        case 0x2012: "LE Remove Device From Filter Accept List"
        case 0x2013: "LE Connection Update"
        case 0x2014: "LE Set Host Channel Classification"
        case 0x2015: "LE Read Channel Map"
        case 0x2016: "LE Read Remote Features"
        case 0x2017: "LE Encrypt"
        case 0x2018: "LE Rand"
        case 0x2019: "LE Start Encryption"
        case 0x201A: "LE Long Term Key Request Reply"
        case 0x201B: "LE Long Term Key Request Negative Reply"
        case 0x201C: "LE Read Supported States"
        case 0x201D: "LE Receiver Test"
        case 0x201E: "LE Transmitter Test"
        case 0x201F: "LE Test End"
        case 0x2020: "LE Remote Connection Parameter Request Reply"
        case 0x2021: "LE Remote Connection Parameter Request Negative Reply"
        case 0x2022: "LE Set Data Length"
        case 0x2023: "LE Read Suggested Default Data Length"
        case 0x2024: "LE Write Suggested Default Data Length"
        case 0x2025: "LE Read Local P 256 Public Key"
        case 0x2026: "LE Generate DHKey"
        case 0x2027: "LE Add Device To Resolving List"
        case 0x2028: "LE Remove Device From Resolving List"
        case 0x2029: "LE Clear Resolving List"
        case 0x202A: "LE Read Resolving List Size"
        case 0x202B: "LE Read Peer Resolvable Address"
        case 0x202C: "LE Read Local Resolvable Address"
        case 0x202D: "LE Set Address Resolution Enable"
        case 0x202E: "LE Set Resolvable Private Address Timeout"
        case 0x202F: "LE Read Maximum Data Length"
        case 0x2030: "LE Read PHY"
        case 0x2031: "LE Set Default PHY"
        case 0x2032: "LE Set PHY"
        case 0x2033: "LE Receiver Test v2"
        case 0x2034: "LE Transmitter Test v2"
        case 0x2035: "LE Set Advertising Set Random Address"
        case 0x2036: "LE Set Extended Advertising Parameters"
        case 0x2037: "LE Set Extended Advertising Data"
        case 0x2038: "LE Set Extended Scan Response Data"
        case 0x2039: "LE Set Extended Advertising Enable"
        case 0x203A: "LE Read Maximum Advertising Data Length"
        case 0x203B: "LE Read Number of Supported Advertising Sets"
        case 0x203C: "LE Remove Advertising Set"
        case 0x203D: "LE Clear Advertising Sets"
        case 0x203E: "LE Set Periodic Advertising Parameters"
        case 0x203F: "LE Set Periodic Advertising Data"
        case 0x2040: "LE Set Periodic Advertising Enable"
        case 0x2041: "LE Set Extended Scan Parameters"
        case 0x2042: "LE Set Extended Scan Enable"
        case 0x2043: "LE Extended Create Connection"
        case 0x2044: "LE Periodic Advertising Create Sync"
        case 0x2045: "LE Periodic Advertising Create Sync Cancel"
        case 0x2046: "LE Periodic Advertising Terminate Sync"
        case 0x2047: "LE Add Device To Periodic Advertiser List"
        case 0x2048: "LE Remove Device From Periodic Advertiser List"
        case 0x2049: "LE Clear Periodic Advertiser List"
        case 0x204A: "LE Read Periodic Advertiser List Size"
        case 0x204B: "LE Read Transmit Power"
        case 0x204C: "LE Read Rf Path Compensation"
        case 0x204D: "LE Write Rf Path Compensation"
        case 0x204E: "LE Set Privacy Mode"
        case 0x204F: "LE Receiver Test v3"
        case 0x2050: "LE Transmitter Test v3"
        case 0x2051: "LE Set Connectionless CTE Transmit Parameters"
        case 0x2052: "LE Set Connectionless CTE Transmit Enable"
        case 0x2053: "LE Set Connectionless IQ Sampling Enable"
        case 0x2054: "LE Set Connection CTE Receive Parameters"
        case 0x2055: "LE Set Connection CTE Transmit Parameters"
        case 0x2056: "LE Connection CTE Request Enable"
        case 0x2057: "LE Connection CTE Response Enable"
        case 0x2058: "LE Read Antenna Information"
        case 0x2059: "LE Set Periodic Advertising Receive Enable"
        case 0x205A: "LE Periodic Advertising Sync Transfer"
        case 0x205B: "LE Periodic Advertising Set Info Transfer"
        case 0x205C: "LE Set Periodic Advertising Sync Transfer Parameters"
        case 0x205D: "LE Set Default Periodic Advertising Sync Transfer Parameters"
        case 0x205E: "LE Generate DHKey v2"
        case 0x205F: "LE Modify Sleep Clock Accuracy"
        case 0x2060: "LE Read Buffer Size v2"
        case 0x2061: "LE Read ISO TX Sync"
        case 0x2062: "LE Set CIG Parameters"
        case 0x2063: "LE Set CIG Parameters Test"
        case 0x2064: "LE Create CIS"
        case 0x2065: "LE Remove CIG"
        case 0x2066: "LE Accept CIS Request"
        case 0x2067: "LE Reject CIS Request"
        case 0x2068: "LE Create BIG"
        case 0x2069: "LE Create BIG Test"
        case 0x206A: "LE Terminate BIG"
        case 0x206B: "LE BIG Create Sync"
        case 0x206C: "LE BIG Terminate Sync"
        case 0x206D: "LE Request Peer Sca"
        case 0x206E: "LE Setup ISO Data Path"
        case 0x206F: "LE Remove ISO Data Path"
        case 0x2070: "LE ISO Transmit Test"
        case 0x2071: "LE ISO Receive Test"
        case 0x2072: "LE ISO Read Test Counters"
        case 0x2073: "LE ISO Test End"
        case 0x2074: "LE Set Host Feature"
        case 0x2075: "LE Read ISO Link Quality"
        case 0x2076: "LE Enhanced Read Transmit Power Level"
        case 0x2077: "LE Read Remote Transmit Power Level"
        case 0x2078: "LE Set Path Loss Reporting Parameters"
        case 0x2079: "LE Set Path Loss Reporting Enable"
        case 0x207A: "LE Set Transmit Power Reporting Enable"
        case 0x207B: "LE Transmitter Test v4"
        case 0x207C: "LE Set Data Related Address Changes"
        case 0x207D: "LE Set Default Subrate"
        case 0x207E: "LE Subrate Request"
        case 0x207F: "LE Set Extended Advertising Parameters v2"
        case 0x2080: "LE Set Decision Data"
        case 0x2081: "LE Set Decision Instructions"
        case 0x2082: "LE Set Periodic Advertising Subevent Data"
        case 0x2083: "LE Set Periodic Advertising Response Data"
        case 0x2084: "LE Set Periodic Sync Subevent"
        case 0x2085: "LE Extended Create Connection v2"
        case 0x2086: "LE Set Periodic Advertising Parameters v2"
        case 0x2087: "LE Read All Local Supported Features"
        case 0x2088: "LE Read All Remote Features"
        case 0x2089: "LE CS Read Local Supported Capabilities"
        case 0x208A: "LE CS Read Remote Supported Capabilities"
        case 0x208B: "LE CS Write Cached Remote Supported Capabilities"
        case 0x208C: "LE CS Security Enable"
        case 0x208D: "LE CS Set Default Settings"
        case 0x208E: "LE CS Read Remote FAE Table"
        case 0x208F: "LE CS Write Cached Remote FAE Table"
        case 0x2090: "LE CS Create Config"
        case 0x2091: "LE CS Remove Config"
        case 0x2092: "LE CS Set Channel Classification"
        case 0x2093: "LE CS Set Procedure Parameters"
        case 0x2094: "LE CS Procedure Enable"
        case 0x2095: "LE CS Test"
        case 0x2096: "LE CS Test End"
        case 0x2097: "LE Set Host Feature v2"
        case 0x2098: "LE Add Device To Monitored Advertisers List"
        case 0x2099: "LE Remove Device From Monitored Advertisers List"
        case 0x209A: "LE Clear Monitored Advertisers List"
        case 0x209B: "LE Read Monitored Advertisers List Size"
        case 0x209C: "LE Enable Monitoring Advertisers"
        case 0x209D: "LE Frame Space Update"
        case 0x209E: "LE Set Resolvable Private Address Timeout v2"
        case 0x209F: "LE Enable UTP OTA Mode"
        case 0x20A0: "LE UTP Send"
        case 0x20A1: "LE Connection Rate Request"
        case 0x20A2: "LE Set Default Rate Parameters"
        case 0x20A3: "LE Read Minimum Supported Connection Interval"
        case 0x20A5: "LE CS Read Local Supported Capabilities v2"
        case 0x20A6: "LE CS Write Cached Remote Supported Capabilities v2"
        default: nil
        }
    }

    public var description: String {
        if let name { return name }
        // OGF 0x3F: the controller vendor's own commands (Core 6.0, Vol 4, Part E, §5.4.1).
        if ogf == 0x3F { return "Vendor Command " + hex(rawValue, digits: 1) }
        return "HCIOpcode(" + hex(rawValue, digits: 1) + ")"
    }
}
