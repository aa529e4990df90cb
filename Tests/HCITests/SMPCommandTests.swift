import HCI
import TestSupport
import Testing
import Wire

/// ``SMPCommand`` as plain values.
enum SMPDetail: Equatable, Sendable {
    /// IO capability, OOB flag, AuthReq, max key size, initiator keys, responder keys.
    case pairingRequest([UInt8])
    case pairingResponse([UInt8])
    case pairingConfirm(UInt128)
    case pairingRandom(UInt128)
    case pairingFailed(UInt8)
    case pairingPublicKey(x: [UInt8], y: [UInt8])
    case pairingDHKeyCheck(UInt128)
    case keypressNotification(UInt8)
    case encryptionInformation(UInt128)
    case centralIdentification(ediv: UInt16, rand: UInt64)
    case identityInformation(UInt128)
    case identityAddressInformation(addressType: UInt8, address: BluetoothAddress)
    case signingInformation(UInt128)
    case securityRequest(UInt8)
    case unknown(code: UInt8, parameters: [UInt8])

    init(_ command: SMPCommand) {
        func features(_ f: SMPPairingFeatures) -> [UInt8] {
            [
                f.ioCapability.rawValue, f.oobDataFlag, f.authenticationRequirements.rawValue,
                f.maximumEncryptionKeySize,
                f.initiatorKeyDistribution.rawValue, f.responderKeyDistribution.rawValue,
            ]
        }
        switch command {
        case .pairingRequest(let f): self = .pairingRequest(features(f))
        case .pairingResponse(let f): self = .pairingResponse(features(f))
        case .pairingConfirm(let value): self = .pairingConfirm(value)
        case .pairingRandom(let value): self = .pairingRandom(value)
        case .pairingFailed(let reason): self = .pairingFailed(reason.rawValue)
        case .pairingPublicKey(let x, let y): self = .pairingPublicKey(x: Array(x), y: Array(y))
        case .pairingDHKeyCheck(let value): self = .pairingDHKeyCheck(value)
        case .pairingKeypressNotification(let type): self = .keypressNotification(type.rawValue)
        case .encryptionInformation(let key): self = .encryptionInformation(key)
        case .centralIdentification(let ediv, let rand): self = .centralIdentification(ediv: ediv, rand: rand)
        case .identityInformation(let key): self = .identityInformation(key)
        case .identityAddressInformation(let type, let address):
            self = .identityAddressInformation(addressType: type, address: address)
        case .signingInformation(let key): self = .signingInformation(key)
        case .securityRequest(let auth): self = .securityRequest(auth.rawValue)
        case .unknown(let code, let parameters): self = .unknown(code: code.rawValue, parameters: Array(parameters))
        }
    }
}

func decodeSMP(_ bytes: [UInt8]) throws -> SMPDetail {
    try bytes.withUnsafeBytes { raw throws in SMPDetail(try SMPPDU.decode(raw).command) }
}

/// Every SMP command, written by hand from Core 6.0, Vol 3, Part H, §3.5 and §3.6 (the L2CAP
/// payload on channel 0x0006).
enum SMPTable {
    typealias Row = FieldPacket<SMPDetail>

    static let x = "e6 9d 35 0e 48 01 03 cc db fd f4 ac 11 91 f4 ef b9 a5 f9 e9 a7 83 2c 5e 2c be 97 f2 d2 03 b0 20"
    static let y = "8b d2 89 15 d0 8e 1c 74 24 30 ed 8f c2 45 63 76 5c 15 52 5a bf 9a 32 63 6d eb 2a 65 49 9c 80 dc"

