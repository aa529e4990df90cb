import Wire

/// The attribute types and services GATT itself defines (Core 6.0, Vol 3, Part G, §3; Assigned
/// Numbers, §3.4-3.8), named once: every layer of bletrace compares against these, not against
/// their numbers.
extension BluetoothUUID {
    /// «Primary Service» (0x2800), the type of a primary service's declaration.
    public static let primaryService = BluetoothUUID(UInt16(0x2800))
    /// «Secondary Service» (0x2801).
    public static let secondaryService = BluetoothUUID(UInt16(0x2801))
    /// «Include» (0x2802), an included service's declaration.
    public static let includedService = BluetoothUUID(UInt16(0x2802))
    /// «Characteristic» (0x2803), a characteristic's declaration.
    public static let characteristicDeclaration = BluetoothUUID(UInt16(0x2803))
    /// Characteristic Extended Properties (0x2900).
    public static let characteristicExtendedProperties = BluetoothUUID(UInt16(0x2900))
    /// Characteristic User Description (0x2901).
    public static let characteristicUserDescription = BluetoothUUID(UInt16(0x2901))
    /// Client Characteristic Configuration (0x2902): notifications and indications on or off.
    public static let clientCharacteristicConfiguration = BluetoothUUID(UInt16(0x2902))
    /// Server Characteristic Configuration (0x2903).
    public static let serverCharacteristicConfiguration = BluetoothUUID(UInt16(0x2903))
    /// Characteristic Presentation Format (0x2904).
    public static let characteristicPresentationFormat = BluetoothUUID(UInt16(0x2904))
    /// The Generic Access service (0x1800).
    public static let genericAccess = BluetoothUUID(UInt16(0x1800))
    /// The Generic Attribute service (0x1801).
    public static let genericAttribute = BluetoothUUID(UInt16(0x1801))
    /// The Human Interface Device service (0x1812).
    public static let humanInterfaceDevice = BluetoothUUID(UInt16(0x1812))
    /// Device Name (0x2A00), in Generic Access.
    public static let deviceName = BluetoothUUID(UInt16(0x2A00))
    /// Service Changed (0x2A05), in Generic Attribute.
    public static let serviceChanged = BluetoothUUID(UInt16(0x2A05))
    /// Client Supported Features (0x2B29), in Generic Attribute.
    public static let clientSupportedFeatures = BluetoothUUID(UInt16(0x2B29))
    /// Database Hash (0x2B2A), in Generic Attribute.
    public static let databaseHash = BluetoothUUID(UInt16(0x2B2A))
    /// Server Supported Features (0x2B3A), in Generic Attribute.
    public static let serverSupportedFeatures = BluetoothUUID(UInt16(0x2B3A))

    /// Generic Access or Generic Attribute: the services a host's stack keeps to itself. iOS
    /// answers for both and never shows them to an app (Formats/corebluetooth.md); bletrace's
    /// replay, servers and error mapping all ask here.
    public var isStackService: Bool { self == .genericAccess || self == .genericAttribute }

    /// One of GATT's four declaration types (0x2800-0x2803): a service, an include or a
    /// characteristic declaration, not a value or a descriptor.
    public var isDeclaration: Bool { shortValue.map { (0x2800...0x2803).contains($0) } ?? false }
}
