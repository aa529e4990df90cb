/// A connection event a central registered for (`CBConnectionEvent`,
/// `centralManager(_:connectionEventDidOccur:for:)`).
public enum CBConnectionEvent: Int, Hashable, Sendable {
    case peerDisconnected = 0
    case peerConnected = 1
}

/// A key of `registerForConnectionEvents(options:)` (`CBConnectionEventMatchingOption`).
public struct CBConnectionEventMatchingOption: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `[CBUUID]`: peripherals with any of these services.
    public static let serviceUUIDs = Self(rawValue: "kCBConnectionEventMatchingOptionServiceUUIDs")
    /// `[UUID]`: peripherals with any of these identifiers.
    public static let peripheralUUIDs = Self(rawValue: "kCBConnectionEventMatchingOptionPeripheralUUIDs")
}