    static let rows: [Row] = [
        Row(
            name: "Pairing Request (§3.5.1)", framing: .bare,
            header: ["01"],  // Code
            fields: [
                "03",  // IO Capability NoInputNoOutput
                "00",  // OOB data flag: not present
                "2d",  // AuthReq 0b0010_1101: Bonding, MITM, SC, CT2
                "10",  // Maximum Encryption Key Size 16
                "0d",  // Initiator Key Distribution: EncKey, SignKey, LinkKey
                "0f",  // Responder Key Distribution: all four
            ],
            expected: .pairingRequest([0x03, 0x00, 0x2D, 0x10, 0x0D, 0x0F])),
        Row(
            name: "Pairing Response (§3.5.2)", framing: .bare,
            header: ["02"],
            fields: [
                "04",  // IO Capability KeyboardDisplay
                "01",  // OOB data flag: present
                "09",  // AuthReq: Bonding, SC
                "07",  // Maximum Encryption Key Size 7
                "02",  // Initiator Key Distribution: IdKey
                "03",  // Responder Key Distribution: EncKey, IdKey
            ],
            expected: .pairingResponse([0x04, 0x01, 0x09, 0x07, 0x02, 0x03])),
        Row(
            name: "Pairing Confirm (§3.5.3)", framing: .bare,
            header: ["03"],
            fields: ["00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f"],  // Confirm Value, low byte first
            expected: .pairingConfirm(0x0F0E_0D0C_0B0A_0908_0706_0504_0302_0100)),
        Row(
            name: "Pairing Random (§3.5.4)", framing: .bare,
            header: ["04"],
            fields: ["ff ee dd cc bb aa 99 88 77 66 55 44 33 22 11 00"],  // Random Value
            expected: .pairingRandom(0x0011_2233_4455_6677_8899_AABB_CCDD_EEFF)),
        Row(
            name: "Pairing Failed (§3.5.5)", framing: .bare,
            header: ["05"], fields: ["04"],  // Reason 0x04 Confirm Value Failed
            expected: .pairingFailed(0x04)),
        Row(
            name: "Pairing Public Key (§3.5.6)", framing: .bare,
            header: ["0c"],
            fields: [x, y],  // Public Key X, Public Key Y (32 bytes each)
            expected: .pairingPublicKey(x: packet(x), y: packet(y))),
        Row(
            name: "Pairing DHKey Check (§3.5.7)", framing: .bare,
            header: ["0d"],
            fields: ["10 32 54 76 98 ba dc fe 01 23 45 67 89 ab cd ef"],  // DHKey Check (Ea or Eb)
            expected: .pairingDHKeyCheck(0xEFCD_AB89_6745_2301_FEDC_BA98_7654_3210)),
        Row(
            name: "Pairing Keypress Notification (§3.5.8)", framing: .bare,
            header: ["0e"], fields: ["01"],  // Notification Type: passkey digit entered
            expected: .keypressNotification(1)),
        Row(
            name: "Encryption Information (§3.6.2)", framing: .bare,
            header: ["06"],
            fields: ["bf 01 fb 9d 4e f3 bc 36 d8 74 f5 39 41 38 68 4c"],  // Long Term Key
            expected: .encryptionInformation(0x4C68_3841_39F5_74D8_36BC_F34E_9DFB_01BF)),
        Row(
            name: "Central Identification (§3.6.3)", framing: .bare,
            header: ["07"],
            fields: [
                "34 12",  // EDIV 0x1234
                "01 02 03 04 05 06 07 08",  // Rand 0x0807060504030201
            ],
            expected: .centralIdentification(ediv: 0x1234, rand: 0x0807_0605_0403_0201)),
        Row(
            name: "Identity Information (§3.6.4)", framing: .bare,
            header: ["08"],
            fields: ["0f 0e 0d 0c 0b 0a 09 08 07 06 05 04 03 02 01 00"],  // Identity Resolving Key
            expected: .identityInformation(0x0001_0203_0405_0607_0809_0A0B_0C0D_0E0F)),
        Row(
            name: "Identity Address Information (§3.6.5)", framing: .bare,
            header: ["09"],
            fields: [
                "01",  // AddrType: random static
                "56 34 12 be 5b c4",  // BD_ADDR C4:5B:BE:12:34:56
            ],
            expected: .identityAddressInformation(addressType: 1, address: address("C4:5B:BE:12:34:56"))),
        Row(
            name: "Signing Information (§3.6.6)", framing: .bare,
            header: ["0a"],
            fields: ["aa aa aa aa aa aa aa aa 55 55 55 55 55 55 55 55"],  // Signature Key (CSRK)
            expected: .signingInformation(0x5555_5555_5555_5555_AAAA_AAAA_AAAA_AAAA)),
        Row(
            name: "Security Request (§3.6.7)", framing: .bare,
            header: ["0b"], fields: ["0d"],  // AuthReq: Bonding, MITM, SC
            expected: .securityRequest(0x0D)),
        Row(
            name: "Unassigned code (kept raw)", framing: .bare,
            header: ["20"], fields: ["aa", "bb"], endsAfter: [0, 1],
            expected: .unknown(code: 0x20, parameters: [0xAA, 0xBB])),
    ]
}

