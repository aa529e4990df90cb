extension UnsafeRawBufferPointer {
    /// Lowercase hex, two digits a byte, no separators: `0a1b2c`.
    public var hexString: String {
        String(unsafeUninitializedCapacity: count * 2) { buffer in
            for (index, byte) in enumerated() {
                buffer[2 * index] = hexDigits[Int(byte >> 4)]
                buffer[2 * index + 1] = hexDigits[Int(byte & 0x0F)]
            }
            return count * 2
        }
    }
}

private let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

/// Parses hex such as `"04 0e 04 01 03 0c 00"` (spaces and line breaks ignored) into bytes.
public func bytes(hex text: String) -> [UInt8]? {
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
