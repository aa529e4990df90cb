// CoreBluetooth's deprecated names, still in Apple's current SDK and still in older apps' code:
// here with Apple's spelling and deprecation, so that such code builds and warns as on iOS.

/// The central manager's state before iOS 10 (`CBCentralManagerState`). On iOS a separate enum
/// with `CBManagerState`'s cases and values; here a name for `CBManagerState` itself, which old
/// code uses the same way (`.poweredOn`, `rawValue`, `init(rawValue:)`).
@available(*, deprecated, renamed: "CBManagerState")
public typealias CBCentralManagerState = CBManagerState

/// The peripheral manager's state before iOS 10 (`CBPeripheralManagerState`), as above.
@available(*, deprecated, renamed: "CBManagerState")
public typealias CBPeripheralManagerState = CBManagerState

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
