import Foundation
import Wire

/// A remote device (`CBPeer`): a peripheral to a central, a central to a peripheral manager.
///
/// `identifier` is what CoreBluetooth gives apps. bletrace also keeps the device's Bluetooth
/// address (CoreBluetooth hides it), since captures name peers by address; systems make the
/// identifier from it with ``identifier(for:)`` so that it is the same in every replay.
open class CBPeer: NSObject {
    public let identifier: UUID
    /// The peer's address, when the system knows it.
    public let address: BluetoothAddress?

    init(identifier: UUID, address: BluetoothAddress?) {
        self.identifier = identifier
        self.address = address
        super.init()
    }

    /// The stable identifier bletrace gives the peer at `address`:
    /// `B1E7AACE-0000-4000-8000-` followed by the 12 hex digits of the address.
    public static func identifier(for address: BluetoothAddress) -> UUID {
        let hex = String(address.rawValue, radix: 16, uppercase: true)
        let digits = String(repeating: "0", count: 12 - hex.count) + hex
        return UUID(uuidString: "B1E7AACE-0000-4000-8000-" + digits)!
    }
}

/// A remote central as a peripheral manager sees it (`CBCentral`).
open class CBCentral: CBPeer {
    /// The largest value one notification or indication can carry to this central (ATT MTU − 3).
    public internal(set) var maximumUpdateValueLength: Int

    /// A central, as a system reports it (a peripheral manager's systems make these).
    public init(identifier: UUID, address: BluetoothAddress? = nil, maximumUpdateValueLength: Int = 20) {
        self.maximumUpdateValueLength = maximumUpdateValueLength
        super.init(identifier: identifier, address: address)
    }

    open override var description: String {
        "<CBCentral: identifier = \(identifier.uuidString), MTU = \(maximumUpdateValueLength + 3)>"
    }
}
