/// Writes fields into a caller-owned buffer, checking room before every write.
///
/// The counterpart of ``ByteReader`` for encoders: it never allocates, and running out of room
/// is an error that says how much was needed.
public struct ByteWriter {
    public let buffer: UnsafeMutableRawBufferPointer
    public var count = 0

    /// A write that did not fit: the bytes it needed and the buffer's capacity.
    public struct Overflow: Error, Hashable, Sendable {
        public var needed: Int
        public var capacity: Int
    }

    @inlinable public init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    @usableFromInline
    func ensure(_ extra: Int) throws(Overflow) {
        guard count + extra <= buffer.count else {
            throw Overflow(needed: count + extra, capacity: buffer.count)
        }
    }

    @inlinable
    public mutating func u8(_ value: UInt8) throws(Overflow) {
        try ensure(1)
        buffer[count] = value
        count += 1
    }

    @inlinable
    public mutating func u16le(_ value: UInt16) throws(Overflow) {
        try ensure(2)
        buffer.storeBytes(of: value.littleEndian, toByteOffset: count, as: UInt16.self)
        count += 2
    }

    @inlinable
    public mutating func bytes(_ value: UnsafeRawBufferPointer) throws(Overflow) {
        try ensure(value.count)
        if !value.isEmpty {
            UnsafeMutableRawBufferPointer(rebasing: buffer[count..<count + value.count])
                .copyMemory(from: value)
        }
        count += value.count
    }
}
