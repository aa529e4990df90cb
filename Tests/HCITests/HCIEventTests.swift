import HCI
import TestSupport
import Testing
import Wire

/// Event packets written by hand from Core 6.0, Vol 4, Part E, §7.7 (no H4 indicator byte).
enum EventPackets {
    typealias Case = PacketCase<EventSummary>

    /// §7.7.14 Command Complete for HCI_Reset.
    static let commandCompleteReset = Case(
        name: "Command Complete (Reset, success)",
        header: [
            "0e",  // event code: Command Complete
            "04",  // parameter total length: 4
        ],
        parameters: [
            "01",  // Num_HCI_Command_Packets: 1
            "03 0c",  // Command_Opcode: 0x0C03 HCI_Reset (OGF 0x03, OCF 0x003)
            "00",  // return parameter Status: Success
        ],
        mandatory: 2,
        expected: .commandComplete(numPackets: 1, opcode: HCIOpcode(rawValue: 0x0C03), returnParameters: [0x00]))

    /// §7.7.14 Command Complete for LE Set Scan Enable, refused.
    static let commandCompleteDisallowed = Case(
        name: "Command Complete (LE Set Scan Enable, Command Disallowed)",
        header: ["0e", "04"],
        parameters: [
            "02",  // Num_HCI_Command_Packets: 2
            "0c 20",  // Command_Opcode: 0x200C LE Set Scan Enable
            "0c",  // Status: 0x0C Command Disallowed
        ],
        mandatory: 2,
        expected: .commandComplete(numPackets: 2, opcode: HCIOpcode(rawValue: 0x200C), returnParameters: [0x0C]))

    /// §7.7.14 Command Complete for Read BD_ADDR (§7.4.6): Status and BD_ADDR.
    static let commandCompleteReadBDAddr = Case(
        name: "Command Complete (Read BD_ADDR)",
        header: ["0e", "0a"],  // 10 parameter bytes
        parameters: [
            "01",  // Num_HCI_Command_Packets
            "09 10",  // Command_Opcode: 0x1009 Read BD_ADDR
            "00",  // Status: Success
            "ff ee dd cc bb aa",  // BD_ADDR AA:BB:CC:DD:EE:FF, least significant byte first
        ],
        mandatory: 2,
        expected: .commandComplete(
            numPackets: 1, opcode: HCIOpcode(rawValue: 0x1009),
            returnParameters: [0x00, 0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA]))

    /// §7.7.14 Command Complete with opcode 0x0000: only returns command credits, no status.
    static let commandCompleteNoOp = Case(
        name: "Command Complete (no command)",
        header: ["0e", "03"],
        parameters: [
            "01",  // Num_HCI_Command_Packets
            "00 00",  // Command_Opcode: 0x0000, no command
        ],
        mandatory: 2,
        expected: .commandComplete(numPackets: 1, opcode: HCIOpcode(rawValue: 0), returnParameters: []))

    /// §7.7.15 Command Status for LE Create Connection.
    static let commandStatusPending = Case(
        name: "Command Status (LE Create Connection pending)",
        header: [
            "0f",  // event code: Command Status
            "04",  // parameter total length: 4
        ],
        parameters: [
            "00",  // Status: Success (command pending)
            "01",  // Num_HCI_Command_Packets: 1
            "0d 20",  // Command_Opcode: 0x200D LE Create Connection
        ],
        mandatory: 3,
        expected: .commandStatus(status: .success, numPackets: 1, opcode: .leCreateConnection))

    static let commandStatusDisallowed = Case(
        name: "Command Status (LE Extended Create Connection, Command Disallowed)",
        header: ["0f", "04"],
        parameters: [
            "0c",  // Status: 0x0C Command Disallowed
            "01",  // Num_HCI_Command_Packets
            "43 20",  // Command_Opcode: 0x2043 LE Extended Create Connection
        ],
        mandatory: 3,
        expected: .commandStatus(status: .commandDisallowed, numPackets: 1, opcode: .leExtendedCreateConnection))

