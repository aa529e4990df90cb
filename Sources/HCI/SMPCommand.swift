import Wire

/// A Security Manager Protocol command, decoded. Core 6.0, Vol 3, Part H, §3.5 (pairing
/// methods) and §3.6 (key distribution).
///
/// 128-bit values (keys, confirm and random values) are read least significant byte first, as
/// SMP carries them; printed most significant first they read as the specification's examples.
/// CoreBluetooth does not show SMP; a pairing failure surfaces as the error of the GATT request
/// that needed it (`CBATTError.insufficientAuthentication`, `.insufficientEncryption`, ...).
public enum SMPCommand {
    /// §3.5.1.
    case pairingRequest(SMPPairingFeatures)
    /// §3.5.2.
    case pairingResponse(SMPPairingFeatures)
    /// §3.5.3. Mconfirm or Sconfirm.
    case pairingConfirm(UInt128)
    /// §3.5.4. Mrand or Srand.
    case pairingRandom(UInt128)
    /// §3.5.5.
    case pairingFailed(SMPPairingFailedReason)
    /// §3.5.6. Pairing Public Key: the P-256 public key's X and Y coordinates (32 bytes each,
    /// least significant byte first), views into the PDU.
    case pairingPublicKey(x: UnsafeRawBufferPointer, y: UnsafeRawBufferPointer)
    /// §3.5.7. Ea or Eb.
    case pairingDHKeyCheck(UInt128)
    /// §3.5.8.
    case pairingKeypressNotification(SMPKeypressNotificationType)
    /// §3.6.2. The LTK (LE legacy pairing).
    case encryptionInformation(longTermKey: UInt128)
    /// §3.6.3. EDIV and Rand, which identify the LTK just distributed.
    case centralIdentification(encryptedDiversifier: UInt16, randomNumber: UInt64)
    /// §3.6.4. The IRK.
    case identityInformation(identityResolvingKey: UInt128)
    /// §3.6.5. 0x00 public, 0x01 random static.
    case identityAddressInformation(addressType: UInt8, address: BluetoothAddress)
    /// §3.6.6. The CSRK.
    case signingInformation(signatureKey: UInt128)
    /// §3.6.7. A peripheral asks the central to pair or encrypt.
    case securityRequest(SMPAuthenticationRequirements)
    /// Any other code, with what follows it kept raw.
    case unknown(code: SMPCode, parameters: UnsafeRawBufferPointer)

    public var code: SMPCode {
        switch self {
        case .pairingRequest: .pairingRequest
        case .pairingResponse: .pairingResponse
        case .pairingConfirm: .pairingConfirm
        case .pairingRandom: .pairingRandom
        case .pairingFailed: .pairingFailed
        case .pairingPublicKey: .pairingPublicKey
        case .pairingDHKeyCheck: .pairingDHKeyCheck
        case .pairingKeypressNotification: .pairingKeypressNotification
        case .encryptionInformation: .encryptionInformation
        case .centralIdentification: .centralIdentification
        case .identityInformation: .identityInformation
        case .identityAddressInformation: .identityAddressInformation
        case .signingInformation: .signingInformation
        case .securityRequest: .securityRequest
        case .unknown(let code, _): code
        }
    }

    /// Reads the parameters of `code` at `r` (positioned after the code).
    init(code: SMPCode, _ r: inout ByteReader) throws(DecodeError) {
        switch code.rawValue {
        case 0x01: self = .pairingRequest(try SMPPairingFeatures(&r))
        case 0x02: self = .pairingResponse(try SMPPairingFeatures(&r))
        case 0x03: self = .pairingConfirm(try r.u128le("Confirm Value (16 bytes)"))
        case 0x04: self = .pairingRandom(try r.u128le("Random Value (16 bytes)"))
        case 0x05:
            self = .pairingFailed(SMPPairingFailedReason(rawValue: try r.u8("the Pairing Failed reason (1 byte)")))
        case 0x06: self = .encryptionInformation(longTermKey: try r.u128le("Long Term Key (16 bytes)"))
        case 0x07:
            let ediv = try r.u16le("EDIV (2 bytes)")
            self = .centralIdentification(encryptedDiversifier: ediv, randomNumber: try r.u64le("Rand (8 bytes)"))
        case 0x08: self = .identityInformation(identityResolvingKey: try r.u128le("Identity Resolving Key (16 bytes)"))
        case 0x09:
            let type = try r.u8("AddrType")
            self = .identityAddressInformation(addressType: type, address: try r.deviceAddress("BD_ADDR (6 bytes)"))
        case 0x0A: self = .signingInformation(signatureKey: try r.u128le("Signature Key (16 bytes)"))
        case 0x0B: self = .securityRequest(SMPAuthenticationRequirements(rawValue: try r.u8("AuthReq")))
        case 0x0C:
            let x = try r.bytes(32, "Public Key X (32 bytes)")
            self = .pairingPublicKey(x: x, y: try r.bytes(32, "Public Key Y (32 bytes)"))
        case 0x0D: self = .pairingDHKeyCheck(try r.u128le("DHKey Check (16 bytes)"))
        case 0x0E:
            self = .pairingKeypressNotification(SMPKeypressNotificationType(rawValue: try r.u8("Notification Type")))
        default: self = .unknown(code: code, parameters: r.rest())
        }
    }
}

