import Foundation

/// What ``CBError`` and ``CBATTError`` share: the members of Apple's bridged error structs.
///
/// On Apple's systems both are `_BridgedStoredNSError` structs: each wraps an `NSError` of its
/// domain, and Swift code uses `init(_nsError:)`, `init(_:userInfo:)`, `_nsError`, `userInfo`,
/// `errorUserInfo`, `errorCode` and `localizedDescription`. These members are here under the same
/// names. The structs keep their code and user info as values, not an `NSError`: corelibs
/// Foundation has the `_BridgedStoredNSError` protocol, but its default `hashValue` calls itself
/// until the stack overflows (Swift 6.3.1 on Linux). An `NSError` of the domain casts back to
/// the struct with `as?` as on Apple's systems (`CoreBluetoothError+Bridging.swift`).
public protocol CoreBluetoothError: CustomNSError, Hashable, Sendable, CustomStringConvertible {
    associatedtype Code: CoreBluetoothErrorCode

    var code: Code { get }
    /// The user info the error was made with, without the description bletrace adds.
    var givenUserInfo: [String: Any] { get }
    init(_ code: Code, userInfo: [String: Any])
    /// The text CoreBluetooth's framework puts in the errors of this code it makes, nil where it
    /// gives none (Formats/corebluetooth.md, "What the import line brings").
    static func frameworkDescription(of code: Code) -> String?
}

/// `CBError.Code`, `CBATTError.Code`: Apple's raw values, and the Swift case name.
public protocol CoreBluetoothErrorCode: RawRepresentable<Int>, Hashable, Sendable, CustomStringConvertible {
    /// The Swift case name; nil for a value with no case.
    var name: String? { get }
}

extension CoreBluetoothError {
    /// An error with a code CoreBluetooth may send but does not name (for ``CBATTError``, the ATT
    /// application errors 0x80-0x9F and common profile errors 0xE0-0xFF).
    public init(errorCode: Int) { self.init(Code(rawValue: errorCode)!, userInfo: [:]) }

    /// The case name, or nil for a value with no case.
    public var name: String? { code.name }

    /// `CBError.connectionTimeout`, as the flow format writes it; `CBError.Code(99)` for a value
    /// with no case.
    public var description: String { name.map { "\(Self.self).\($0)" } ?? code.description }

    /// Apple's `init(_nsError:)`: the error an `NSError` of this domain stands for, with its user
    /// info. As on Apple's systems, an `NSError` of another domain is a programming error and ends
    /// the program with the two domains named.
    public init(_nsError error: NSError) {
        precondition(
            error.domain == Self.errorDomain,
            "\(Self.self)(_nsError:) with an NSError of domain \(error.domain), not \(Self.errorDomain)")
        guard let code = Code(rawValue: error.code) else {
            preconditionFailure("\(Self.self)(_nsError:): code \(error.code) has no \(Self.self).Code")
        }
        self.init(code, userInfo: error.userInfo)
    }

    /// The error as an `NSError` (Apple's `_nsError`): this domain, the code's value, ``errorUserInfo``.
    public var _nsError: NSError {
        NSError(domain: Self.errorDomain, code: code.rawValue, userInfo: errorUserInfo)
    }

    /// The code's value, as `NSError.code` carries it.
    public var errorCode: Int { code.rawValue }

    /// The user info given, with `NSLocalizedDescriptionKey` set to the framework's text for the
    /// code when it was not given (as the errors CoreBluetooth delivers carry it).
    public var errorUserInfo: [String: Any] {
        var info = givenUserInfo
        if info[NSLocalizedDescriptionKey] == nil, let text = Self.frameworkDescription(of: code) {
            info[NSLocalizedDescriptionKey] = text
        }
        return info
    }

    /// Apple's `userInfo`: the same as ``errorUserInfo``.
    public var userInfo: [String: Any] { errorUserInfo }

    /// Equal as Apple's are, as `NSError`s: same code and same user info (the framework's
    /// description included), so an error rebuilt from its own `_nsError` equals it.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.code == rhs.code else { return false }
        // The errors systems make carry no user info of their own: equal by code, at no cost.
        if lhs.givenUserInfo.isEmpty && rhs.givenUserInfo.isEmpty { return true }
        return ErrorUserInfo(values: lhs.errorUserInfo) == ErrorUserInfo(values: rhs.errorUserInfo)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The description in the user info, else Foundation's text for an error with no description
    /// ("The operation could not be completed. (CBErrorDomain error 17.)").
    public var localizedDescription: String {
        (errorUserInfo[NSLocalizedDescriptionKey] as? String) ?? _nsError.localizedDescription
    }
}

/// An error's user info as a stored value: immutable once made, so sendable as `NSError` is; equal
/// when the dictionaries are (compared as `NSDictionary` compares them).
struct ErrorUserInfo: @unchecked Sendable {
    let values: [String: Any]

    static func == (lhs: Self, rhs: Self) -> Bool {
        if lhs.values.isEmpty || rhs.values.isEmpty { return lhs.values.isEmpty && rhs.values.isEmpty }
        return NSDictionary(dictionary: lhs.values).isEqual(to: rhs.values)
    }
}
