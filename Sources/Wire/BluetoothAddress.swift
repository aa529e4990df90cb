/// A 48-bit Bluetooth device address (BD_ADDR).
///
/// Core 6.0, Vol 2, Part B, §1.2. Printed most significant byte first, as every tool shows it;
/// carried least significant byte first in HCI.
public struct BluetoothAddress: RawRepresentable, Hashable, Comparable, Sendable,
    CustomStringConvertible
{
    /// The address in the low 48 bits.
    public var rawValue: UInt64

    @inlinable
    public init(rawValue: UInt64) { self.rawValue = rawValue & 0xFFFF_FFFF_FFFF }

    /// Parses `AA:BB:CC:DD:EE:FF` (also with `-` separators), most significant byte first.
    public init?(_ text: some StringProtocol) {
        // Empty parts kept, so that a leading, trailing or doubled separator is rejected.
        let parts = text.split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var value: UInt64 = 0
        for part in parts {
            // Two hex digits exactly: `UInt8(_:radix:)` alone would also take "+F".
            guard part.count == 2, part.allSatisfy(\.isHexDigit),
                let byte = UInt8(part, radix: 16)
            else { return nil }
            value = value << 8 | UInt64(byte)
        }
        self.init(rawValue: value)
    }

    /// The six bytes in HCI order (least significant first).
    public var littleEndianBytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64($0))) }
    }

    /// `7B:0F:95:18:64:32`: most significant byte first, upper-case hex digits.
    public var description: String {
        // Written straight into the string's storage: an address is printed for every finding
        // and connection of a report, and a string per byte joined cost ten allocations.
        String(unsafeUninitializedCapacity: 17) { text in
            for index in 0..<6 {
                let byte = Int(truncatingIfNeeded: rawValue >> (8 * UInt64(5 - index))) & 0xFF
                text[index * 3] = HexDigits.upper[byte >> 4]
                text[index * 3 + 1] = HexDigits.upper[byte & 0x0F]
                if index < 5 { text[index * 3 + 2] = UInt8(ascii: ":") }
            }
            return 17
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
