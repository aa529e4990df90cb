/// Who may read and write a characteristic value of a peripheral manager's service
/// (`CBAttributePermissions`).
public struct CBAttributePermissions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let readable = Self(rawValue: 0x01)
    public static let writeable = Self(rawValue: 0x02)
    public static let readEncryptionRequired = Self(rawValue: 0x04)
    public static let writeEncryptionRequired = Self(rawValue: 0x08)
}
