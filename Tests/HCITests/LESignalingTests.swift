import HCI
import TestSupport
import Testing
import Wire

/// ``LESignalingPDU`` as plain values.
enum SignalingDetail: Equatable, Sendable {
    case commandReject(id: UInt8, reason: UInt16, mtu: UInt16?, cids: [UInt16]?)
    case disconnectionRequest(id: UInt8, destination: UInt16, source: UInt16)
    case disconnectionResponse(id: UInt8, destination: UInt16, source: UInt16)
    case connectionParameterUpdateRequest(id: UInt8, values: [UInt16])
    case connectionParameterUpdateResponse(id: UInt8, result: UInt16)
    case leCreditBasedConnectionRequest(id: UInt8, values: [UInt16])
    case leCreditBasedConnectionResponse(id: UInt8, values: [UInt16], result: UInt16)
    case flowControlCredit(id: UInt8, cid: UInt16, credits: UInt16)
    case unknown(id: UInt8, code: UInt8, data: [UInt8])

    init(_ pdu: LESignalingPDU) {
        let id = pdu.identifier
        switch pdu.command {
        case .commandReject(let r):
            self = .commandReject(
                id: id, reason: r.reason.rawValue, mtu: r.actualMTU,
                cids: r.localCID.map { [$0, r.remoteCID!] })
        case .disconnectionRequest(let d, let s): self = .disconnectionRequest(id: id, destination: d, source: s)
        case .disconnectionResponse(let d, let s): self = .disconnectionResponse(id: id, destination: d, source: s)
        case .connectionParameterUpdateRequest(let min, let max, let latency, let timeout):
            self = .connectionParameterUpdateRequest(id: id, values: [min, max, latency, timeout])
        case .connectionParameterUpdateResponse(let result):
            self = .connectionParameterUpdateResponse(id: id, result: result)
        case .leCreditBasedConnectionRequest(let spsm, let source, let mtu, let mps, let credits):
            self = .leCreditBasedConnectionRequest(id: id, values: [spsm, source, mtu, mps, credits])
        case .leCreditBasedConnectionResponse(let destination, let mtu, let mps, let credits, let result):
            self = .leCreditBasedConnectionResponse(
                id: id, values: [destination, mtu, mps, credits], result: result.rawValue)
        case .flowControlCreditIndication(let cid, let credits):
            self = .flowControlCredit(id: id, cid: cid, credits: credits)
        case .unknown(let code, let data): self = .unknown(id: id, code: code.rawValue, data: Array(data))
        }
    }
}

func decodeSignaling(_ bytes: [UInt8]) throws -> SignalingDetail {
    try bytes.withUnsafeBytes { raw throws in SignalingDetail(try LESignalingPDU.decode(raw)) }
}

/// LE signaling commands (L2CAP channel 0x0005), written by hand from Core 6.0, Vol 3, Part A, §4:
/// Code, Identifier, Length (2 bytes), Data.
enum SignalingTable {
    typealias Row = FieldPacket<SignalingDetail>

