/// What a characteristic allows (`CBCharacteristicProperties`): the properties byte of its
/// declaration (Core 6.0, Vol 3, Part G, §3.3.1.1), with CoreBluetooth's two extra bits for
/// characteristics that need encryption to notify or indicate.
public struct CBCharacteristicProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let broadcast = Self(rawValue: 0x01)
    public static let read = Self(rawValue: 0x02)
    public static let writeWithoutResponse = Self(rawValue: 0x04)
    public static let write = Self(rawValue: 0x08)
    public static let notify = Self(rawValue: 0x10)
    public static let indicate = Self(rawValue: 0x20)
    public static let authenticatedSignedWrites = Self(rawValue: 0x40)
    public static let extendedProperties = Self(rawValue: 0x80)
    /// Peripheral manager only: subscribing to notifications needs an encrypted link.
    public static let notifyEncryptionRequired = Self(rawValue: 0x100)
    /// Peripheral manager only: subscribing to indications needs an encrypted link.
    public static let indicateEncryptionRequired = Self(rawValue: 0x200)
}