    /// §7.7.5 Disconnection Complete.
    static let disconnectionComplete = Case(
        name: "Disconnection Complete (Connection Timeout)",
        header: [
            "05",  // event code: Disconnection Complete
            "04",  // parameter total length: 4
        ],
        parameters: [
            "00",  // Status: Success
            "40 00",  // Connection_Handle: 0x0040
            "08",  // Reason: 0x08 Connection Timeout
        ],
        mandatory: 3,
        expected: .disconnectionComplete(status: .success, handle: 0x0040, reason: .connectionTimeout))

    /// The top 4 bits of a Connection_Handle field are reserved and not part of the handle.
    static let disconnectionCompleteReservedBits = Case(
        name: "Disconnection Complete (reserved handle bits set)",
        header: ["05", "04"],
        parameters: [
            "00",  // Status: Success
            "41 f0",  // Connection_Handle 0x041 with reserved bits 12-15 set (0xF041)
            "13",  // Reason: 0x13 Remote User Terminated Connection
        ],
        mandatory: 3,
        expected: .disconnectionComplete(status: .success, handle: 0x0041, reason: .remoteUserTerminatedConnection))

    /// §7.7.3 Connection Complete (BR/EDR).
    static let connectionComplete = Case(
        name: "Connection Complete (BR/EDR ACL)",
        header: [
            "03",  // event code: Connection Complete
            "0b",  // parameter total length: 11
        ],
        parameters: [
            "00",  // Status: Success
            "0b 00",  // Connection_Handle: 0x000B
            "66 55 44 33 22 11",  // BD_ADDR: 11:22:33:44:55:66
            "01",  // Link_Type: 0x01 ACL
            "00",  // Encryption_Enabled: off
        ],
        mandatory: 5,
        expected: .connectionComplete(
            status: .success, handle: 0x000B, address: address("11:22:33:44:55:66"), linkType: 1))

    static let connectionCompletePageTimeout = Case(
        name: "Connection Complete (BR/EDR, Page Timeout)",
        header: ["03", "0b"],
        parameters: [
            "04",  // Status: 0x04 Page Timeout
            "00 00",  // Connection_Handle (not valid on failure)
            "06 05 04 03 02 01",  // BD_ADDR: 01:02:03:04:05:06
            "01",  // Link_Type: ACL
            "00",  // Encryption_Enabled
        ],
        mandatory: 5,
        expected: .connectionComplete(
            status: .pageTimeout, handle: 0, address: address("01:02:03:04:05:06"), linkType: 1))

    /// §7.7.65.1 LE Connection Complete.
    static let leConnectionComplete = Case(
        name: "LE Connection Complete",
        header: [
            "3e",  // event code: LE Meta
            "13",  // parameter total length: 19
        ],
        parameters: [
            "01",  // Subevent_Code: LE Connection Complete
            "00",  // Status: Success
            "40 00",  // Connection_Handle: 0x0040
            "00",  // Role: Central
            "01",  // Peer_Address_Type: Random
            "56 34 12 be 5b c4",  // Peer_Address: C4:5B:BE:12:34:56
            "18 00",  // Connection_Interval: 0x0018 (30 ms)
            "00 00",  // Peripheral_Latency: 0
            "f4 01",  // Supervision_Timeout: 0x01F4 (5 s)
            "05",  // Central_Clock_Accuracy: 0x05 (50 ppm)
        ],
        mandatory: 10,
        expected: .leConnectionComplete(
            LEConnectionSummary(
                subevent: 0x01, status: .success, handle: 0x0040, role: 0, peerAddressType: 1,
                peerAddress: address("C4:5B:BE:12:34:56"), connectionInterval: 0x0018,
                peripheralLatency: 0, supervisionTimeout: 0x01F4)))

    static let leConnectionCompleteFailed = Case(
        name: "LE Connection Complete (Connection Failed to be Established)",
        header: ["3e", "13"],
        parameters: [
            "01",  // Subevent_Code: LE Connection Complete
            "3e",  // Status: 0x3E Connection Failed to be Established
            "00 00",  // Connection_Handle
            "00",  // Role: Central
            "00",  // Peer_Address_Type: Public
            "13 71 da 7d 1a 00",  // Peer_Address: 00:1A:7D:DA:71:13
            "00 00",  // Connection_Interval
            "00 00",  // Peripheral_Latency
            "00 00",  // Supervision_Timeout
            "00",  // Central_Clock_Accuracy
        ],
        mandatory: 10,
        expected: .leConnectionComplete(
            LEConnectionSummary(
                subevent: 0x01, status: .connectionFailedToBeEstablished, handle: 0, role: 0,
                peerAddressType: 0, peerAddress: address("00:1A:7D:DA:71:13"), connectionInterval: 0,
                peripheralLatency: 0, supervisionTimeout: 0)))

