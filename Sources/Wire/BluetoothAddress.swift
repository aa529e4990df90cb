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

    public var description: String {
        (0..<6).reversed().map { index in
            let byte = UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64(index)))
            return hex(byte, digits: 2, prefixed: false, uppercase: true)
        }.joined(separator: ":")
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
