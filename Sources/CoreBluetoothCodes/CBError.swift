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
/// Apple's codes. A value with no named case (none is known for `CBError`) keeps its number in
/// ``errorCode``.
public struct CBError: Error, Hashable, Sendable, CustomStringConvertible, CustomNSError {
    public static var errorDomain: String { CBErrorDomain }

    /// `CBError.Code`, with Apple's cases and raw values (`CBError.h`).
    public enum Code: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        case unknown = 0
        case invalidParameters = 1
        case invalidHandle = 2
        case notConnected = 3
        case outOfSpace = 4
        case operationCancelled = 5
        case connectionTimeout = 6
        case peripheralDisconnected = 7
        case uuidNotAllowed = 8
        case alreadyAdvertising = 9
        case connectionFailed = 10
        case connectionLimitReached = 11
        case unknownDevice = 12
        case operationNotSupported = 13
        case peerRemovedPairingInformation = 14
        case encryptionTimedOut = 15
        case tooManyLEPairedDevices = 16
        case leGattExceededBackgroundNotificationLimit = 17
        case leGattNearBackgroundNotificationLimit = 18

        /// The Swift case name.
        public var description: String { Self.names[rawValue] }

        static let names = [
            "unknown", "invalidParameters", "invalidHandle", "notConnected", "outOfSpace",
            "operationCancelled", "connectionTimeout", "peripheralDisconnected", "uuidNotAllowed",
            "alreadyAdvertising", "connectionFailed", "connectionLimitReached", "unknownDevice",
            "operationNotSupported", "peerRemovedPairingInformation", "encryptionTimedOut",
            "tooManyLEPairedDevices", "leGattExceededBackgroundNotificationLimit",
            "leGattNearBackgroundNotificationLimit",
        ]
    }

    /// The code as `NSError.code` carries it.
    public let errorCode: Int

    public init(_ code: Code) { errorCode = code.rawValue }
    /// An error with a code CoreBluetooth may send but does not name.
    public init(errorCode: Int) { self.errorCode = errorCode }

    /// The named code; ``Code/unknown`` for a value with no case (compare ``errorCode`` then).
    public var code: Code { Code(rawValue: errorCode) ?? .unknown }
    /// The case name, or nil for a value with no case.
    public var name: String? { Code(rawValue: errorCode)?.description }

    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var localizedDescription: String { message }

    /// `CBError.connectionTimeout`, as the flow format writes it; `CBError.Code(99)` unnamed.
    public var description: String { name.map { "CBError.\($0)" } ?? "CBError.Code(\(errorCode))" }

    private var message: String {
        switch Code(rawValue: errorCode) {
        case .unknown: "An unknown Bluetooth error occurred."
        case .invalidParameters: "The parameters given are invalid."
        case .invalidHandle: "The attribute handle is invalid."
        case .notConnected: "The device is not connected."
        case .outOfSpace: "The device ran out of space for the operation."
        case .operationCancelled: "The operation was cancelled."
        case .connectionTimeout: "The connection timed out."
        case .peripheralDisconnected: "The peripheral disconnected."
        case .uuidNotAllowed: "This UUID may not be used for this operation."
        case .alreadyAdvertising: "Advertising is already under way."
        case .connectionFailed: "The connection failed."
        case .connectionLimitReached: "The device has as many connections as it can hold."
        case .unknownDevice: "The device is not known."
        case .operationNotSupported: "The operation is not supported."
        case .peerRemovedPairingInformation: "The peer removed its pairing information."
        case .encryptionTimedOut: "Encrypting the link timed out."
        case .tooManyLEPairedDevices: "Too many LE devices are paired."
        case .leGattExceededBackgroundNotificationLimit: "Too many notifications in the background."
        case .leGattNearBackgroundNotificationLimit: "Close to the background notification limit."
        case nil: "Bluetooth error \(errorCode)."
        }
    }
}

/// The equivalent of CoreBluetooth's `CBATTError`: an error in `CBATTErrorDomain`, carrying the
/// ATT error code's value.
///
/// ATT's application and profile error codes (0x80-0xFF) have no case in `CBATTError.Code`; they
/// reach apps with their raw value as `NSError.code`, kept here in ``errorCode``.
public struct CBATTError: Error, Hashable, Sendable, CustomStringConvertible, CustomNSError {
    public static var errorDomain: String { CBATTErrorDomain }