    /// §7.7.65.10 LE Enhanced Connection Complete [v1].
    static let leEnhancedConnectionCompleteV1 = Case(
        name: "LE Enhanced Connection Complete v1",
        header: [
            "3e",  // event code: LE Meta
            "1f",  // parameter total length: 31
        ],
        parameters: [
            "0a",  // Subevent_Code: LE Enhanced Connection Complete [v1]
            "00",  // Status: Success
            "41 00",  // Connection_Handle: 0x0041
            "01",  // Role: Peripheral
            "00",  // Peer_Address_Type: Public
            "13 71 da 7d 1a 00",  // Peer_Address: 00:1A:7D:DA:71:13
            "55 44 33 22 11 4a",  // Local_Resolvable_Private_Address: 4A:11:22:33:44:55
            "aa 99 88 77 66 7b",  // Peer_Resolvable_Private_Address: 7B:66:77:88:99:AA
            "24 00",  // Connection_Interval: 0x0024 (45 ms)
            "02 00",  // Peripheral_Latency: 2
            "90 01",  // Supervision_Timeout: 0x0190 (4 s)
            "01",  // Central_Clock_Accuracy: 0x01 (250 ppm)
        ],
        mandatory: 12,
        expected: .leConnectionComplete(
            LEConnectionSummary(
                subevent: 0x0A, status: .success, handle: 0x0041, role: 1, peerAddressType: 0,
                peerAddress: address("00:1A:7D:DA:71:13"),
                localResolvablePrivateAddress: address("4A:11:22:33:44:55"),
                peerResolvablePrivateAddress: address("7B:66:77:88:99:AA"),
                connectionInterval: 0x0024, peripheralLatency: 2, supervisionTimeout: 0x0190)))

    /// §7.7.65.10 LE Enhanced Connection Complete [v2]: v1's fields, then Advertising_Handle and
    /// Sync_Handle.
    static let leEnhancedConnectionCompleteV2 = Case(
        name: "LE Enhanced Connection Complete v2",
        header: [
            "3e",  // event code: LE Meta
            "22",  // parameter total length: 34
        ],
        parameters: [
            "29",  // Subevent_Code: LE Enhanced Connection Complete [v2]
            "00",  // Status: Success
            "42 00",  // Connection_Handle: 0x0042
            "01",  // Role: Peripheral
            "01",  // Peer_Address_Type: Random
            "56 34 12 be 5b c4",  // Peer_Address: C4:5B:BE:12:34:56
            "00 00 00 00 00 00",  // Local_Resolvable_Private_Address: none
            "00 00 00 00 00 00",  // Peer_Resolvable_Private_Address: none
            "18 00",  // Connection_Interval: 0x0018
            "00 00",  // Peripheral_Latency: 0
            "f4 01",  // Supervision_Timeout: 0x01F4
            "00",  // Central_Clock_Accuracy
            "02",  // Advertising_Handle: 0x02
            "ff 0f",  // Sync_Handle: 0x0FFF (not from periodic advertising)
        ],
        mandatory: 14,
        expected: .leConnectionComplete(
            LEConnectionSummary(
                subevent: 0x29, status: .success, handle: 0x0042, role: 1, peerAddressType: 1,
                peerAddress: address("C4:5B:BE:12:34:56"),
                localResolvablePrivateAddress: BluetoothAddress(rawValue: 0),
                peerResolvablePrivateAddress: BluetoothAddress(rawValue: 0),
                connectionInterval: 0x0018, peripheralLatency: 0, supervisionTimeout: 0x01F4,
                advertisingHandle: 0x02, syncHandle: 0x0FFF)))

