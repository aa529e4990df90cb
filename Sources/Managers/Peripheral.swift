import Foundation
import Wire

/// A remote peripheral as a central app sees it (`CBPeripheral`).
///
/// Objects are owned by their central manager's system and compared by identity, as in
/// CoreBluetooth. `identifier` is derived from the Bluetooth address so that it is the same in
/// every replay of a capture.
public final class Peripheral: Hashable, CustomStringConvertible {
    /// `CBPeripheralState`, with Apple's raw values.
    public enum State: Int, Hashable, Sendable {
        case disconnected = 0, connecting, connected, disconnecting
    }

    public let identifier: UUID
    /// The peer's address. CoreBluetooth hides it; bletrace shows it, since captures name peers by it.
    public let address: BluetoothAddress
    public internal(set) var name: String?
    public internal(set) var state: State = .disconnected

    public init(address: BluetoothAddress, name: String? = nil) {
        self.address = address
        self.name = name
        self.identifier = Peripheral.identifier(for: address)
    }

    /// The stable identifier bletrace gives the peer at `address`:
    /// `B1E7AACE-0000-4000-8000-` followed by the 12 hex digits of the address.
    public static func identifier(for address: BluetoothAddress) -> UUID {
        let hex = String(address.rawValue, radix: 16, uppercase: true)
        let digits = String(repeating: "0", count: 12 - hex.count) + hex
        return UUID(uuidString: "B1E7AACE-0000-4000-8000-" + digits)!
    }

    public var description: String { "\(address)" }

    public static func == (lhs: Peripheral, rhs: Peripheral) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
