import Foundation

/// The domain of ``CBError`` (`CBErrorDomain` in CoreBluetooth).
public let CBErrorDomain = "CBErrorDomain"
/// The domain of ``CBATTError`` (`CBATTErrorDomain` in CoreBluetooth).
public let CBATTErrorDomain = "CBATTErrorDomain"

/// The equivalent of CoreBluetooth's `CBError`: an error in `CBErrorDomain`.
///
/// Shaped as Swift imports Apple's type, so that app code reads the same against bletrace:
/// `(error as? CBError)?.code == .connectionTimeout`, `switch error.code { … @unknown default: }`,
/// `catch CBError.connectionTimeout`, and `(error as NSError).domain == CBErrorDomain` with
/// Apple's codes. A value with no named case (none is known for `CBError`) is
/// ``Code/unnamed(_:)``, and ``errorCode`` is its number. Apple's bridged-error members
/// (`init(_nsError:)`, `init(_:userInfo:)`, `_nsError`, `userInfo`, `localizedDescription` with
/// the framework's texts) come from ``CoreBluetoothError``.
public struct CBError: CoreBluetoothError {
    public static var errorDomain: String { CBErrorDomain }

    /// `CBError.Code`, with Apple's cases and raw values (`CBError.h`). As with the enum Swift
    /// imports from Objective-C, any raw value makes a code: one with no case is
    /// ``unnamed(_:)`` (`CBError.Code(rawValue: 99)!`).
    public enum Code: CoreBluetoothErrorCode, CaseIterable {
        case unknown
        case invalidParameters
        case invalidHandle
        case notConnected
        case outOfSpace
        case operationCancelled
        case connectionTimeout
        case peripheralDisconnected
        case uuidNotAllowed
        case alreadyAdvertising
        case connectionFailed
        case connectionLimitReached
        case unknownDevice
        case operationNotSupported
        case peerRemovedPairingInformation
        case encryptionTimedOut
        case tooManyLEPairedDevices
        case leGattExceededBackgroundNotificationLimit
        case leGattNearBackgroundNotificationLimit
        /// A value CoreBluetooth does not name (bletrace's: Swift enums need a case for it).
        case unnamed(Int)

        /// The named codes, in raw-value order from 0.
        public static let allCases: [Code] = [
            .unknown, .invalidParameters, .invalidHandle, .notConnected, .outOfSpace, .operationCancelled,
            .connectionTimeout, .peripheralDisconnected, .uuidNotAllowed, .alreadyAdvertising, .connectionFailed,
            .connectionLimitReached, .unknownDevice, .operationNotSupported, .peerRemovedPairingInformation,
            .encryptionTimedOut, .tooManyLEPairedDevices, .leGattExceededBackgroundNotificationLimit,
            .leGattNearBackgroundNotificationLimit,
        ]

        /// Always a code, as for the imported Objective-C enum.
        public init?(rawValue: Int) {
            self = Self.allCases.indices.contains(rawValue) ? Self.allCases[rawValue] : .unnamed(rawValue)
        }

        public var rawValue: Int {
            switch self {
            case .unknown: 0
            case .invalidParameters: 1
            case .invalidHandle: 2
            case .notConnected: 3
            case .outOfSpace: 4
            case .operationCancelled: 5
            case .connectionTimeout: 6
            case .peripheralDisconnected: 7
            case .uuidNotAllowed: 8
            case .alreadyAdvertising: 9
            case .connectionFailed: 10
            case .connectionLimitReached: 11
            case .unknownDevice: 12
            case .operationNotSupported: 13
            case .peerRemovedPairingInformation: 14
            case .encryptionTimedOut: 15
            case .tooManyLEPairedDevices: 16
            case .leGattExceededBackgroundNotificationLimit: 17
            case .leGattNearBackgroundNotificationLimit: 18
            case .unnamed(let value): value
            }
        }

        // Equal when their values are: `.unnamed(6)` is `.connectionTimeout`.
        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        /// The Swift case name; nil for ``unnamed(_:)``.
        public var name: String? {
            if case .unnamed = self { return nil }
            return Self.names[rawValue]
        }

        public var description: String { name ?? "CBError.Code(\(rawValue))" }

        static let names = [
            "unknown", "invalidParameters", "invalidHandle", "notConnected", "outOfSpace",
            "operationCancelled", "connectionTimeout", "peripheralDisconnected", "uuidNotAllowed",
            "alreadyAdvertising", "connectionFailed", "connectionLimitReached", "unknownDevice",
            "operationNotSupported", "peerRemovedPairingInformation", "encryptionTimedOut",
            "tooManyLEPairedDevices", "leGattExceededBackgroundNotificationLimit",
            "leGattNearBackgroundNotificationLimit",
        ]
    }

    public let code: Code
    private let info: ErrorUserInfo

