import HCI
import TestSupport
import Testing
import Wire

/// Command packets written by hand from Core 6.0, Vol 4, Part E, §7 (no H4 indicator byte).
enum CommandPackets {
    typealias Case = PacketCase<CommandSummary>

    /// §7.1.6 Disconnect.
    static let disconnect = Case(
        name: "Disconnect",
        header: [
            "06 04",  // opcode 0x0406: OGF 0x01 (link control), OCF 0x006
            "03",  // parameter total length: 3
        ],
        parameters: [
            "40 00",  // Connection_Handle: 0x0040
            "13",  // Reason: 0x13 Remote User Terminated Connection
        ],
        mandatory: 2,
        expected: .disconnect(handle: 0x0040, reason: .remoteUserTerminatedConnection))

    /// §7.8.12 LE Create Connection to one peer.
    static let leCreateConnection = Case(
        name: "LE Create Connection (peer address)",
        header: [
            "0d 20",  // opcode 0x200D: OGF 0x08 (LE), OCF 0x00D
            "19",  // parameter total length: 25
        ],
        parameters: [
            "60 00",  // LE_Scan_Interval 0x0060
            "30 00",  // LE_Scan_Window 0x0030
            "00",  // Initiator_Filter_Policy: use Peer_Address
            "01",  // Peer_Address_Type: Random
            "56 34 12 be 5b c4",  // Peer_Address: C4:5B:BE:12:34:56
            "00",  // Own_Address_Type: Public
            "18 00",  // Connection_Interval_Min: 0x0018
            "28 00",  // Connection_Interval_Max: 0x0028
            "00 00",  // Max_Latency: 0
            "f4 01",  // Supervision_Timeout: 0x01F4
            "00 00",  // Min_CE_Length
            "00 00",  // Max_CE_Length
        ],
        mandatory: 12,
        expected: .leCreateConnection(
            CreateConnectionSummary(
                initiatorFilterPolicy: 0, ownAddressType: 0, peerAddressType: 1,
                peerAddress: address("C4:5B:BE:12:34:56"), connectionIntervalMin: 0x0018,
                connectionIntervalMax: 0x0028, maxLatency: 0, supervisionTimeout: 0x01F4,
                usesFilterAcceptList: false)))

    /// §7.8.12 LE Create Connection to whichever Filter Accept List device is seen first.
    static let leCreateConnectionFilterAcceptList = Case(
        name: "LE Create Connection (Filter Accept List)",
        header: ["0d 20", "19"],
        parameters: [
            "10 00",  // LE_Scan_Interval 0x0010
            "10 00",  // LE_Scan_Window 0x0010
            "01",  // Initiator_Filter_Policy: Filter Accept List
            "00",  // Peer_Address_Type (ignored)
            "00 00 00 00 00 00",  // Peer_Address (ignored)
            "01",  // Own_Address_Type: Random
            "06 00",  // Connection_Interval_Min: 0x0006 (7.5 ms)
            "0c 00",  // Connection_Interval_Max: 0x000C
            "04 00",  // Max_Latency: 4
            "64 00",  // Supervision_Timeout: 0x0064 (1 s)
            "00 00",  // Min_CE_Length
            "00 00",  // Max_CE_Length
        ],
        mandatory: 12,
        expected: .leCreateConnection(
            CreateConnectionSummary(
                initiatorFilterPolicy: 1, ownAddressType: 1, peerAddressType: 0,
                peerAddress: BluetoothAddress(rawValue: 0), connectionIntervalMin: 0x0006,
                connectionIntervalMax: 0x000C, maxLatency: 4, supervisionTimeout: 0x0064,
                usesFilterAcceptList: true)))

