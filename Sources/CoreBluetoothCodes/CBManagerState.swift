/// The equivalent of CoreBluetooth's `CBManagerState`, with Apple's raw values.
public enum CBManagerState: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case unknown = 0
    case resetting = 1
    case unsupported = 2
    case unauthorized = 3
    case poweredOff = 4
    case poweredOn = 5

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .resetting: "resetting"
        case .unsupported: "unsupported"
        case .unauthorized: "unauthorized"
        case .poweredOff: "poweredOff"
        case .poweredOn: "poweredOn"
        }
    }

    public init?(name: String) {
        guard let state = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = state
    }
}