    /// Apple's `CBError(_:userInfo:)`. A value with a named case is always that case.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = Code(rawValue: code.rawValue)!
        info = ErrorUserInfo(values: userInfo)
    }

    public var givenUserInfo: [String: Any] { info.values }

    /// The framework's texts (`+[NSError(CoreBluetooth) errorWithInfo:]`, decompiled: the daemon's
    /// result codes mapped to `CBErrorDomain`). It gives none for 17 and 18.
    public static func frameworkDescription(of code: Code) -> String? {
        switch code {
        case .unknown: "Unknown error."
        case .invalidParameters: "One or more parameters were invalid."
        case .invalidHandle: "The specified handle was not valid."
        case .notConnected: "The specified device is not connected."
        case .outOfSpace: "There is not enough space to complete the operation."
        case .operationCancelled: "The operation was cancelled."
        case .connectionTimeout: "The connection has timed out unexpectedly."
        case .peripheralDisconnected: "The specified device has disconnected from us."
        case .uuidNotAllowed: "The specified UUID is not allowed for this operation."
        case .alreadyAdvertising: "Advertising has already started."
        case .connectionFailed: "The connection has failed unexpectedly."
        case .connectionLimitReached: "The system has reached the maximum number of connections"
        case .unknownDevice: "Device is invalid."
        case .operationNotSupported: "Operation is not supported."
        case .peerRemovedPairingInformation: "Peer removed pairing information"
        case .encryptionTimedOut: "Failed to encrypt the connection, the connection has timed out unexpectedly."
        case .tooManyLEPairedDevices: "Too many LE devices are paired to this device"
        case .leGattExceededBackgroundNotificationLimit, .leGattNearBackgroundNotificationLimit, .unnamed: nil
        }
    }
}

/// The equivalent of CoreBluetooth's `CBATTError`: an error in `CBATTErrorDomain`, carrying the
/// ATT error code's value.
///
/// ATT's application and profile error codes (0x80-0xFF) have no case in `CBATTError.Code`; they
/// reach apps with their raw value as `NSError.code` (``errorCode``), as ``Code/unnamed(_:)``.
/// Apple's bridged-error members come from ``CoreBluetoothError``, as for ``CBError``.
public struct CBATTError: CoreBluetoothError {
    public static var errorDomain: String { CBATTErrorDomain }

    /// `CBATTError.Code`, with Apple's cases; the raw values are ATT's error codes 0x00-0x11. As
    /// with the enum Swift imports from Objective-C, any raw value makes a code: an application
    /// error is ``unnamed(_:)`` (`CBATTError.Code(rawValue: 0x80)!`, which peripheral apps pass to
    /// `respond(to:withResult:)`).
    public enum Code: CoreBluetoothErrorCode, CaseIterable {
        case success
        case invalidHandle
        case readNotPermitted
        case writeNotPermitted
        case invalidPdu
        case insufficientAuthentication
        case requestNotSupported
        case invalidOffset
        case insufficientAuthorization
        case prepareQueueFull
        case attributeNotFound
        case attributeNotLong
        case insufficientEncryptionKeySize
        case invalidAttributeValueLength
        case unlikelyError
        case insufficientEncryption
        case unsupportedGroupType
        case insufficientResources
        /// An ATT error code CoreBluetooth does not name: application errors 0x80-0x9F, common
        /// profile errors 0xE0-0xFF (bletrace's: Swift enums need a case for it).
        case unnamed(Int)

        /// The named codes, in raw-value order from 0.
        public static let allCases: [Code] = [
            .success, .invalidHandle, .readNotPermitted, .writeNotPermitted, .invalidPdu, .insufficientAuthentication,
            .requestNotSupported, .invalidOffset, .insufficientAuthorization, .prepareQueueFull, .attributeNotFound,
            .attributeNotLong, .insufficientEncryptionKeySize, .invalidAttributeValueLength, .unlikelyError,
            .insufficientEncryption, .unsupportedGroupType, .insufficientResources,
        ]

        /// Always a code, as for the imported Objective-C enum.
        public init?(rawValue: Int) {
            self = Self.allCases.indices.contains(rawValue) ? Self.allCases[rawValue] : .unnamed(rawValue)
        }

        public var rawValue: Int {
            switch self {
            case .success: 0
            case .invalidHandle: 1
            case .readNotPermitted: 2
            case .writeNotPermitted: 3
            case .invalidPdu: 4
            case .insufficientAuthentication: 5
            case .requestNotSupported: 6
            case .invalidOffset: 7
            case .insufficientAuthorization: 8
            case .prepareQueueFull: 9
            case .attributeNotFound: 10
            case .attributeNotLong: 11
            case .insufficientEncryptionKeySize: 12
            case .invalidAttributeValueLength: 13
            case .unlikelyError: 14
            case .insufficientEncryption: 15
            case .unsupportedGroupType: 16
            case .insufficientResources: 17
            case .unnamed(let value): value
            }
        }

        // Equal when their values are: `.unnamed(6)` is `.connectionTimeout`.
        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        /// The Swift case name; nil for ``unnamed(_:)``.
        public var name: String? {
            if case .unnamed = self { return nil }
            return Self.names[rawValue]
        }

        public var description: String { name ?? "CBATTError.Code(\(rawValue))" }