    /// §7.7.65.7 LE Data Length Change: an LE subevent bletrace keeps raw.
    static let leDataLengthChange = Case(
        name: "LE Data Length Change (unknown subevent, kept raw)",
        header: ["3e", "0b"],  // 11 parameter bytes
        parameters: [
            "07",  // Subevent_Code: LE Data Length Change
            "40 00",  // Connection_Handle
            "fb 00",  // Max_TX_Octets: 251
            "48 08",  // Max_TX_Time: 2120 µs
            "fb 00",  // Max_RX_Octets
            "48 08",  // Max_RX_Time
        ],
        mandatory: 1,
        expected: .leUnknown(
            subevent: 0x07, parameters: [0x40, 0x00, 0xFB, 0x00, 0x48, 0x08, 0xFB, 0x00, 0x48, 0x08]))

    /// §7.7.8 Encryption Change [v1]: an event bletrace keeps raw.
    static let encryptionChange = Case(
        name: "Encryption Change (unknown event, kept raw)",
        header: ["08", "04"],
        parameters: [
            "00",  // Status
            "40 00",  // Connection_Handle
            "01",  // Encryption_Enabled
        ],
        mandatory: 0,
        expected: .unknown(code: 0x08, parameters: [0x00, 0x40, 0x00, 0x01]))

    /// §7.7.76 (vendor-specific event code 0xFF).
    static let vendorEvent = Case(
        name: "Vendor event (kept raw)",
        header: ["ff", "03"],
        parameters: ["01 02 03"],
        mandatory: 0,
        expected: .unknown(code: 0xFF, parameters: [0x01, 0x02, 0x03]))

    /// An unassigned event code with no parameters.
    static let emptyUnassignedEvent = Case(
        name: "Unassigned event with no parameters",
        header: ["fe", "00"],
        parameters: [],
        mandatory: 0,
        expected: .unknown(code: 0xFE, parameters: []))

    static let all: [Case] = [
        commandCompleteReset, commandCompleteDisallowed, commandCompleteReadBDAddr, commandCompleteNoOp,
        commandStatusPending, commandStatusDisallowed, disconnectionComplete,
        disconnectionCompleteReservedBits, connectionComplete, connectionCompletePageTimeout,
        leConnectionComplete, leConnectionCompleteFailed, leEnhancedConnectionCompleteV1,
        leEnhancedConnectionCompleteV2, leDataLengthChange, encryptionChange, vendorEvent,
        emptyUnassignedEvent,
    ]
}

@Suite struct HCIEventTests {
    @Test(arguments: EventPackets.all)
    func handWrittenLengthMatchesTheParameters(_ row: EventPackets.Case) {
        #expect(Int(row.headerBytes[1]) == row.parameterBytes.count)
    }

    @Test(arguments: EventPackets.all)
    func decodesEachField(_ row: EventPackets.Case) throws {
        #expect(try decodeEvent(row.bytes) == row.expected)
    }

