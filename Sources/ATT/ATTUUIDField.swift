import Wire

/// A UUID as an ATT PDU carries it, 2 or 16 bytes, kept as sent so that it re-encodes exactly
/// (a 16-bit UUID may also be sent in its 128-bit form).
public struct ATTUUIDField {
    public let bytes: UnsafeRawBufferPointer
    public var uuid: BluetoothUUID { BluetoothUUID(littleEndian: bytes)! }

    static func decode(_ bytes: UnsafeRawBufferPointer, offset: Int) throws(DecodeError) -> ATTUUIDField {
        guard bytes.count == 2 || bytes.count == 16 else {
            throw DecodeError(
                layer: .att, offset: offset, expected: "a 2-byte or 16-byte UUID, not \(bytes.count) bytes")
        }
        return ATTUUIDField(bytes: bytes)
    }
}