        static let names = [
            "success", "invalidHandle", "readNotPermitted", "writeNotPermitted", "invalidPdu",
            "insufficientAuthentication", "requestNotSupported", "invalidOffset",
            "insufficientAuthorization", "prepareQueueFull", "attributeNotFound",
            "attributeNotLong", "insufficientEncryptionKeySize", "invalidAttributeValueLength",
            "unlikelyError", "insufficientEncryption", "unsupportedGroupType",
            "insufficientResources",
        ]
    }

    public let code: Code
    private let info: ErrorUserInfo

    /// Apple's `CBATTError(_:userInfo:)`.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = Code(rawValue: code.rawValue)!
        info = ErrorUserInfo(values: userInfo)
    }

    public var givenUserInfo: [String: Any] { info.values }

    /// The framework's texts, as for ``CBError/frameworkDescription(of:)``: every ATT code without
    /// one of its own is "Unknown ATT error."; `.success` is never an error and has none.
    public static func frameworkDescription(of code: Code) -> String? {
        switch code {
        case .success: nil
        case .invalidHandle: "The handle is invalid."
        case .readNotPermitted: "Reading is not permitted."
        case .writeNotPermitted: "Writing is not permitted."
        case .invalidPdu: "The command is invalid."
        case .insufficientAuthentication: "Authentication is insufficient."
        case .requestNotSupported: "The request is not supported."
        case .invalidOffset: "The offset is invalid."
        case .insufficientAuthorization: "Authorization is insufficient."
        case .prepareQueueFull: "The prepare queue is full."
        case .attributeNotFound: "The attribute could not be found."
        case .attributeNotLong: "The attribute is not long."
        case .insufficientEncryptionKeySize: "The encryption key size is insufficient."
        case .invalidAttributeValueLength: "The value's length is invalid."
        case .unlikelyError: "Unlikely error."
        case .insufficientEncryption: "Encryption is insufficient."
        case .unsupportedGroupType: "The group type is unsupported."
        case .insufficientResources: "Resources are insufficient."
        case .unnamed: "Unknown ATT error."
        }
    }
}

// Apple's static members, for `catch CBError.connectionTimeout` and `error.code == CBError.notConnected`.
extension CBError {
    public static var unknown: Code { .unknown }
    public static var invalidParameters: Code { .invalidParameters }
    public static var invalidHandle: Code { .invalidHandle }
    public static var notConnected: Code { .notConnected }
    public static var outOfSpace: Code { .outOfSpace }
    public static var operationCancelled: Code { .operationCancelled }
    public static var connectionTimeout: Code { .connectionTimeout }
    public static var peripheralDisconnected: Code { .peripheralDisconnected }
    public static var uuidNotAllowed: Code { .uuidNotAllowed }
    public static var alreadyAdvertising: Code { .alreadyAdvertising }
    public static var connectionFailed: Code { .connectionFailed }
    public static var connectionLimitReached: Code { .connectionLimitReached }
    public static var unknownDevice: Code { .unknownDevice }
    public static var operationNotSupported: Code { .operationNotSupported }
    public static var peerRemovedPairingInformation: Code { .peerRemovedPairingInformation }
    public static var encryptionTimedOut: Code { .encryptionTimedOut }
    public static var tooManyLEPairedDevices: Code { .tooManyLEPairedDevices }
    public static var leGattExceededBackgroundNotificationLimit: Code { .leGattExceededBackgroundNotificationLimit }
    public static var leGattNearBackgroundNotificationLimit: Code { .leGattNearBackgroundNotificationLimit }
}

extension CBATTError {
    public static var success: Code { .success }
    public static var invalidHandle: Code { .invalidHandle }
    public static var readNotPermitted: Code { .readNotPermitted }
    public static var writeNotPermitted: Code { .writeNotPermitted }
    public static var invalidPdu: Code { .invalidPdu }
    public static var insufficientAuthentication: Code { .insufficientAuthentication }
    public static var requestNotSupported: Code { .requestNotSupported }
    public static var invalidOffset: Code { .invalidOffset }
    public static var insufficientAuthorization: Code { .insufficientAuthorization }
    public static var prepareQueueFull: Code { .prepareQueueFull }
    public static var attributeNotFound: Code { .attributeNotFound }
    public static var attributeNotLong: Code { .attributeNotLong }
    public static var insufficientEncryptionKeySize: Code { .insufficientEncryptionKeySize }
    public static var invalidAttributeValueLength: Code { .invalidAttributeValueLength }
    public static var unlikelyError: Code { .unlikelyError }
    public static var insufficientEncryption: Code { .insufficientEncryption }
    public static var unsupportedGroupType: Code { .unsupportedGroupType }
    public static var insufficientResources: Code { .insufficientResources }
}

/// `catch CBError.connectionTimeout` and `case CBError.connectionTimeout = error`.
public func ~= (match: CBError.Code, error: any Error) -> Bool {
    (error as? CBError)?.code == match
}

/// `catch CBATTError.insufficientAuthentication`.
public func ~= (match: CBATTError.Code, error: any Error) -> Bool {
    (error as? CBATTError)?.code == match
}