    @Test(arguments: EventPackets.all)
    func everyTruncationPrefixThrowsAtTheMissingByte(_ row: EventPackets.Case) {
        let bytes = row.bytes
        for count in 0..<bytes.count {
            let error = #expect(throws: DecodeError.self, "prefix of \(count) bytes") {
                try decodeEvent(Array(bytes.prefix(count)))
            }
            #expect(error?.layer == .hci)
            // Byte 0 is the code, byte 1 the length, then the declared parameters.
            #expect(error?.offset == min(count, 2), "prefix of \(count) bytes")
        }
    }

    /// A consistent packet whose parameter length stops inside a field the event must have.
    @Test(arguments: EventPackets.all)
    func everyShortParameterListThrowsAtTheFirstMissingField(_ row: EventPackets.Case) throws {
        let parameters = row.parameterBytes
        for length in 0..<row.mandatoryLength {
            let bytes = [row.headerBytes[0], UInt8(length)] + parameters.prefix(length)
            let missing = try #require(row.firstMissingField(within: length))
            let error = #expect(throws: DecodeError.self, "\(length) parameter bytes") {
                try decodeEvent(bytes)
            }
            #expect(error?.layer == .hci)
            #expect(error?.offset == 2 + missing, "\(length) parameter bytes")
        }
    }

    @Test func declaredLengthLongerThanTheBytesThrows() {
        let bytes = packet(
            "05",  // Disconnection Complete
            "05",  // parameter total length: 5, one more than follows
            "00", "40 00", "13"
        )
        let error = #expect(throws: DecodeError.self) { try decodeEvent(bytes) }
        #expect(error?.layer == .hci)
        #expect(error?.offset == 2)
        #expect(error?.expected.contains("5") == true)
    }

    @Test func bytesAfterTheDeclaredLengthAreNotParameters() throws {
        let bytes = packet("ff", "01", "aa", "bb cc")  // vendor event, 1 parameter byte, 2 stray
        #expect(try decodeEvent(bytes) == .unknown(code: 0xFF, parameters: [0xAA]))
    }

    @Test(
        arguments: [
            (EventPackets.commandCompleteReset, .success),
            (EventPackets.commandCompleteDisallowed, .commandDisallowed),
            (EventPackets.commandCompleteNoOp, nil),
            (EventPackets.commandStatusDisallowed, .commandDisallowed),
            (EventPackets.disconnectionComplete, .success),
            (EventPackets.connectionCompletePageTimeout, .pageTimeout),
            (EventPackets.leConnectionCompleteFailed, .connectionFailedToBeEstablished),
            (EventPackets.leEnhancedConnectionCompleteV2, .success),
            (EventPackets.leDataLengthChange, nil),
            (EventPackets.encryptionChange, nil),
        ] as [(EventPackets.Case, HCIStatus?)])
    func statusIsTheEventsStatusParameter(_ row: EventPackets.Case, _ status: HCIStatus?) throws {
        let decoded = try row.bytes.withUnsafeBytes { raw throws in try HCIEvent.decode(raw).status }
        #expect(decoded == status)
    }

    @Test(
        arguments: [
            (EventPackets.commandCompleteReset, 0x0E),
            (EventPackets.commandStatusPending, 0x0F),
            (EventPackets.disconnectionComplete, 0x05),
            (EventPackets.connectionComplete, 0x03),
            (EventPackets.leConnectionComplete, 0x3E),
            (EventPackets.leDataLengthChange, 0x3E),
            (EventPackets.encryptionChange, 0x08),
            (EventPackets.vendorEvent, 0xFF),
        ] as [(EventPackets.Case, UInt8)])
    func codeIsTheFirstByte(_ row: EventPackets.Case, _ code: UInt8) throws {
        let decoded = try row.bytes.withUnsafeBytes { raw throws in try HCIEvent.decode(raw).code }
        #expect(decoded.rawValue == code)
    }

    @Test func subeventsOfLEMetaEvents() throws {
        func subevent(_ row: EventPackets.Case) throws -> UInt8? {
            try row.bytes.withUnsafeBytes { raw throws in
                guard case .le(let meta) = try HCIEvent.decode(raw) else { return nil }
                return meta.subevent.rawValue
            }
        }
        #expect(try subevent(EventPackets.leConnectionComplete) == 0x01)
        #expect(try subevent(EventPackets.leEnhancedConnectionCompleteV1) == 0x0A)
        #expect(try subevent(EventPackets.leEnhancedConnectionCompleteV2) == 0x29)
        #expect(try subevent(EventPackets.leDataLengthChange) == 0x07)
    }

    @Test func rawParametersAreViewsIntoThePacket() throws {
        let bytes = EventPackets.commandCompleteReadBDAddr.bytes
        try bytes.withUnsafeBytes { raw throws in
            guard case .commandComplete(_, _, let returnParameters) = try HCIEvent.decode(raw) else {
                Issue.record("not Command Complete")
                return
            }
            // Code, length, Num_HCI_Command_Packets and the 2-byte opcode come first.
            #expect(returnParameters.baseAddress == raw.baseAddress! + 5)
            #expect(returnParameters.count == 7)
        }
    }

    @Test func codeNamesAndUnknownCodes() {
        #expect(HCIEventCode.disconnectionComplete.description == "Disconnection Complete")
        #expect(HCIEventCode.leMeta.description == "LE Meta")
        #expect(HCIEventCode(rawValue: 0x9C).name == nil)
        #expect(HCIEventCode(rawValue: 0x9C).description == "HCIEventCode(0x9c)")
        #expect(LESubeventCode.enhancedConnectionCompleteV2.rawValue == 0x29)
        #expect(LESubeventCode.enhancedConnectionComplete.rawValue == 0x0A)
        #expect(LESubeventCode(rawValue: 0x01).description == "LE Connection Complete")
        #expect(LESubeventCode(rawValue: 0x7F).description == "LESubeventCode(0x7f)")
    }
}
