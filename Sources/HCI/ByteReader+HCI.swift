import Wire

// Field readers the HCI layers need beyond Wire's: 8-byte masks and random numbers, 16-byte keys,
// signed bytes and 12-bit connection handles. Every one checks the length before it reads, and
// takes a literal `expected` so that nothing is built unless it throws.
extension ByteReader {
    mutating func u64le(_ expected: String) throws(DecodeError) -> UInt64 {
        try require(8, expected)
        defer { offset += 8 }
        return UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// A 128-bit value (a key, a confirm or random value), least significant byte first.
    mutating func u128le(_ expected: String) throws(DecodeError) -> UInt128 {
        try require(16, expected)
        defer { offset += 16 }
        let low = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        let high = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
        return UInt128(high) << 64 | UInt128(low)
    }

    mutating func i8(_ expected: String) throws(DecodeError) -> Int8 {
        Int8(bitPattern: try u8(expected))
    }

    /// A Connection_Handle field: the low 12 bits; the top 4 are reserved (Vol 4, Part E, §5.4).
    mutating func handle(_ expected: String) throws(DecodeError) -> UInt16 {
        try u16le(expected) & 0x0FFF
    }

    /// A 6-byte device address, least significant byte first. (Wire's `address(_:)` with no loop:
    /// nothing to allocate even in an unoptimized build.)
    mutating func deviceAddress(_ expected: String) throws(DecodeError) -> BluetoothAddress {
        try require(6, expected)
        defer { offset += 6 }
        return addressAt(buffer, offset)
    }

    /// Fails unless the input ends here: for fields whose length the specification fixes exactly.
    func requireEnd(_ expected: String) throws(DecodeError) {
        guard remaining == 0 else { throw error(expected) }
    }
}

extension DecodeError {
    /// The same error with its offset moved by `base`: for a decoder given a slice of a larger
    /// packet, so that offsets still count from the packet's start.
    func shifted(by base: Int) -> DecodeError {
        var copy = self
        copy.offset += base
        return copy
    }
}

/// The number of bits set in `mask` among `defined`: how many entries an arrayed parameter
/// indexed by a PHY bit mask has (Vol 4, Part E, §5.2).
func entryCount(_ mask: UInt8, defined: UInt8) -> Int { (mask & defined).nonzeroBitCount }

@inline(__always)
func le16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
    UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
}
