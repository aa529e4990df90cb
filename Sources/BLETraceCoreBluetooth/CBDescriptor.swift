import Foundation

/// A descriptor of a characteristic (`CBDescriptor`).
///
/// `value` has the type CoreBluetooth documents for each descriptor: an `NSNumber` for
/// Characteristic Extended Properties (2900) and the Client and Server Characteristic
/// Configuration (2902, 2903), a `String` for the Characteristic User Description (2901), `Data`
/// for the Characteristic Presentation Format (2904) and every other descriptor.
open class CBDescriptor: CBAttribute {
    public internal(set) var characteristic: CBCharacteristic? {
        get { characteristicReference?.object }
        set { characteristicReference = newValue?.backReference }
    }
    /// Held through the characteristic's ``BackReference`` (as `weak` as CoreBluetooth's,
    /// without a weak reference's cost).
    private var characteristicReference: BackReference<CBCharacteristic>?
    public var value: Any? { storedValue }

    var storedValue: Any?
    /// The descriptor's handle in the peer's database (bletrace's, as for characteristics).
    public internal(set) var handle: UInt16

    init(uuid: CBUUID, value: Any?, handle: UInt16) {
        storedValue = value
        self.handle = handle
        super.init(uuid: uuid)
    }

    /// The value object CoreBluetooth gives for the descriptor's bytes.
    static func value(of bytes: Data, for uuid: CBUUID) -> Any {
        switch uuid.bluetoothUUID.shortValue {
        case 0x2900, 0x2902, 0x2903:
            let raw = bytes.prefix(2).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            return NSNumber(value: raw)
        case 0x2901:
            return String(decoding: bytes, as: UTF8.self)
        default:
            return bytes
        }
    }

    open override var description: String { "<CBDescriptor: \(uuid.uuidString), value = \(value.map { "\($0)" } ?? "(null)")>" }
}

/// A descriptor of a peripheral manager's characteristic (`CBMutableDescriptor`). CoreBluetooth
/// publishes two kinds only: the Characteristic User Description (2901, a `String`) and the
/// Characteristic Presentation Format (2904, `Data`); the system makes the others itself.
open class CBMutableDescriptor: CBDescriptor {
    /// Only Characteristic User Description (2901) and Characteristic Presentation Format (2904)
    /// can be made: iOS raises an exception for any other UUID here, at initialisation (the
    /// decompiled framework; IOS-DFU-Library 61), which ends the app
    /// (``BluetoothSystem/appCrashed(_:by:)``); the descriptor is made all the same.
    public init(type UUID: CBUUID, value: Any?) {
        super.init(uuid: UUID, value: value, handle: 0)
        let short = UUID.bluetoothUUID.shortValue
        if short != 0x2901 && short != 0x2904 {
            BluetoothSystemContext.current?.appCrashed(
                "descriptorNotAllowed", "Only the Characteristic User Description and Characteristic Presentation Format descriptors can be published, not \(UUID.uuidString)",
                by: nil)
        }
    }
}
