/// Reads fixed-width fields from borrowed bytes, checking the length before every read.
///
/// It never copies: `bytes(_:)` and `rest()` return views into the same buffer, valid for as long
/// as the buffer is. Every read names what it expected so that a short input becomes a
/// ``DecodeError`` that a person can act on. Endianness is spelled out in each method's name;
/// Bluetooth itself is little-endian, capture file headers are often big-endian.
public struct ByteReader {
    public let buffer: UnsafeRawBufferPointer
    public let layer: DecodeError.Layer
    /// Offset of the next byte to read.
    public var offset: Int

    @inlinable
    public init(_ buffer: UnsafeRawBufferPointer, layer: DecodeError.Layer, offset: Int = 0) {
        self.buffer = buffer
        self.layer = layer
        self.offset = offset
    }

    /// Bytes left to read.
    @inlinable public var remaining: Int { buffer.count - offset }
    @inlinable public var isAtEnd: Bool { offset >= buffer.count }

    /// Fails unless at least `count` bytes remain.
    ///
    /// The check is inlined into every reader; building the error is kept out of line, so that a
    /// field read on the hot path is a compare and a load.
    @inlinable @inline(__always)
    public func require(_ count: Int, _ expected: String) throws(DecodeError) {
        guard _fastPath(UInt(bitPattern: count) <= UInt(bitPattern: remaining)) else {
            throw shortInput(expected)
        }
    }

    @usableFromInline @inline(never)
    func shortInput(_ expected: String) -> DecodeError {
        DecodeError(layer: layer, offset: offset, expected: expected)
    }

    @inlinable @inline(__always)
    public mutating func skip(_ count: Int, _ expected: String) throws(DecodeError) {
        try require(count, expected)
        offset += count
    }

    @inlinable @inline(__always)
    public mutating func u8(_ expected: String) throws(DecodeError) -> UInt8 {
        try require(1, expected)
        defer { offset += 1 }
        return buffer[offset]
    }

    @inlinable @inline(__always)
    public mutating func u16le(_ expected: String) throws(DecodeError) -> UInt16 {
        try require(2, expected)
        defer { offset += 2 }
        return UInt16(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inlinable @inline(__always)
    public mutating func u24le(_ expected: String) throws(DecodeError) -> UInt32 {
        try require(3, expected)
        defer { offset += 3 }
        return UInt32(buffer[offset]) | UInt32(buffer[offset + 1]) << 8
            | UInt32(buffer[offset + 2]) << 16
    }

    @inlinable @inline(__always)
    public mutating func u32le(_ expected: String) throws(DecodeError) -> UInt32 {
        try require(4, expected)
        defer { offset += 4 }
        return UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inlinable @inline(__always)
    public mutating func u16be(_ expected: String) throws(DecodeError) -> UInt16 {
        try require(2, expected)
        defer { offset += 2 }
        return UInt16(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inlinable @inline(__always)
    public mutating func u32be(_ expected: String) throws(DecodeError) -> UInt32 {
        try require(4, expected)
        defer { offset += 4 }
        return UInt32(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inlinable @inline(__always)
    public mutating func i64be(_ expected: String) throws(DecodeError) -> Int64 {
        try require(8, expected)
        defer { offset += 8 }
        return Int64(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: Int64.self))
    }

    /// A 6-byte Bluetooth device address, least significant byte first (as on the air and in HCI).
    @inlinable @inline(__always)
    public mutating func address(_ expected: String) throws(DecodeError) -> BluetoothAddress {
        try require(6, expected)
        defer { offset += 6 }
        var value: UInt64 = 0
        for index in (0..<6).reversed() { value = value << 8 | UInt64(buffer[offset + index]) }
        return BluetoothAddress(rawValue: value)
    }

    /// The next `count` bytes, borrowed.
    @inlinable @inline(__always)
    public mutating func bytes(_ count: Int, _ expected: String) throws(DecodeError)
        -> UnsafeRawBufferPointer
    {
        try require(count, expected)
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
    }

    /// Everything not yet read, borrowed.
    @inlinable @inline(__always)
    public mutating func rest() -> UnsafeRawBufferPointer {
        defer { offset = buffer.count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset...])
    }

    /// A ``DecodeError`` at the current offset.
    @inlinable
    public func error(_ expected: String) -> DecodeError {
        DecodeError(layer: layer, offset: offset, expected: expected)
    }
}
