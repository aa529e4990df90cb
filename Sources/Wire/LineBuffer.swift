/// A reused byte buffer that output lines are written into, a piece at a time: fixed text,
/// names, decimal and hex numbers, hex bytes. Nothing here allocates once the buffer has grown
/// to its working size (the caller hands it on and empties it, keeping its capacity).
///
/// This is the hot path of `decode`: no `String` is built per field, no Foundation formatting.
/// Its writes are inlinable, so that a formatter in another module (`Reports`' `DecodeLineFormatter`)
/// writes through a pointer as one in the same module would.
public struct LineBuffer: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    /// How many bytes are written (``count``).
    @usableFromInline var length = 0
    @usableFromInline var capacity: Int

    /// The bytes written since the last ``removeAll()``.
    public var count: Int { length }

    public init(capacity: Int = 1 << 17) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written since the last ``removeAll()``, valid until the next write.
    public var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: length) }

    /// A copy of the bytes (for tests).
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: length)) }

    public mutating func removeAll() { length = 0 }

    /// Replaces the byte at `position` (one already written).
    public mutating func set(_ position: Int, _ value: UInt8) {
        precondition(position < length)
        base[position] = value
    }

    /// Room for `more` bytes after the ones written.
    @inlinable @inline(__always) mutating func reserve(_ more: Int) {
        if length + more > capacity { grow(length + more) }
    }

    @usableFromInline mutating func grow(_ needed: Int) {
        let larger = max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: base, count: length)
        base.deallocate()
        (base, capacity) = (moved, larger)
    }

    @inlinable @inline(__always) public mutating func byte(_ value: UInt8) {
        reserve(1)
        base[length] = value
        length += 1
    }

    @inlinable @inline(__always) mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        reserve(bytes.count)
        if let start = bytes.baseAddress { (base + length).update(from: start, count: bytes.count) }
        length += bytes.count
    }

    /// Fixed ASCII text.
    @inlinable @inline(__always) public mutating func text(_ value: StaticString) {
        raw(UnsafeBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
    }

    /// A string's UTF-8 (names are string literals: no copy, no allocation). Read in place when
    /// the string is stored as UTF-8, as Swift's own are (no retain of it).
    @inlinable @inline(__always) public mutating func string(_ value: String) {
        if value.utf8.withContiguousStorageIfAvailable({ raw($0) }) != nil { return }
        var value = value
        value.withUTF8 { raw($0) }
    }

    @inlinable public mutating func spaces(_ count: Int) {
        guard count > 0 else { return }
        reserve(count)
        (base + length).update(repeating: 0x20, count: count)
        length += count
    }

    /// Digits of `value` in base 10, right-aligned in `width` with spaces before.
    @inlinable public mutating func decimal(_ value: UInt64, width: Int = 0) {
        // Written from the end into 24 bytes of scratch, two digits at a time, then copied.
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let pairs = UnsafeRawPointer(Self.decimalPairs)
        let (start, digits) = withUnsafeMutableBytes(of: &scratch) { raw -> (Int, Int) in
            var position = 24
            var rest = value
            while rest >= 100 {
                let pair = Int(rest % 100)
                rest /= 100
                position -= 2
                raw.storeBytes(
                    of: pairs.loadUnaligned(fromByteOffset: 2 * pair, as: UInt16.self), toByteOffset: position,
                    as: UInt16.self)
            }
            if rest >= 10 {
                position -= 2
                raw.storeBytes(
                    of: pairs.loadUnaligned(fromByteOffset: 2 * Int(rest), as: UInt16.self), toByteOffset: position,
                    as: UInt16.self)
            } else {
                position -= 1
                raw[position] = 0x30 &+ UInt8(truncatingIfNeeded: rest)
            }
            return (position, 24 - position)
        }
        if width > digits { spaces(width - digits) }
        reserve(digits)
        withUnsafeBytes(of: &scratch) { raw in
            UnsafeMutableRawPointer(base + length).copyMemory(from: raw.baseAddress! + start, byteCount: digits)
        }
        length += digits
    }

    /// `value` (below 1,000,000) as six digits, with zeros before: a time's microseconds.
    @inlinable public mutating func sixDigits(_ value: UInt32) {
        reserve(6)
        let pairs = UnsafeRawPointer(Self.decimalPairs)
        let target = UnsafeMutableRawPointer(base + length)
        let low = value % 10_000
        target.storeBytes(
            of: pairs.loadUnaligned(fromByteOffset: 2 * Int(value / 10_000 % 100), as: UInt16.self), as: UInt16.self)
        target.storeBytes(
            of: pairs.loadUnaligned(fromByteOffset: 2 * Int(low / 100), as: UInt16.self), toByteOffset: 2,
            as: UInt16.self)
        target.storeBytes(
            of: pairs.loadUnaligned(fromByteOffset: 2 * Int(low % 100), as: UInt16.self), toByteOffset: 4,
            as: UInt16.self)
        length += 6
    }

    /// A signed number in base 10, `-` before a negative one.
    @inlinable public mutating func decimal(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        decimal(value.magnitude)
    }

    @inlinable public mutating func decimal(_ value: Int) { decimal(Int64(value)) }

    /// `0x` and lowercase hex digits, at least `digits` of them (as `hex(_:digits:)` writes).
    @inlinable public mutating func hex(_ value: UInt64, digits: Int) {
        var significant = 1
        while significant < 16, value >> (4 * UInt64(significant)) != 0 { significant += 1 }
        let width = max(significant, digits)
        reserve(width + 2)
        base[length] = UInt8(ascii: "0")
        base[length + 1] = UInt8(ascii: "x")
        length += 2
        for index in 0..<width {
            let shift = 4 * (width - 1 - index)
            base[length + index] = shift >= 64 ? 0x30 : HexDigits.lower[Int(value >> UInt64(shift) & 0xF)]
        }
        length += width
    }

    /// Lowercase hex digits, as many as the value needs, no `0x` (as `String(value, radix: 16)`).
    @inlinable public mutating func hexDigits(_ value: UInt64) {
        var significant = 1
        while significant < 16, value >> (4 * UInt64(significant)) != 0 { significant += 1 }
        reserve(significant)
        for index in 0..<significant {
            base[length + index] = HexDigits.lower[Int(value >> UInt64(4 * (significant - 1 - index)) & 0xF)]
        }
        length += significant
    }

    /// Bytes as they are.
    @inlinable public mutating func raw(_ value: UnsafeRawBufferPointer) {
        raw(value.assumingMemoryBound(to: UInt8.self))
    }

    /// Two lowercase hex digits a byte, no separators (as `hexString`).
    @inlinable public mutating func hexBytes(_ value: UnsafeRawBufferPointer) {
        reserve(2 * value.count)
        let target = UnsafeMutableRawPointer(base + length)
        var index = 0
        // Eight bytes at a time in vector lanes: each byte widened to a 16-bit lane whose low
        // byte is the high nibble's digit and whose high byte the low nibble's (little endian:
        // the digits in reading order), stored as 16 bytes.
        if let source = value.baseAddress {
            while index + 8 <= value.count {
                let bytes = SIMD8<UInt16>(
                    truncatingIfNeeded: source.loadUnaligned(fromByteOffset: index, as: SIMD8<UInt8>.self))
                let nibbles = (bytes &>> 4) | ((bytes & 0x0F) &<< 8)
                // "0"-"9" from 0x30; "a"-"f" from 0x61, 39 past where the digits' run would go.
                let above9 = ((nibbles &+ 0x0606) &>> 4) & 0x0101
                let digits = nibbles &+ 0x3030 &+ above9 &* 39
                target.storeBytes(of: digits, toByteOffset: 2 * index, as: SIMD8<UInt16>.self)
                index += 8
            }
        }
        // The rest two digits at a time, from a table of the 256 pairs.
        let pairs = UnsafeRawPointer(HexDigits.pairs)
        while index < value.count {
            target.storeBytes(
                of: pairs.loadUnaligned(fromByteOffset: 2 * Int(value[index]), as: UInt16.self),
                toByteOffset: 2 * index, as: UInt16.self)
            index += 1
        }
        length += 2 * value.count
    }

    /// `AA:BB:CC:DD:EE:FF`, most significant byte first, uppercase (as `BluetoothAddress`
    /// prints itself).
    @inlinable public mutating func address(_ address: BluetoothAddress) {
        reserve(17)
        var position = length
        for index in stride(from: 5, through: 0, by: -1) {
            let byte = UInt8(truncatingIfNeeded: address.rawValue >> (8 * UInt64(index)))
            base[position] = HexDigits.upper[Int(byte >> 4)]
            base[position + 1] = HexDigits.upper[Int(byte & 0x0F)]
            if index > 0 { base[position + 2] = UInt8(ascii: ":") }
            position += 3
        }
        length += 17
    }

    /// Seconds since `origin`, six decimals, with a sign (as ``Wording/sinceStart(_:origin:)``).
    @inlinable public mutating func relativeTime(_ timestamp: Timestamp, since origin: Timestamp) {
        let (negative, magnitude) = timestamp.offset(since: origin)
        byte(negative ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        decimal(magnitude / 1_000_000)
        reserve(7)
        base[length] = UInt8(ascii: ".")
        var fraction = magnitude % 1_000_000
        for position in stride(from: length + 6, to: length, by: -1) {
            base[position] = 0x30 &+ UInt8(truncatingIfNeeded: fraction % 10)
            fraction /= 10
        }
        length += 7
    }

    /// A JSON string: quotes, and the escapes JSONEncoder writes (`\"`, `\\`, `\n`, `\r`, `\t`,
    /// `\b`, `\f`, `\u00XX` for the other control characters; `/` and non-ASCII as they are).
    @inlinable public mutating func jsonString(_ value: String) {
        byte(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): text("\\\"")
                case UInt8(ascii: "\\"): text("\\\\")
                case 0x0A: text("\\n")
                case 0x0D: text("\\r")
                case 0x09: text("\\t")
                case 0x08: text("\\b")
                case 0x0C: text("\\f")
                case 0..<0x20:
                    text("\\u00")
                    self.byte(HexDigits.lower[Int(byte >> 4)])
                    self.byte(HexDigits.lower[Int(byte & 0x0F)])
                default: self.byte(byte)
                }
            }
        }
        byte(UInt8(ascii: "\""))
    }

    /// `000102…99`: the two decimal digits of each value below 100.
    @inlinable static var decimalPairs: UnsafePointer<UInt8> {
        ("00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
            as StaticString).utf8Start
    }
}