/// The pairing features a Pairing Request or Response exchanges. Core 6.0, Vol 3, Part H, §3.5.1.
public struct SMPPairingFeatures: Hashable, Sendable {
    public var ioCapability: SMPIOCapability
    /// 0x00 OOB authentication data not present, 0x01 present.
    public var oobDataFlag: UInt8
    public var authenticationRequirements: SMPAuthenticationRequirements
    /// 7 to 16 octets.
    public var maximumEncryptionKeySize: UInt8
    public var initiatorKeyDistribution: SMPKeyDistribution
    public var responderKeyDistribution: SMPKeyDistribution

    init(_ reader: inout ByteReader) throws(DecodeError) {
        ioCapability = SMPIOCapability(rawValue: try reader.u8("IO Capability"))
        oobDataFlag = try reader.u8("OOB data flag")
        authenticationRequirements = SMPAuthenticationRequirements(rawValue: try reader.u8("AuthReq"))
        maximumEncryptionKeySize = try reader.u8("Maximum Encryption Key Size")
        initiatorKeyDistribution = SMPKeyDistribution(rawValue: try reader.u8("Initiator Key Distribution"))
        responderKeyDistribution = SMPKeyDistribution(rawValue: try reader.u8("Responder Key Distribution"))
    }
}

/// A device's input and output capabilities. Core 6.0, Vol 3, Part H, §3.5.1, Table 3.4. Open.
public struct SMPIOCapability: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static var displayOnly: Self { .init(rawValue: 0x00) }
    public static var displayYesNo: Self { .init(rawValue: 0x01) }
    public static var keyboardOnly: Self { .init(rawValue: 0x02) }
    public static var noInputNoOutput: Self { .init(rawValue: 0x03) }
    public static var keyboardDisplay: Self { .init(rawValue: 0x04) }

    public var name: String? {
        switch rawValue {
        case 0x00: "DisplayOnly"
        case 0x01: "DisplayYesNo"
        case 0x02: "KeyboardOnly"
        case 0x03: "NoInputNoOutput"
        case 0x04: "KeyboardDisplay"
        default: nil
        }
    }

    public var description: String { name ?? "SMPIOCapability(" + hex(rawValue, digits: 1) + ")" }
}

/// The AuthReq field. Core 6.0, Vol 3, Part H, §3.5.1, Figure 3.3: Bonding_Flags (bits 0-1),
/// MITM (2), SC (3), Keypress (4), CT2 (5); bits 6-7 reserved and kept.
public struct SMPAuthenticationRequirements: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0b00 no bonding, 0b01 bonding.
    public var bondingFlags: UInt8 { rawValue & 0x03 }
    public var bonding: Bool { bondingFlags == 0b01 }
    /// Man-in-the-middle protection requested.
    public var mitm: Bool { rawValue & 0x04 != 0 }
    /// LE Secure Connections supported.
    public var secureConnections: Bool { rawValue & 0x08 != 0 }
    public var keypress: Bool { rawValue & 0x10 != 0 }
    /// Supports the h7 function for cross-transport key derivation.
    public var ct2: Bool { rawValue & 0x20 != 0 }
}

/// Which keys a side will distribute. Core 6.0, Vol 3, Part H, §3.6.1, Figure 3.11.
public struct SMPKeyDistribution: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// LTK, EDIV and Rand (legacy pairing); with Secure Connections, ignored.
    public static var encryptionKey: Self { .init(rawValue: 0x01) }
    /// IRK and identity address.
    public static var identityKey: Self { .init(rawValue: 0x02) }
    /// CSRK.
    public static var signingKey: Self { .init(rawValue: 0x04) }
    /// Derive the BR/EDR link key.
    public static var linkKey: Self { .init(rawValue: 0x08) }
}

/// A Keypress Notification's type. Core 6.0, Vol 3, Part H, §3.5.8, Table 3.8. Open.
public struct SMPKeypressNotificationType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String? {
        switch rawValue {
        case 0x00: "Passkey entry started"
        case 0x01: "Passkey digit entered"
        case 0x02: "Passkey digit erased"
        case 0x03: "Passkey cleared"
        case 0x04: "Passkey entry completed"
        default: nil
        }
    }

    public var description: String {
        name ?? "SMPKeypressNotificationType(" + hex(rawValue, digits: 1) + ")"
    }
}
