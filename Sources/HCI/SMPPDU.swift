import Wire

/// A Security Manager Protocol command code. Core 6.0, Vol 3, Part H, §3.3. Open.
public struct SMPCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static var pairingRequest: Self { .init(rawValue: 0x01) }
    public static var pairingResponse: Self { .init(rawValue: 0x02) }
    public static var pairingConfirm: Self { .init(rawValue: 0x03) }
    public static var pairingRandom: Self { .init(rawValue: 0x04) }
    public static var pairingFailed: Self { .init(rawValue: 0x05) }
    public static var encryptionInformation: Self { .init(rawValue: 0x06) }
    public static var centralIdentification: Self { .init(rawValue: 0x07) }
    public static var identityInformation: Self { .init(rawValue: 0x08) }
    public static var identityAddressInformation: Self { .init(rawValue: 0x09) }
    public static var signingInformation: Self { .init(rawValue: 0x0A) }
    public static var securityRequest: Self { .init(rawValue: 0x0B) }
    public static var pairingPublicKey: Self { .init(rawValue: 0x0C) }
    public static var pairingDHKeyCheck: Self { .init(rawValue: 0x0D) }
    public static var pairingKeypressNotification: Self { .init(rawValue: 0x0E) }

    public var name: String? {
        switch rawValue {
        case 0x01: "Pairing Request"
        case 0x02: "Pairing Response"
        case 0x03: "Pairing Confirm"
        case 0x04: "Pairing Random"
        case 0x05: "Pairing Failed"
        case 0x06: "Encryption Information"
        case 0x07: "Central Identification"
        case 0x08: "Identity Information"
        case 0x09: "Identity Address Information"
        case 0x0A: "Signing Information"
        case 0x0B: "Security Request"
        case 0x0C: "Pairing Public Key"
        case 0x0D: "Pairing DHKey Check"
        case 0x0E: "Pairing Keypress Notification"
        default: nil
        }
    }

    public var description: String { name ?? "SMPCode(" + hex(rawValue, digits: 1) + ")" }
}

/// Why pairing failed, as the Pairing Failed command says. Core 6.0, Vol 3, Part H, §3.5.5.
public struct SMPPairingFailedReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    public var name: String? {
        switch rawValue {
        case 0x01: "Passkey Entry Failed"
        case 0x02: "OOB Not Available"
        case 0x03: "Authentication Requirements"
        case 0x04: "Confirm Value Failed"
        case 0x05: "Pairing Not Supported"
        case 0x06: "Encryption Key Size"
        case 0x07: "Command Not Supported"
        case 0x08: "Unspecified Reason"
        case 0x09: "Repeated Attempts"
        case 0x0A: "Invalid Parameters"
        case 0x0B: "DHKey Check Failed"
        case 0x0C: "Numeric Comparison Failed"
        case 0x0D: "BR/EDR Pairing in Progress"
        case 0x0E: "Cross-transport Key Derivation/Generation Not Allowed"
        case 0x0F: "Key Rejected"
        case 0x10: "Busy"
        default: nil
        }
    }

    public var description: String {
        name ?? "SMPPairingFailedReason(" + hex(rawValue, digits: 1) + ")"
    }
}

/// An SMP command on L2CAP channel 6: its code, its raw parameters and, decoded, ``command``.
/// Core 6.0, Vol 3, Part H, §3.
///
/// Every SMP command has a fixed length (§3.3, §3.5, §3.6), and a device answers one of the
/// wrong length with Pairing Failed (Invalid Parameters); so a known command must have exactly
/// its parameters, and a byte too many is an error at that byte. An unknown code keeps whatever
/// follows it.
public struct SMPPDU {
    public var code: SMPCode
    public var parameters: UnsafeRawBufferPointer
    /// The command, decoded.
    public var command: SMPCommand

    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> SMPPDU {
        var reader = ByteReader(bytes, layer: .smp)
        let code = SMPCode(rawValue: try reader.u8("SMP code (1 byte)"))
        let parameters = UnsafeRawBufferPointer(rebasing: bytes[reader.offset...])
        let command = try SMPCommand(code: code, &reader)
        if case .unknown = command {
        } else {
            guard reader.isAtEnd else {
                throw reader.error(
                    "no bytes after the \(code) parameters (\(reader.offset - 1) bytes), not \(reader.remaining) more")
            }
        }
        return SMPPDU(code: code, parameters: parameters, command: command)
    }

    /// For Pairing Failed, why.
    public var pairingFailedReason: SMPPairingFailedReason? {
        if case .pairingFailed(let reason) = command { return reason }
        return nil
    }
}