@Suite struct SMPCommandTests {
    @Test(arguments: SMPTable.rows)
    func decodesEveryField(_ row: SMPTable.Row) throws {
        try TableChecks.decodes(row, decodeSMP)
    }

    @Test(arguments: SMPTable.rows)
    func everyTruncationPrefixThrowsAtTheMissingField(_ row: SMPTable.Row) {
        TableChecks.everyRawPrefixThrows(row, layer: .smp, decodeSMP)
    }

    @Test(arguments: SMPTable.rows.filter { $0.endsAfter.isEmpty })
    func aByteTooManyIsRefusedWhereItBegins(_ row: SMPTable.Row) {
        let error = #expect(throws: DecodeError.self) { try decodeSMP(row.bytes + [0x00]) }
        #expect(error?.layer == .smp)
        #expect(error?.offset == row.bytes.count)
    }

    @Test(arguments: SMPTable.rows)
    func codeAndParametersKeepTheirMeaning(_ row: SMPTable.Row) throws {
        try row.bytes.withUnsafeBytes { raw throws in
            let pdu = try SMPPDU.decode(raw)
            #expect(pdu.code.rawValue == row.headerBytes[0])
            #expect(pdu.command.code == pdu.code)
            #expect(Array(pdu.parameters) == row.parameterBytes)
            #expect(pdu.parameters.baseAddress == raw.baseAddress! + 1)
        }
    }

    @Test func pairingFailedReasonIsStillOffered() throws {
        try SMPTable.rows[4].bytes.withUnsafeBytes { raw throws in
            let pdu = try SMPPDU.decode(raw)
            #expect(pdu.pairingFailedReason?.rawValue == 0x04)
            #expect(pdu.pairingFailedReason?.name == "Confirm Value Failed")
        }
        try SMPTable.rows[0].bytes.withUnsafeBytes { raw throws in
            #expect(try SMPPDU.decode(raw).pairingFailedReason == nil)
        }
    }

    @Test func pairingFeatureBits() throws {
        try SMPTable.rows[0].bytes.withUnsafeBytes { raw throws in
            guard case .pairingRequest(let f) = try SMPPDU.decode(raw).command else {
                Issue.record("not a Pairing Request")
                return
            }
            #expect(f.ioCapability == .noInputNoOutput)
            #expect(f.ioCapability.description == "NoInputNoOutput")
            let auth = f.authenticationRequirements
            #expect(auth.bonding && auth.mitm && auth.secureConnections && !auth.keypress && auth.ct2)
            #expect(f.initiatorKeyDistribution == [.encryptionKey, .signingKey, .linkKey])
            #expect(f.responderKeyDistribution == [.encryptionKey, .identityKey, .signingKey, .linkKey])
        }
        try SMPTable.rows[13].bytes.withUnsafeBytes { raw throws in
            guard case .securityRequest(let auth) = try SMPPDU.decode(raw).command else {
                Issue.record("not a Security Request")
                return
            }
            #expect(auth.bonding && auth.mitm && auth.secureConnections && !auth.ct2)
        }
    }

    @Test func namesOfCodesAndTypes() {
        #expect(SMPCode.pairingPublicKey.description == "Pairing Public Key")
        #expect(SMPCode(rawValue: 0x20).description == "SMPCode(0x20)")
        #expect(SMPKeypressNotificationType(rawValue: 4).description == "Passkey entry completed")
        #expect(SMPIOCapability(rawValue: 9).description == "SMPIOCapability(0x9)")
    }
}
