/// A Bluetooth UUID: 16-bit, 32-bit or 128-bit.
///
/// Core 6.0, Vol 3, Part B, §2.5.1. Short forms are aliases into the Bluetooth Base UUID
/// `0000xxxx-0000-1000-8000-00805F9B34FB`; equality compares the full 128-bit value, so a 16-bit
/// UUID equals its 128-bit expansion. CoreBluetooth: `CBUUID`.
public struct BluetoothUUID: Hashable, Sendable, CustomStringConvertible {
    /// The 128-bit value, most significant half first.
    public var high: UInt64
    public var low: UInt64

    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB
    static let baseHighLow32: UInt64 = 0x0000_1000

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public init(_ short: UInt16) { self.init(UInt32(short)) }

    public init(_ short: UInt32) {
        self.init(high: UInt64(short) << 32 | Self.baseHighLow32, low: Self.baseLow)
    }

    /// Decodes a UUID of 2, 4 or 16 bytes, little-endian as in ATT.
    public init?(littleEndian bytes: UnsafeRawBufferPointer) {
        switch bytes.count {
        case 2: self.init(UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
        case 4:
            self.init(
                UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16
                    | UInt32(bytes[3]) << 24)
        case 16:
            var low: UInt64 = 0
            var high: UInt64 = 0
            for index in (0..<8).reversed() { low = low << 8 | UInt64(bytes[index]) }
            for index in (8..<16).reversed() { high = high << 8 | UInt64(bytes[index]) }
            self.init(high: high, low: low)
        default: return nil
        }
    }

    /// The 16-bit alias, if this UUID is one.
    public var shortValue: UInt16? {
        guard low == Self.baseLow, high & 0xFFFF_FFFF == Self.baseHighLow32, high >> 48 == 0
        else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// `180D` for a 16-bit alias, `12345678` for a 32-bit one, the full uppercase form otherwise
    /// (as `CBUUID` prints).
    public var description: String {
        if let short = shortValue { return hex(short, digits: 4, prefixed: false, uppercase: true) }
        if low == Self.baseLow, high & 0xFFFF_FFFF == Self.baseHighLow32 {
            return hex(high >> 32, digits: 8, prefixed: false, uppercase: true)
        }
        // 8-4-4-4-12 digits, written straight into the string's storage (a flow names a
        // vendor's characteristic on every line about it).
        return String(unsafeUninitializedCapacity: 36) { text in
            var position = 0
            for digit in 0..<32 {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                    text[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = digit < 16 ? high : low
                text[position] = HexDigits.upper[Int(truncatingIfNeeded: word >> UInt64(60 - 4 * (digit % 16))) & 0xF]
                position += 1
            }
            return 36
        }
    }
}

extension BluetoothUUID {
    /// Parses a UUID as people write it: 4 hex digits (a 16-bit alias), 8 (a 32-bit one), or
    /// the 36-character form with dashes; either case.
    public init?(parsing text: some StringProtocol) {
        guard let parsed = Self.parse(String(text)) else { return nil }
        self = parsed
    }

    private static func parse(_ text: String) -> BluetoothUUID? {
        let characters = Array(text.uppercased().utf8)
        func hexValue(_ range: Range<Int>) -> UInt64? {
            var value: UInt64 = 0
            for character in characters[range] {
                switch character {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt64(character - UInt8(ascii: "0"))
                case UInt8(ascii: "A")...UInt8(ascii: "F"):
                    value = value << 4 | UInt64(character - UInt8(ascii: "A") + 10)
                default: return nil
                }
            }
            return value
        }
        switch characters.count {
        case 4: return hexValue(0..<4).map { BluetoothUUID(UInt16($0)) }
        case 8: return hexValue(0..<8).map { BluetoothUUID(UInt32($0)) }
        case 36:
            let dash = UInt8(ascii: "-")
            guard characters[8] == dash, characters[13] == dash, characters[18] == dash, characters[23] == dash,
                let a = hexValue(0..<8), let b = hexValue(9..<13), let c = hexValue(14..<18),
                let d = hexValue(19..<23), let e = hexValue(24..<36)
            else { return nil }
            return BluetoothUUID(high: a << 32 | b << 16 | c, low: d << 48 | e)
        default: return nil
        }
    }
}
