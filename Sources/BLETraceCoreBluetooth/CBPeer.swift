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
        let a = address.rawValue
        func byte(_ shift: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: a >> shift) }
        return UUID(
            uuid: (
                0xB1, 0xE7, 0xAA, 0xCE, 0, 0, 0x40, 0, 0x80, 0, byte(40), byte(32), byte(24), byte(16), byte(8), byte(0)
            ))
    }

    /// The address an identifier of ``identifier(for:)`` was made from; nil for any other UUID.
    public static func address(in identifier: UUID) -> BluetoothAddress? {
        let u = identifier.uuid
        let address = BluetoothAddress(
            rawValue: [u.10, u.11, u.12, u.13, u.14, u.15].reduce(0) { $0 << 8 | UInt64($1) })
        return Self.identifier(for: address) == identifier ? address : nil
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
