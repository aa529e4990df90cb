import BLETrace

/// A reused byte buffer that output lines are written into, a piece at a time: fixed text,
/// names, decimal and hex numbers, hex bytes. Nothing here allocates once the buffer has grown
/// to its working size (the caller hands it on and empties it, keeping its capacity).
///
/// This is the hot path of `decode`: no `String` is built per field, no Foundation formatting.
public struct LineBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    public private(set) var count = 0
    private var capacity: Int

    public init(capacity: Int = 1 << 17) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written since the last ``removeAll()``, valid until the next write.
    public var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// A copy of the bytes (for tests).
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    public mutating func removeAll() { count = 0 }

    /// Replaces the byte at `position` (one already written).
    mutating func set(_ position: Int, _ value: UInt8) {
        precondition(position < count)
        base[position] = value
    }

    /// Room for `more` bytes after the ones written.
    @inline(__always) private mutating func reserve(_ more: Int) {
        if count + more > capacity { grow(count + more) }
    }

    private mutating func grow(_ needed: Int) {
        let larger = max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.update(from: base, count: count)
        base.deallocate()
        (base, capacity) = (moved, larger)
    }

    @inline(__always) mutating func byte(_ value: UInt8) {
        reserve(1)
        base[count] = value
        count += 1
    }

    @inline(__always) private mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        reserve(bytes.count)
        if let start = bytes.baseAddress { (base + count).update(from: start, count: bytes.count) }
        count += bytes.count
    }

    /// Fixed ASCII text.
    @inline(__always) mutating func text(_ value: StaticString) {
        raw(UnsafeBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
    }

    /// A string's UTF-8 (names are string literals: no copy, no allocation).
    @inline(__always) mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { raw($0) }
    }

    mutating func spaces(_ count: Int) {
        guard count > 0 else { return }
        reserve(count)
        (base + self.count).update(repeating: 0x20, count: count)
        self.count += count
    }

    /// Digits of `value` in base 10, right-aligned in `width` with spaces before.
    mutating func decimal(_ value: UInt64, width: Int = 0) {
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
                raw.storeBytes(of: pairs.loadUnaligned(fromByteOffset: 2 * pair, as: UInt16.self), toByteOffset: position, as: UInt16.self)
            }
            if rest >= 10 {
                position -= 2
                raw.storeBytes(of: pairs.loadUnaligned(fromByteOffset: 2 * Int(rest), as: UInt16.self), toByteOffset: position, as: UInt16.self)
            } else {
                position -= 1
                raw[position] = 0x30 &+ UInt8(truncatingIfNeeded: rest)
            }
            return (position, 24 - position)
        }
        if width > digits { spaces(width - digits) }
        reserve(digits)
        withUnsafeBytes(of: &scratch) { raw in
            UnsafeMutableRawPointer(base + count).copyMemory(from: raw.baseAddress! + start, byteCount: digits)
        }
        count += digits
    }

    /// A signed number in base 10, `-` before a negative one.
    mutating func decimal(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        decimal(value.magnitude)
    }

    mutating func decimal(_ value: Int) { decimal(Int64(value)) }

    /// `0x` and lowercase hex digits, at least `digits` of them (as `hex(_:digits:)` writes).
    mutating func hex(_ value: UInt64, digits: Int) {
        var significant = 1
        while significant < 16, value >> (4 * UInt64(significant)) != 0 { significant += 1 }
        let width = max(significant, digits)
        reserve(width + 2)
        base[count] = UInt8(ascii: "0")
        base[count + 1] = UInt8(ascii: "x")
        count += 2
        for index in 0..<width {
            let shift = 4 * (width - 1 - index)
            base[count + index] = shift >= 64 ? 0x30 : Self.lower[Int(value >> UInt64(shift) & 0xF)]
        }
        count += width
    }

    /// Lowercase hex digits, as many as the value needs, no `0x` (as `String(value, radix: 16)`).
    mutating func hexDigits(_ value: UInt64) {
        var significant = 1
        while significant < 16, value >> (4 * UInt64(significant)) != 0 { significant += 1 }
        reserve(significant)
        for index in 0..<significant {
            base[count + index] = Self.lower[Int(value >> UInt64(4 * (significant - 1 - index)) & 0xF)]
        }
        count += significant
    }

    /// Bytes as they are.
    mutating func raw(_ value: UnsafeRawBufferPointer) {
        raw(value.assumingMemoryBound(to: UInt8.self))
    }

    /// Two lowercase hex digits a byte, no separators (as `hexString`).
    mutating func hexBytes(_ value: UnsafeRawBufferPointer) {
        reserve(2 * value.count)
        // Two digits at a time, from a table of the 256 pairs.
        let pairs = UnsafeRawPointer(Self.pairs)
        let target = UnsafeMutableRawPointer(base + count)
        for (index, byte) in value.enumerated() {
            target.storeBytes(of: pairs.loadUnaligned(fromByteOffset: 2 * Int(byte), as: UInt16.self), toByteOffset: 2 * index, as: UInt16.self)
        }
        count += 2 * value.count
    }

    /// `AA:BB:CC:DD:EE:FF`, most significant byte first, uppercase (as `BluetoothAddress`
    /// prints itself).
    mutating func address(_ address: BluetoothAddress) {
        reserve(17)
        var position = count
        for index in stride(from: 5, through: 0, by: -1) {
            let byte = UInt8(truncatingIfNeeded: address.rawValue >> (8 * UInt64(index)))
            base[position] = Self.upper[Int(byte >> 4)]
            base[position + 1] = Self.upper[Int(byte & 0x0F)]
            if index > 0 { base[position + 2] = UInt8(ascii: ":") }
            position += 3
        }
        count += 17
    }

    /// Seconds since `origin`, six decimals, with a sign (as `relativeTime(_:since:)`).
    mutating func relativeTime(_ timestamp: Timestamp, since origin: Timestamp) {
        let (negative, magnitude) = timestamp.offset(since: origin)
        byte(negative ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        decimal(magnitude / 1_000_000)
        reserve(7)
        base[count] = UInt8(ascii: ".")
        var fraction = magnitude % 1_000_000
        for position in stride(from: count + 6, to: count, by: -1) {
            base[position] = 0x30 &+ UInt8(truncatingIfNeeded: fraction % 10)
            fraction /= 10
        }
        count += 7
    }

    /// A JSON string: quotes, and the escapes JSONEncoder writes (`\"`, `\\`, `\n`, `\r`, `\t`,
    /// `\b`, `\f`, `\u00XX` for the other control characters; `/` and non-ASCII as they are).
    mutating func jsonString(_ value: String) {
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
                    self.byte(Self.lower[Int(byte >> 4)])
                    self.byte(Self.lower[Int(byte & 0x0F)])
                default: self.byte(byte)
                }
            }
        }
        byte(UInt8(ascii: "\""))
    }

    /// Hex digits, from constant text (no lazily made table to check on every use).
    private static var lower: UnsafePointer<UInt8> { ("0123456789abcdef" as StaticString).utf8Start }
    private static var upper: UnsafePointer<UInt8> { ("0123456789ABCDEF" as StaticString).utf8Start }
    /// `000102…99`: the two decimal digits of each value below 100.
    private static var decimalPairs: UnsafePointer<UInt8> {
        ("00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899" as StaticString).utf8Start
    }

    /// `000102…ff`: the two digits of each byte value.
    private static var pairs: UnsafePointer<UInt8> {
        ("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff" as StaticString).utf8Start
    }
}
