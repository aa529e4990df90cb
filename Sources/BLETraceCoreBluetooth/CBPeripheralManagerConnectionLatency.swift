/// The connection latency a peripheral manager asks of a central (`CBPeripheralManagerConnectionLatency`).
public enum CBPeripheralManagerConnectionLatency: Int, Hashable, Sendable {
    case low = 0
    case medium = 1
    case high = 2
}
