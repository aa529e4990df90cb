/// Whether the app may use Bluetooth (`CBManagerAuthorization`).
public enum CBManagerAuthorization: Int, Hashable, Sendable, CustomStringConvertible {
    case notDetermined = 0
    case restricted = 1
    case denied = 2
    case allowedAlways = 3

    public var description: String {
        switch self {
        case .notDetermined: "notDetermined"
        case .restricted: "restricted"
        case .denied: "denied"
        case .allowedAlways: "allowedAlways"
        }
    }
}
