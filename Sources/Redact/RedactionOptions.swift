import Wire

/// What `bletrace redact` replaces beyond addresses and keys, which it always replaces.
public struct RedactionOptions: Sendable {
    /// Replace device names: the Complete and Shortened Local Name of advertising and extended
    /// inquiry responses, GAP Device Name (0x2A00) values, HCI local and remote names.
    public var names = false
    /// Zero values: manufacturer and service data in advertising (the company identifier and
    /// service UUID kept), ATT attribute values (but ``alwaysKept`` and ``allow``), L2CAP
    /// connection-oriented channel payloads, SCO and ISO payloads.
    public var values = false
    /// With ``values``: characteristics and descriptors whose values stay.
    public var allow: Set<BluetoothUUID> = []
    /// A seed for the address and name replacements: the same input and seed give the same
    /// output. Nil (the default): a random key for the run.
    public var seed: UInt64?

    public init(names: Bool = false, values: Bool = false, allow: Set<BluetoothUUID> = [], seed: UInt64? = nil) {
        self.names = names
        self.values = values
        self.allow = allow
        self.seed = seed
    }

    /// The values ``values`` leaves, since the analyses read them and they say nothing of the
    /// user: the descriptors Characteristic Extended Properties (0x2900), Client and Server
    /// Characteristic Configuration (0x2902, 0x2903), Characteristic Presentation Format
    /// (0x2904), and the GATT service's Service Changed (0x2A05), Client Supported Features
    /// (0x2B29), Database Hash (0x2B2A) and Server Supported Features (0x2B3A).
    public static let alwaysKept: Set<BluetoothUUID> = [
        .characteristicExtendedProperties, .clientCharacteristicConfiguration, .serverCharacteristicConfiguration,
        .characteristicPresentationFormat, .serviceChanged, .clientSupportedFeatures, .databaseHash,
        .serverSupportedFeatures,
    ]

    func keeps(_ uuid: BluetoothUUID?) -> Bool {
        guard let uuid else { return false }
        return Self.alwaysKept.contains(uuid) || allow.contains(uuid)
    }
}
