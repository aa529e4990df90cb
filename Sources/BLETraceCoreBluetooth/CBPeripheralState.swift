/// Where a peripheral's connection stands (`CBPeripheralState`), with Apple's raw values.
public enum CBPeripheralState: Int, Hashable, Sendable, CustomStringConvertible {
    case disconnected = 0
    case connecting = 1
    case connected = 2
    case disconnecting = 3

    public var description: String {
        switch self {
        case .disconnected: "disconnected"
        case .connecting: "connecting"
        case .connected: "connected"
        case .disconnecting: "disconnecting"
        }
    }
}
