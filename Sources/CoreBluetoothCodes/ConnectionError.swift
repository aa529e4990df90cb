import Foundation

/// The error of a central manager's connection callback (`didFailToConnect`,
/// `didDisconnectPeripheral`): a ``CBError``, or one of the errors iOS reports in
/// `CBInternalErrorDomain` (``CBInternalError``: a MIC failure, a cancelled pairing), which an
/// app that switches on `CBError` alone sees as neither.
public enum ConnectionError: Hashable, Sendable, CustomStringConvertible {
    case cb(CBError)
    case `internal`(CBInternalError)

    /// The error as the app gets it.
    public var error: any Error {
        switch self {
        case .cb(let error): error
        case .internal(let error): error
        }
    }

    /// `CBErrorDomain` or `CBInternalErrorDomain`.
    public var domain: String {
        switch self {
        case .cb: CBError.errorDomain
        case .internal: CBInternalError.errorDomain
        }
    }

    /// The code's value, as `NSError.code` carries it.
    public var errorCode: Int {
        switch self {
        case .cb(let error): error.errorCode
        case .internal(let error): error.errorCode
        }
    }

    /// The Swift case name (`connectionTimeout`, `micFailure`); nil for a value with no case.
    public var name: String? {
        switch self {
        case .cb(let error): error.name
        case .internal(let error): error.code.map { "\($0)" }
        }
    }

    /// As a flow writes it: `CBError.connectionTimeout`, `CBInternalError.micFailure`.
    public var description: String {
        switch self {
        case .cb(let error): "\(error)"
        case .internal(let error): "\(error)"
        }
    }
}
