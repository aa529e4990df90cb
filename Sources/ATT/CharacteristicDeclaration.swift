import Wire

/// The value of a characteristic declaration (attribute type 0x2803), as Read By Type returns
/// it during characteristic discovery: properties, the value's handle, the characteristic's UUID.
///
/// Core 6.0, Vol 3, Part G, §3.3.1. CoreBluetooth: `CBCharacteristic.properties` and `uuid`.
public struct CharacteristicDeclaration: Hashable, Sendable {
    // (Its attribute type: BluetoothUUID.characteristicDeclaration, in GATTUUIDs.swift.)

    /// `CBCharacteristicProperties` bits.
    public var properties: UInt8
    public var valueHandle: UInt16
    public var uuid: BluetoothUUID

    /// Reads a declaration value of 5 bytes (16-bit UUID) or 19 bytes (128-bit UUID); nil for
    /// any other length.
    public init?(value: UnsafeRawBufferPointer) {
        guard value.count == 5 || value.count == 19,
            let uuid = BluetoothUUID(littleEndian: UnsafeRawBufferPointer(rebasing: value[3...]))
        else { return nil }
        properties = value[0]
        valueHandle = UInt16(value[1]) | UInt16(value[2]) << 8
        self.uuid = uuid
    }
}