    static let rows: [Row] = [
        Row(
            name: "Command Reject, not understood", framing: .signaling,
            header: ["01", "02", "02 00"],  // Code, Identifier 2, Length 2
            fields: ["00 00"],  // Reason 0x0000 Command not understood
            expected: .commandReject(id: 2, reason: 0, mtu: nil, cids: nil)),
        Row(
            name: "Command Reject, signaling MTU exceeded", framing: .signaling,
            header: ["01", "03", "04 00"],
            fields: [
                "01 00",  // Reason 0x0001
                "17 00",  // Actual MTU 23
            ],
            expected: .commandReject(id: 3, reason: 1, mtu: 23, cids: nil)),
        Row(
            name: "Command Reject, invalid CID", framing: .signaling,
            header: ["01", "04", "06 00"],
            fields: [
                "02 00",  // Reason 0x0002
                "40 00",  // Local Endpoint 0x0040
                "41 00",  // Remote Endpoint 0x0041
            ],
            expected: .commandReject(id: 4, reason: 2, mtu: nil, cids: [0x40, 0x41])),
        Row(
            name: "Disconnection Request", framing: .signaling,
            header: ["06", "05", "04 00"],
            fields: [
                "40 00",  // Destination CID
                "41 00",  // Source CID
            ],
            expected: .disconnectionRequest(id: 5, destination: 0x40, source: 0x41)),
        Row(
            name: "Disconnection Response", framing: .signaling,
            header: ["07", "05", "04 00"],
            fields: ["40 00", "41 00"],  // Destination CID, Source CID
            expected: .disconnectionResponse(id: 5, destination: 0x40, source: 0x41)),
        Row(
            name: "Connection Parameter Update Request", framing: .signaling,
            header: ["12", "01", "08 00"],
            fields: [
                "18 00",  // Interval Min 0x0018 (30 ms)
                "28 00",  // Interval Max 0x0028 (50 ms)
                "00 00",  // Peripheral Latency 0
                "f4 01",  // Timeout Multiplier 0x01F4 (5 s)
            ],
            expected: .connectionParameterUpdateRequest(id: 1, values: [0x18, 0x28, 0, 0x1F4])),
        Row(
            name: "Connection Parameter Update Response, rejected", framing: .signaling,
            header: ["13", "01", "02 00"],
            fields: ["01 00"],  // Result 0x0001 rejected
            expected: .connectionParameterUpdateResponse(id: 1, result: 1)),
        Row(
            name: "LE Credit Based Connection Request", framing: .signaling,
            header: ["14", "06", "0a 00"],
            fields: [
                "80 00",  // SPSM 0x0080
                "40 00",  // Source CID 0x0040
                "00 02",  // MTU 512
                "f7 00",  // MPS 247
                "0a 00",  // Initial Credits 10
            ],
            expected: .leCreditBasedConnectionRequest(id: 6, values: [0x80, 0x40, 512, 247, 10])),
        Row(
            name: "LE Credit Based Connection Response, success", framing: .signaling,
            header: ["15", "06", "0a 00"],
            fields: [
                "41 00",  // Destination CID 0x0041
                "00 02",  // MTU 512
                "f7 00",  // MPS 247
                "05 00",  // Initial Credits 5
                "00 00",  // Result: Connection successful
            ],
            expected: .leCreditBasedConnectionResponse(id: 6, values: [0x41, 512, 247, 5], result: 0)),
        Row(
            name: "LE Credit Based Connection Response, insufficient authentication", framing: .signaling,
            header: ["15", "07", "0a 00"],
            fields: ["00 00", "00 00", "00 00", "00 00", "05 00"],  // zeros, Result 0x0005
            expected: .leCreditBasedConnectionResponse(id: 7, values: [0, 0, 0, 0], result: 5)),
        Row(
            name: "Flow Control Credit Indication", framing: .signaling,
            header: ["16", "08", "04 00"],
            fields: [
                "40 00",  // CID 0x0040
                "05 00",  // Credits 5
            ],
            expected: .flowControlCredit(id: 8, cid: 0x40, credits: 5)),
        Row(
            name: "Credit Based Connection Request, enhanced (named, kept raw)", framing: .signaling,
            header: ["17", "09", "0c 00"],
            fields: ["27", "00", "40", "00", "40", "00", "0a", "00", "40", "00", "41", "00"],
            endsAfter: Set(0..<12),
            expected: .unknown(
                id: 9, code: 0x17, data: [0x27, 0x00, 0x40, 0x00, 0x40, 0x00, 0x0A, 0x00, 0x40, 0x00, 0x41, 0x00])),
        Row(
            name: "Unassigned code (kept raw)", framing: .signaling,
            header: ["20", "0a", "02 00"],
            fields: ["aa", "bb"], endsAfter: [0, 1],
            expected: .unknown(id: 10, code: 0x20, data: [0xAA, 0xBB])),
    ]
}

@Suite struct LESignalingTests {
    @Test(arguments: SignalingTable.rows)
    func handWrittenLengthMatchesTheFields(_ row: SignalingTable.Row) {
        TableChecks.declaredLengthMatches(row)
    }

    @Test(arguments: SignalingTable.rows)
    func decodesEveryField(_ row: SignalingTable.Row) throws {
        try TableChecks.decodes(row, decodeSignaling)
    }

    @Test(arguments: SignalingTable.rows)
    func everyTruncationPrefixThrowsAtTheMissingByte(_ row: SignalingTable.Row) {
        TableChecks.everyRawPrefixThrows(row, layer: .l2cap, decodeSignaling)
    }

    @Test(arguments: SignalingTable.rows)
    func everyShortCommandThrowsAtTheFirstMissingField(_ row: SignalingTable.Row) {
        TableChecks.everyShortParameterListThrowsAtTheMissingField(row, layer: .l2cap, decodeSignaling)
    }

    @Test func aSecondCommandInTheFrameIsRefused() {
        let bytes = packet("13", "01", "02 00", "00 00", "13 02 02 00 00 00")
        let error = #expect(throws: DecodeError.self) { try decodeSignaling(bytes) }
        #expect(error?.layer == .l2cap)
        #expect(error?.offset == 6)
    }

    @Test func namesOfCodesReasonsAndResults() {
        #expect(L2CAPSignalingCode.creditBasedReconfigureResponse.description == "Credit Based Reconfigure Response")
        #expect(L2CAPSignalingCode(rawValue: 0x17).description == "Credit Based Connection Request")
        #expect(L2CAPSignalingCode(rawValue: 0x16).description == "Flow Control Credit Indication")
        #expect(L2CAPSignalingCode(rawValue: 0x20).description == "L2CAPSignalingCode(0x20)")
        #expect(L2CAPCommandRejectReason.invalidCIDInRequest.description == "Invalid CID in request")
        #expect(
            L2CAPLECreditBasedConnectionResult(rawValue: 5).description
                == "Connection refused - insufficient authentication")
    }
}
