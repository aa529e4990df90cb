import Wire

/// What a redaction replaced, removed and dropped, counted as it goes: the facts of the manifest,
/// and what `info` and `diagnose` say of a capture's secrets (``secretsSentence``).
public struct RedactionTally: Sendable {
    /// Fields of each kind zeroed, whatever they held.
    public internal(set) var removed: [SecretKind: Int] = [:]
    /// Different values of each kind the input held, all-zero ones left out (so a redacted file
    /// holds none): "the LTK of 2 bonded devices".
    public var found: [SecretKind: Int] { distinct.mapValues(\.count).filter { $0.value > 0 } }
    var distinct: [SecretKind: Set<UInt64>] = [:]
    /// The different identity addresses the input's pairings distributed (SMP Identity Address
    /// Information): the addresses that follow a device for good.
    public var identityAddresses: Int { identities.count }
    var identities: Set<UInt64> = []
    /// Address fields replaced (each occurrence; in text notes too).
    public internal(set) var addressesReplaced = 0
    /// Address fields zeroed rather than replaced, because they were cut across two fragments
    /// (the replacement needs all six bytes at once).
    public internal(set) var addressesZeroed = 0
    /// Name fields replaced (with `names`).
    public internal(set) var namesReplaced = 0
    /// Value fields zeroed (with `values`).
    public internal(set) var valuesZeroed = 0
    /// Records whose layout bletrace does not know field by field (vendor commands and events,
    /// unknown record types): written with every address already met replaced wherever its six
    /// bytes appear, in either byte order.
    public internal(set) var searchedOnly = 0
    /// Over-the-air packets whose CRC was computed again after a change.
    public internal(set) var crcRecomputed = 0
    /// Over-the-air packets changed whose CRC could not be computed again (a connection whose
    /// CRCInit the capture does not have, or a CRC that was already wrong): left as it was.
    public internal(set) var crcLeft = 0
    /// Records not written, by reason.
    public internal(set) var dropped: [String: Int] = [:]
    /// The first few records dropped: index, byte offset in the input, reason.
    public internal(set) var firstDropped: [(record: Int, offset: Int64, reason: String)] = []
    static let droppedListed = 20

    public init() {}

    /// How many records were dropped in all.
    public var droppedCount: Int { dropped.values.reduce(0, +) }

    mutating func drop(record: Int, offset: Int64, reason: String) {
        dropped[reason, default: 0] += 1
        if firstDropped.count < Self.droppedListed { firstDropped.append((record, offset, reason)) }
    }

    /// Counts a secret field of `kind` and zeroes it.
    /// `found`: false for a field zeroed for safety that holds no key of its own.
    mutating func secret(_ kind: SecretKind, _ bytes: UnsafeMutableRawBufferPointer, found counted: Bool = true) {
        removed[kind, default: 0] += 1
        // FNV-1a of the value, to count different values without keeping them.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var zero = true
        for byte in bytes {
            if byte != 0 { zero = false }
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        if !zero, counted { distinct[kind, default: []].insert(hash) }
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// Whether the input held anything `info` and `diagnose` warn of: a key or secret value
    /// that is not all zeros. Identity addresses alone do not count: a redacted capture keeps
    /// them, replaced (pseudonyms, consistent within the file), and a capture that has them from
    /// a pairing also has the pairing's keys.
    public var holdsSecrets: Bool { !found.isEmpty }

    /// "holds the LTK of 2 bonded devices, 1 IRK, 1 identity address: run bletrace redact
    /// before sharing"; nil when there is nothing to say.
    public var secretsSentence: String? {
        guard holdsSecrets else { return nil }
        var parts: [String] = []
        let found = self.found
        for kind in SecretKind.allCases {
            guard let count = found[kind] else { continue }
            switch kind {
            case .longTermKey: parts.append("the LTK of \(Wording.count(count, "bonded device"))")
            case .linkKey: parts.append("the link key of \(Wording.count(count, "bonded device"))")
            case .identityResolvingKey, .signatureKey: parts.append(Wording.count(count, kind.label))
            case .centralIdentification: parts.append("\(count) EDIV/Rand")
            case .pairingValue: parts.append("\(Wording.count(count, "pairing confirm/random value"))")
            case .publicKey:
                parts.append(Wording.count(count, "P-256 key") + " or " + Wording.noun("DHKey", count: count))
            case .passkey: parts.append("\(Wording.count(count, "passkey")) or \(Wording.noun("PIN", count: count))")
            case .controllerCrypto: parts.append("\(Wording.count(count, "LE Encrypt/Rand value"))")
            case .management:
                parts.append("\(Wording.count(count, "BlueZ management message")) (they carry keys)")
            }
        }
        if identityAddresses > 0 {
            parts.append("\(Wording.count(identityAddresses, "identity address", plural: "identity addresses"))")
        }
        return "holds " + parts.joined(separator: ", ") + ": run bletrace redact before sharing"
    }
}
