import Foundation

// `NSError` and back, as on Apple's systems: an error passed on as `error as NSError` (as
// Bluejay and many app layers do) casts back with `as? CBATTError`, matches
// `catch CBATTError.readNotPermitted` and `case CBError.connectionTimeout = error`.
//
// On Apple's systems the runtime asks `_ObjectiveCBridgeableError` when an `NSError` is cast to an
// error struct. The Swift runtime on Linux does not (corelibs Foundation declares the protocol,
// but a cast never consults it); it does consult `_ObjectiveCBridgeable`, whose
// `_conditionallyBridgeFromObjectiveC` turns an `NSError` of the struct's domain into the struct
// and refuses any other. So both are here: the first for Apple's runtime, the second for Linux's
// (Formats/corebluetooth.md, "What the import line brings").

extension CoreBluetoothError {
    /// The error an `NSError` stands for, when it is of this domain.
    static func bridged(from error: NSError) -> Self? {
        guard error.domain == errorDomain, let code = Code(rawValue: error.code) else { return nil }
        return Self(code, userInfo: error.userInfo)
    }

    public init?(_bridgedNSError error: NSError) {
        guard let bridged = Self.bridged(from: error) else { return nil }
        self = bridged
    }

    public func _bridgeToObjectiveC() -> NSError { _nsError }

    public static func _forceBridgeFromObjectiveC(_ source: NSError, result: inout Self?) {
        result = Self(_nsError: source)
    }

    public static func _conditionallyBridgeFromObjectiveC(_ source: NSError, result: inout Self?) -> Bool {
        result = bridged(from: source)
        return result != nil
    }

    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSError?) -> Self {
        Self(_nsError: source ?? NSError(domain: errorDomain, code: 0))
    }
}

extension CBError: _ObjectiveCBridgeableError {}
extension CBATTError: _ObjectiveCBridgeableError {}

#if !canImport(Darwin)
extension CBError: _ObjectiveCBridgeable {
    public typealias _ObjectiveCType = NSError
}
extension CBATTError: _ObjectiveCBridgeable {
    public typealias _ObjectiveCType = NSError
}
#endif