    /// §7.8.66 LE Extended Create Connection [v1] on LE 1M.
    static let leExtendedCreateConnection = Case(
        name: "LE Extended Create Connection (1M)",
        header: [
            "43 20",  // opcode 0x2043: OGF 0x08, OCF 0x043
            "1a",  // parameter total length: 26 (10 + 16 for one PHY)
        ],
        parameters: [
            "00",  // Initiator_Filter_Policy: use Peer_Address
            "01",  // Own_Address_Type: Random
            "00",  // Peer_Address_Type: Public
            "13 71 da 7d 1a 00",  // Peer_Address: 00:1A:7D:DA:71:13
            "01",  // Initiating_PHYs: LE 1M
            "60 00",  // Scan_Interval[0]
            "60 00",  // Scan_Window[0]
            "18 00",  // Connection_Interval_Min[0]
            "18 00",  // Connection_Interval_Max[0]
            "04 00",  // Max_Latency[0]
            "48 00",  // Supervision_Timeout[0]: 0x0048 (720 ms)
            "00 00",  // Min_CE_Length[0]
            "00 00",  // Max_CE_Length[0]
        ],
        mandatory: 13,  // the length must be exactly 10 + 16 for one PHY
        expected: .leExtendedCreateConnection(
            CreateConnectionSummary(
                initiatorFilterPolicy: 0, ownAddressType: 1, peerAddressType: 0,
                peerAddress: address("00:1A:7D:DA:71:13"), connectionIntervalMin: 0x0018,
                connectionIntervalMax: 0x0018, maxLatency: 4, supervisionTimeout: 0x0048,
                usesFilterAcceptList: false)))

    /// §7.8.66 with two PHYs: the arrayed parameters are interleaved per PHY (Vol 4, Part E,
    /// §5.2), so the first PHY's set comes first, whole.
    static let leExtendedCreateConnectionTwoPHYs = Case(
        name: "LE Extended Create Connection (1M and Coded, Filter Accept List)",
        header: ["43 20", "2a"],  // 42 = 10 + 2 × 16
        parameters: [
            "01",  // Initiator_Filter_Policy: Filter Accept List
            "00",  // Own_Address_Type: Public
            "00",  // Peer_Address_Type
            "00 00 00 00 00 00",  // Peer_Address (ignored)
            "05",  // Initiating_PHYs: LE 1M (bit 0) and LE Coded (bit 2)
            "60 00", "30 00",  // 1M: Scan_Interval, Scan_Window
            "18 00",  // 1M: Connection_Interval_Min
            "28 00",  // 1M: Connection_Interval_Max
            "00 00",  // 1M: Max_Latency
            "c8 00",  // 1M: Supervision_Timeout 0x00C8
            "00 00", "00 00",  // 1M: Min_CE_Length, Max_CE_Length
            "20 01", "20 01",  // Coded: Scan_Interval, Scan_Window
            "30 00",  // Coded: Connection_Interval_Min
            "40 00",  // Coded: Connection_Interval_Max
            "01 00",  // Coded: Max_Latency
            "90 01",  // Coded: Supervision_Timeout
            "00 00", "00 00",  // Coded: Min_CE_Length, Max_CE_Length
        ],
        mandatory: 21,  // the length must be exactly 10 + 16 for each of the two PHYs
        expected: .leExtendedCreateConnection(
            CreateConnectionSummary(
                initiatorFilterPolicy: 1, ownAddressType: 0, peerAddressType: 0,
                peerAddress: BluetoothAddress(rawValue: 0), connectionIntervalMin: 0x0018,
                connectionIntervalMax: 0x0028, maxLatency: 0, supervisionTimeout: 0x00C8,
                usesFilterAcceptList: true)))

    /// §7.8.13 LE Create Connection Cancel: no parameters.
    static let leCreateConnectionCancel = Case(
        name: "LE Create Connection Cancel",
        header: [
            "0e 20",  // opcode 0x200E
            "00",  // parameter total length: 0
        ],
        parameters: [],
        mandatory: 0,
        expected: .leCreateConnectionCancel)

    /// A vendor command: OGF 0x3F, OCF 0x153 → opcode 0xFC00 | 0x153 = 0xFD53.
    static let vendorCommand = Case(
        name: "Vendor command (kept raw)",
        header: [
            "53 fd",  // opcode 0xFD53
            "03",  // parameter total length: 3
        ],
        parameters: ["01 02 03"],
        mandatory: 0,
        expected: .unknown(opcode: HCIOpcode(rawValue: 0xFD53), parameters: [0x01, 0x02, 0x03]))

    /// §7.3.2 Reset: a standard command bletrace keeps raw.
    static let reset = Case(
        name: "Reset (kept raw)",
        header: ["03 0c", "00"],
        parameters: [],
        mandatory: 0,
        expected: .unknown(opcode: HCIOpcode(rawValue: 0x0C03), parameters: []))

