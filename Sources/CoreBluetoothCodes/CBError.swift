/// The equivalent of CoreBluetooth's `CBError`: an error in `CBErrorDomain`.
///
/// Raw values as in Apple's `CBError.Code`. App code written as `(error as? CBError)?.code ==
/// .connectionTimeout` reads the same against bletrace.
public struct CBError: Error, Hashable, Sendable, CustomStringConvertible {
    public static let errorDomain = "CBErrorDomain"

    /// `CBError.Code`. Open: a value with no named case is kept.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static var unknown: Self { .init(rawValue: 0) }
        public static var invalidParameters: Self { .init(rawValue: 1) }
        public static var invalidHandle: Self { .init(rawValue: 2) }
        public static var notConnected: Self { .init(rawValue: 3) }
        public static var outOfSpace: Self { .init(rawValue: 4) }
        public static var operationCancelled: Self { .init(rawValue: 5) }
        public static var connectionTimeout: Self { .init(rawValue: 6) }
        public static var peripheralDisconnected: Self { .init(rawValue: 7) }
        public static var uuidNotAllowed: Self { .init(rawValue: 8) }
        public static var alreadyAdvertising: Self { .init(rawValue: 9) }
        public static var connectionFailed: Self { .init(rawValue: 10) }
        public static var connectionLimitReached: Self { .init(rawValue: 11) }
        public static var unknownDevice: Self { .init(rawValue: 12) }
        public static var operationNotSupported: Self { .init(rawValue: 13) }
        public static var peerRemovedPairingInformation: Self { .init(rawValue: 14) }
        public static var encryptionTimedOut: Self { .init(rawValue: 15) }
        public static var tooManyLEPairedDevices: Self { .init(rawValue: 16) }
        public static var leGattExceededBackgroundNotificationLimit: Self { .init(rawValue: 17) }
        public static var leGattNearBackgroundNotificationLimit: Self { .init(rawValue: 18) }

        static let names = [
            "unknown", "invalidParameters", "invalidHandle", "notConnected", "outOfSpace",
            "operationCancelled", "connectionTimeout", "peripheralDisconnected", "uuidNotAllowed",
            "alreadyAdvertising", "connectionFailed", "connectionLimitReached", "unknownDevice",
            "operationNotSupported", "peerRemovedPairingInformation", "encryptionTimedOut",
            "tooManyLEPairedDevices", "leGattExceededBackgroundNotificationLimit",
            "leGattNearBackgroundNotificationLimit",
        ]

        /// The Swift case name, or nil for a value CoreBluetooth does not name.
        public var name: String? {
            Self.names.indices.contains(rawValue) ? Self.names[rawValue] : nil
        }

        public var description: String { name ?? "CBError.Code(\(rawValue))" }
    }

    public var code: Code
    public init(_ code: Code) { self.code = code }

    /// `CBError.connectionTimeout`, as the flow format writes it; `CBError.Code(99)` unnamed.
    public var description: String { code.name.map { "CBError.\($0)" } ?? code.description }
}

/// The equivalent of CoreBluetooth's `CBATTError`: an error in `CBATTErrorDomain`, carrying the
/// ATT error code's value.
public struct CBATTError: Error, Hashable, Sendable, CustomStringConvertible {
    public static let errorDomain = "CBATTErrorDomain"

    /// `CBATTError.Code`. Values 0x12 and up have no named case in CoreBluetooth; they are kept.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static var success: Self { .init(rawValue: 0) }
        public static var invalidHandle: Self { .init(rawValue: 1) }
        public static var readNotPermitted: Self { .init(rawValue: 2) }
        public static var writeNotPermitted: Self { .init(rawValue: 3) }
        public static var invalidPdu: Self { .init(rawValue: 4) }
        public static var insufficientAuthentication: Self { .init(rawValue: 5) }
        public static var requestNotSupported: Self { .init(rawValue: 6) }
        public static var invalidOffset: Self { .init(rawValue: 7) }
        public static var insufficientAuthorization: Self { .init(rawValue: 8) }
        public static var prepareQueueFull: Self { .init(rawValue: 9) }
        public static var attributeNotFound: Self { .init(rawValue: 10) }
        public static var attributeNotLong: Self { .init(rawValue: 11) }
        public static var insufficientEncryptionKeySize: Self { .init(rawValue: 12) }
        public static var invalidAttributeValueLength: Self { .init(rawValue: 13) }
        public static var unlikelyError: Self { .init(rawValue: 14) }
        public static var insufficientEncryption: Self { .init(rawValue: 15) }
        public static var unsupportedGroupType: Self { .init(rawValue: 16) }
        public static var insufficientResources: Self { .init(rawValue: 17) }

        static let names = [
            "success", "invalidHandle", "readNotPermitted", "writeNotPermitted", "invalidPdu",
            "insufficientAuthentication", "requestNotSupported", "invalidOffset",
            "insufficientAuthorization", "prepareQueueFull", "attributeNotFound",
            "attributeNotLong", "insufficientEncryptionKeySize", "invalidAttributeValueLength",
            "unlikelyError", "insufficientEncryption", "unsupportedGroupType",
            "insufficientResources",
        ]

        public var name: String? {
            Self.names.indices.contains(rawValue) ? Self.names[rawValue] : nil
        }

        public var description: String { name ?? "CBATTError.Code(\(rawValue))" }
    }

    public var code: Code
    public init(_ code: Code) { self.code = code }

    /// `CBATTError.insufficientEncryption`; `CBATTError.Code(128)` unnamed.
    public var description: String { code.name.map { "CBATTError.\($0)" } ?? code.description }
}
