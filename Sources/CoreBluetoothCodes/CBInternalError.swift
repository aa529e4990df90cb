import Foundation

/// The domain of ``CBInternalError`` (`CBInternalErrorDomain` in CoreBluetooth).
public let CBInternalErrorDomain = "CBInternalErrorDomain"

/// An error iOS reports in `CBInternalErrorDomain`: codes Apple's headers do not list, which the
/// framework makes from the Bluetooth daemon's results (the decompiled `NSError(CoreBluetooth)`
/// `errorWithInfo:` of iOS 18.2 gives each code and text). An app that switches only on
/// `CBError` and `CBATTError` sees these as neither: `(error as NSError).domain` tells them apart.
///
/// bletrace names the codes that concern an app's LE links; any other number is kept as it is.
public struct CBInternalError: Error, Hashable, Sendable, CustomStringConvertible, CustomNSError {
    public static var errorDomain: String { CBInternalErrorDomain }

    /// The codes, with the framework's numbers.
    public enum Code: Int, Hashable, Sendable, CaseIterable {
        case pairingPasscodeIncorrect = 0
        case pairingAlreadyPaired = 1
        case pairingConfirmValueFailed = 2
        case pairingSecurityTimeout = 3
        case pairingNoUserResponse = 4
        case pairingDHKeyCheckFailed = 5
        case pairingNumericComparisonFailed = 6
        case operationNotAllowed = 10
        case pairingPincodeIncorrect = 11
        case invalidState = 12
        case peerDidNotConfirmIndication = 13
        case connectionLimitForUseCase = 14
        case pairingTooManyAttempts = 16
        case pairingCancelled = 17
        case micFailure = 31
        case localDevicePoweredOff = 32
    }

    public let errorCode: Int

    public init(_ code: Code) { errorCode = code.rawValue }
    public init(errorCode: Int) { self.errorCode = errorCode }

    /// The named code, if the number is one.
    public var code: Code? { Code(rawValue: errorCode) }

    /// The framework's text for the code (`NSLocalizedDescriptionKey`).
    public var localizedDescription: String {
        switch code {
        case .pairingPasscodeIncorrect: "Pairing failed as the passcode was incorrect."
        case .pairingAlreadyPaired: "Pairing failed as this device is already paired."
        case .operationNotAllowed: "Operation is not allowed"
        case .invalidState: "Invalid state"
        case .connectionLimitForUseCase: "The system has reached the maximum number of connections for this use case"
        case .pairingConfirmValueFailed: "Pairing failed as confirm value failed."
        case .pairingSecurityTimeout: "Pairing failed as the security timeout elapsed"
        case .pairingNoUserResponse: "Pairing failed as there was no response from user to pairing request"
        case .pairingDHKeyCheckFailed: "Pairing failed as DHKEY Check failed"
        case .pairingNumericComparisonFailed: "Pairing failed as numeric comparison failed failed"
        case .pairingPincodeIncorrect: "Pairing failed as the Pincode was incorrect."
        case .peerDidNotConfirmIndication: "Peer failed to respond to ATT value indication"
        case .pairingTooManyAttempts: "Pairing Failed due to too many attempts"
        case .pairingCancelled: "Pairing was cancelled."
        case .micFailure: "MIC failure"
        case .localDevicePoweredOff: "Local device is powered off."
        case nil: "Unknown error."
        }
    }

    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: localizedDescription] }

    /// `CBInternalError.pairingCancelled` as a flow writes it (`CBInternalError(17)` for an
    /// unnamed code).
    public var description: String { code.map { "CBInternalError.\($0)" } ?? "CBInternalError(\(errorCode))" }
}
