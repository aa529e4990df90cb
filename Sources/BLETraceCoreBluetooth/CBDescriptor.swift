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

    open override var description: String {
        "<CBDescriptor: \(uuid.uuidString), value = \(value.map { "\($0)" } ?? "(null)")>"
    }
}

/// A descriptor of a peripheral manager's characteristic (`CBMutableDescriptor`). Apple's page
/// speaks of two kinds, the Characteristic User Description (2901, a `String`) and the
/// Characteristic Presentation Format (2904, `Data`); the framework itself checks only the value's
/// type for those and for 2906 and 128-bit descriptors, and makes any other.
open class CBMutableDescriptor: CBDescriptor {
    /// iOS raises an exception here, which ends the app (``BluetoothSystem/appCrashed(_:_:by:)``),
    /// when the value does not fit the descriptor: 2901 takes a `String`; 2904, 2906 (an even
    /// number of bytes: a range of two values) and any 128-bit descriptor take `Data`. Every other
    /// descriptor is made whatever its value (the decompiled `-[CBMutableDescriptor
    /// initWithType:value:]` of iOS 18.2; Formats/corebluetooth.md). The descriptor is made all
    /// the same.
    public init(type UUID: CBUUID, value: Any?) {
        super.init(uuid: UUID, value: value, handle: 0)
        if let message = Self.refusal(UUID, value) {
            BluetoothSystemContext.current?.appCrashed("descriptorValueType", message, by: nil)
        }
    }

    /// The text of iOS's exception for a value that does not fit the descriptor, if any.
    private static func refusal(_ uuid: CBUUID, _ value: Any?) -> String? {
        let isString = value is String || value is NSString
        let data = value as? Data ?? (value as? NSData).map { Data(referencing: $0) }
        switch uuid.bluetoothUUID.shortValue {
        case 0x2901: return isString ? nil : "Expecting NSString value type for User Description descriptor"
        case 0x2904: return data != nil ? nil : "Expecting NSData value type for Format descriptor"
        case 0x2906: return data.map { $0.count % 2 == 0 } == true ? nil : "Valid range must be an even number of bytes"
        case nil: return data != nil ? nil : "Expecting NSData value type for 128-bit descriptor"
        default: return nil
        }
    }
}
