/// A kind of key or secret a capture can carry, as `bletrace redact` removes them and `info` and
/// `diagnose` count them.
public enum SecretKind: String, CaseIterable, Hashable, Sendable, Codable, Comparable {
    /// SMP Encryption Information, HCI LE Long Term Key Request Reply and LE Start Encryption.
    case longTermKey = "ltk"
    /// SMP Central Identification, HCI LE Long Term Key Request and LE Start Encryption,
    /// LL_ENC_REQ: the EDIV and Rand that name a legacy LTK.
    case centralIdentification = "ediv_rand"
    /// SMP Identity Information; HCI LE Add Device To Resolving List.
    case identityResolvingKey = "irk"
    /// SMP Signing Information.
    case signatureKey = "csrk"
    /// BR/EDR link keys: Link Key Notification, Link Key Request Reply, Return Link Keys, Write
    /// Stored Link Key.
    case linkKey = "link_key"
    /// Pairing Confirm and Random, DHKey Check: with them a legacy pairing's key is found by
    /// trying every passkey.
    case pairingValue = "pairing_value"
    /// P-256 public keys and DHKeys (SMP Pairing Public Key, HCI LE Read Local P-256 Public Key,
    /// LE Generate DHKey).
    case publicKey = "public_key"
    /// Passkeys, PIN codes, numeric comparison values, OOB data, the Security Manager TK.
    case passkey = "passkey"
    /// LE Encrypt's key and data, LE Rand's numbers.
    case controllerCrypto = "controller_crypto"
    /// BlueZ management messages on the Linux monitor's control channel (they carry keys as they
    /// are loaded and made); their parameters are zeroed whole.
    case management = "management"

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// How `info` and the manifest name it.
    public var label: String {
        switch self {
        case .longTermKey: "LTK"
        case .centralIdentification: "EDIV/Rand"
        case .identityResolvingKey: "IRK"
        case .signatureKey: "CSRK"
        case .linkKey: "link key"
        case .pairingValue: "pairing confirm/random value"
        case .publicKey: "P-256 key"
        case .passkey: "passkey or PIN"
        case .controllerCrypto: "LE Encrypt/Rand value"
        case .management: "management message"
        }
    }
}
