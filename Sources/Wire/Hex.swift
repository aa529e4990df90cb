// Hexadecimal, written and read: every module formats hex through these (numbers with `hex`,
// bytes with `hexString`, lines with ``LineBuffer``).

/// `value` in hexadecimal with at least `digits` digits, zeros before: `hex(0x13, digits: 2)` is
/// `0x13`, `hex(0x40, digits: 4)` is `0x0040`. `prefixed: false` leaves out the `0x`;
/// `uppercase: true` writes `A`-`F`.
/// A negative value has its sign first: `hex(-5, digits: 4)` is `-0x0005`.
package func hex(_ value: some BinaryInteger, digits: Int, prefixed: Bool = true, uppercase: Bool = false) -> String {
    guard let magnitude = UInt64(exactly: value) else {
        // Negative, or wider than 64 bits (no caller's values are either): the standard library's
        // digits of the magnitude.
        let text = String(value.magnitude, radix: 16, uppercase: uppercase)
        let zeros = String(repeating: "0", count: max(0, digits - text.count))
        return (value < 0 ? "-" : "") + (prefixed ? "0x" : "") + zeros + text
    }
    // Written straight into the string's storage (reports print a handle or a code on most lines;
    // made from three strings joined, each cost allocations).
    let significant = (64 - magnitude.leadingZeroBitCount + 3) / 4
    let width = max(digits, significant, 1)
    let start = prefixed ? 2 : 0
    let table = uppercase ? HexDigits.upper : HexDigits.lower
    return String(unsafeUninitializedCapacity: start + width) { text in
        if prefixed { (text[0], text[1]) = (UInt8(ascii: "0"), UInt8(ascii: "x")) }
        for position in 0..<width {
            let shift = 4 * (width - 1 - position)
            text[start + position] =
                shift < 64 ? table[Int(truncatingIfNeeded: (magnitude >> UInt64(shift)) & 0xF)] : UInt8(ascii: "0")
        }
        return start + width
    }
}

extension UnsafeRawBufferPointer {
    /// Lowercase hex, two digits a byte, no separators: `0a1b2c`.
    package var hexString: String {
        String(unsafeUninitializedCapacity: count * 2) { buffer in
            let pairs = UnsafeRawPointer(HexDigits.pairs)
            for (index, byte) in enumerated() {
                buffer[2 * index] = pairs.load(fromByteOffset: 2 * Int(byte), as: UInt8.self)
                buffer[2 * index + 1] = pairs.load(fromByteOffset: 2 * Int(byte) + 1, as: UInt8.self)
            }
            return count * 2
        }
    }
}

/// The digits, as constant text (no lazily made table to check on every use).
@usableFromInline
enum HexDigits {
    @inlinable static var lower: UnsafePointer<UInt8> { ("0123456789abcdef" as StaticString).utf8Start }
    @inlinable static var upper: UnsafePointer<UInt8> { ("0123456789ABCDEF" as StaticString).utf8Start }

    /// `000102…ff`: the two lowercase digits of each byte value.
    @inlinable static var pairs: UnsafePointer<UInt8> {
        ("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
            as StaticString).utf8Start
    }
}

/// Parses hex such as `"04 0e 04 01 03 0c 00"` (spaces and line breaks ignored) into bytes.
package func bytes(hex text: String) -> [UInt8]? {
    let digits = text.filter { !$0.isWhitespace }
    // `UInt8(_:radix:)` alone would also take a sign: "+f" is not two hex digits.
    guard digits.count % 2 == 0, digits.allSatisfy(\.isHexDigit) else { return nil }
    var result: [UInt8] = []
    result.reserveCapacity(digits.count / 2)
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
        result.append(byte)
        index = next
    }
    return result
}
