// CoreBluetooth's deprecated names, still in Apple's current SDK and still in older apps' code:
// here with Apple's spelling and deprecation, so that such code builds and warns as on iOS.

/// The central manager's state before iOS 10 (`CBCentralManagerState`), with `CBManagerState`'s values.
@available(*, deprecated, message: "Use CBManagerState instead")
public enum CBCentralManagerState: Int, Hashable, Sendable {
    case unknown = 0
    case resetting = 1
    case unsupported = 2
    case unauthorized = 3
    case poweredOff = 4
    case poweredOn = 5
}

/// The peripheral manager's state before iOS 10 (`CBPeripheralManagerState`).
@available(*, deprecated, message: "Use CBManagerState instead")
public enum CBPeripheralManagerState: Int, Hashable, Sendable {
    case unknown = 0
    case resetting = 1
    case unsupported = 2
    case unauthorized = 3
    case poweredOff = 4
    case poweredOn = 5
}

/// Whether the app may share data in the background before iOS 13
/// (`CBPeripheralManagerAuthorizationStatus`).
@available(*, deprecated, message: "Use CBManagerAuthorization instead")
public enum CBPeripheralManagerAuthorizationStatus: Int, Hashable, Sendable {
    case notDetermined = 0
    case restricted = 1
    case denied = 2
    case authorized = 3
}

extension CBPeripheralManager {
    /// `CBPeripheralManager.authorizationStatus()`: ``CBManager/authorization`` in the old type.
    @available(*, deprecated, message: "Use CBManager.authorization instead")
    @discardableResult
    public class func authorizationStatus() -> CBPeripheralManagerAuthorizationStatus {
        switch authorization {
        case .notDetermined: .notDetermined
        case .restricted: .restricted
        case .denied: .denied
        case .allowedAlways: .authorized
        }
    }
}

extension CBCharacteristic {
    /// `CBCharacteristic.isBroadcasted` (deprecated since iOS 8): whether the peer broadcasts the
    /// value, which its Server Characteristic Configuration descriptor would say. Systems do not
    /// report that descriptor, so it is always false here (Formats/corebluetooth.md).
    @available(*, deprecated, message: "Read the Server Characteristic Configuration descriptor (2903) instead")
    public var isBroadcasted: Bool { false }
}