    /// `CBATTError.Code`, with Apple's cases; the raw values are ATT's error codes 0x00-0x11.
    public enum Code: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        case success = 0
        case invalidHandle = 1
        case readNotPermitted = 2
        case writeNotPermitted = 3
        case invalidPdu = 4
        case insufficientAuthentication = 5
        case requestNotSupported = 6
        case invalidOffset = 7
        case insufficientAuthorization = 8
        case prepareQueueFull = 9
        case attributeNotFound = 10
        case attributeNotLong = 11
        case insufficientEncryptionKeySize = 12
        case invalidAttributeValueLength = 13
        case unlikelyError = 14
        case insufficientEncryption = 15
        case unsupportedGroupType = 16
        case insufficientResources = 17

        /// The Swift case name.
        public var description: String { Self.names[rawValue] }

        static let names = [
            "success", "invalidHandle", "readNotPermitted", "writeNotPermitted", "invalidPdu",
            "insufficientAuthentication", "requestNotSupported", "invalidOffset",
            "insufficientAuthorization", "prepareQueueFull", "attributeNotFound",
            "attributeNotLong", "insufficientEncryptionKeySize", "invalidAttributeValueLength",
            "unlikelyError", "insufficientEncryption", "unsupportedGroupType",
            "insufficientResources",
        ]
    }

    /// The ATT error code as `NSError.code` carries it (0x80 and up included).
    public let errorCode: Int

    public init(_ code: Code) { errorCode = code.rawValue }
    /// An error with an ATT code `CBATTError.Code` does not name (application errors 0x80-0x9F,
    /// common profile errors 0xE0-0xFF).
    public init(errorCode: Int) { self.errorCode = errorCode }

    /// The named code. A code with no case reads as ``Code/unlikelyError``: Swift enums cannot hold
    /// the raw value as the imported Objective-C enum does on iOS; compare ``errorCode`` (or
    /// `(error as NSError).code`) for application error codes.
    public var code: Code { Code(rawValue: errorCode) ?? .unlikelyError }
    /// The case name, or nil for a code with no case.
    public var name: String? { Code(rawValue: errorCode)?.description }

    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var localizedDescription: String { message }

    /// `CBATTError.insufficientEncryption`; `CBATTError.Code(128)` unnamed.
    public var description: String { name.map { "CBATTError.\($0)" } ?? "CBATTError.Code(\(errorCode))" }

    private var message: String {
        switch Code(rawValue: errorCode) {
        case .success: "The request succeeded."
        case .invalidHandle: "The attribute handle is invalid."
        case .readNotPermitted: "The attribute cannot be read."
        case .writeNotPermitted: "The attribute cannot be written."
        case .invalidPdu: "The request was malformed."
        case .insufficientAuthentication: "The link is not authenticated enough for this attribute."
        case .requestNotSupported: "The peer does not support the request."
        case .invalidOffset: "The offset is past the end of the value."
        case .insufficientAuthorization: "The request is not authorized."
        case .prepareQueueFull: "The peer's queue of prepared writes is full."
        case .attributeNotFound: "No attribute was found in the range."
        case .attributeNotLong: "The attribute cannot be read or written with an offset."
        case .insufficientEncryptionKeySize: "The encryption key is too short for this attribute."
        case .invalidAttributeValueLength: "The value has the wrong length."
        case .unlikelyError: "The request failed for an unlikely reason."
        case .insufficientEncryption: "The link is not encrypted enough for this attribute."
        case .unsupportedGroupType: "The grouping attribute type is not supported."
        case .insufficientResources: "The peer lacks the resources for the request."
        case nil: "ATT error 0x\(String(errorCode, radix: 16, uppercase: true))."
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
    (error as? CBError)?.errorCode == match.rawValue
}

/// `catch CBATTError.insufficientAuthentication`.
public func ~= (match: CBATTError.Code, error: any Error) -> Bool {
    (error as? CBATTError)?.errorCode == match.rawValue
}