    static let all: [Case] = [
        disconnect, leCreateConnection, leCreateConnectionFilterAcceptList, leExtendedCreateConnection,
        leExtendedCreateConnectionTwoPHYs, leCreateConnectionCancel, vendorCommand, reset,
    ]
}

@Suite struct HCICommandTests {
    @Test(arguments: CommandPackets.all)
    func handWrittenLengthMatchesTheParameters(_ row: CommandPackets.Case) {
        #expect(Int(row.headerBytes[2]) == row.parameterBytes.count)
    }

    @Test(arguments: CommandPackets.all)
    func decodesEachField(_ row: CommandPackets.Case) throws {
        #expect(try decodeCommand(row.bytes) == row.expected)
    }

    @Test(arguments: CommandPackets.all)
    func opcodeMatchesThePacket(_ row: CommandPackets.Case) throws {
        let opcode = try row.bytes.withUnsafeBytes { raw throws in try HCICommand.decode(raw).opcode }
        #expect(opcode.rawValue == UInt16(row.headerBytes[0]) | UInt16(row.headerBytes[1]) << 8)
    }

    @Test(arguments: CommandPackets.all)
    func everyTruncationPrefixThrowsAtTheMissingByte(_ row: CommandPackets.Case) {
        let bytes = row.bytes
        for count in 0..<bytes.count {
            let error = #expect(throws: DecodeError.self, "prefix of \(count) bytes") {
                try decodeCommand(Array(bytes.prefix(count)))
            }
            #expect(error?.layer == .hci)
            // Bytes 0-1 are the opcode, byte 2 the length, then the declared parameters.
            let expected = count < 2 ? 0 : count == 2 ? 2 : 3
            #expect(error?.offset == expected, "prefix of \(count) bytes")
        }
    }

    @Test(arguments: CommandPackets.all)
    func everyShortParameterListThrowsAtTheFirstMissingField(_ row: CommandPackets.Case) throws {
        let parameters = row.parameterBytes
        for length in 0..<row.mandatoryLength {
            let bytes = Array(row.headerBytes.prefix(2)) + [UInt8(length)] + parameters.prefix(length)
            let missing = try #require(row.firstMissingField(within: length))
            let error = #expect(throws: DecodeError.self, "\(length) parameter bytes") {
                try decodeCommand(bytes)
            }
            #expect(error?.layer == .hci)
            #expect(error?.offset == 3 + missing, "\(length) parameter bytes")
        }
    }

    @Test func extendedCreateConnectionWithNoPHYThrowsAtThePHYField() {
        let bytes = packet(
            "43 20", "1a",
            "00", "01", "00", "13 71 da 7d 1a 00",
            "00",  // Initiating_PHYs: none, which the specification forbids
            "60 00 60 00", "18 00", "18 00", "04 00", "48 00", "00 00 00 00"
        )
        let error = #expect(throws: DecodeError.self) { try decodeCommand(bytes) }
        #expect(error?.layer == .hci)
        // Header 3 bytes + filter policy, two address types and the address (9 bytes).
        #expect(error?.offset == 12)
    }

    @Test func vendorOpcodeSplitsIntoOGF0x3F() throws {
        let opcode = try CommandPackets.vendorCommand.bytes.withUnsafeBytes { raw throws in
            try HCICommand.decode(raw).opcode
        }
        #expect(opcode.ogf == 0x3F)
        #expect(opcode.ocf == 0x153)
    }

    @Test func unknownParametersAreAViewIntoThePacket() throws {
        let bytes = CommandPackets.vendorCommand.bytes
        try bytes.withUnsafeBytes { raw throws in
            guard case .unknown(_, let parameters) = try HCICommand.decode(raw) else {
                Issue.record("not unknown")
                return
            }
            #expect(parameters.baseAddress == raw.baseAddress! + 3)
        }
    }

    @Test func disconnectHandleDropsTheReservedBits() throws {
        let bytes = packet("06 04", "03", "41 f0", "16")  // handle 0x041, reserved bits set
        #expect(try decodeCommand(bytes) == .disconnect(handle: 0x041, reason: .connectionTerminatedByLocalHost))
    }
}
