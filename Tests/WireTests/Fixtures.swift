import Wire

/// Joins hand-written hex fields (one field an argument, so each can carry a comment) into bytes.
func packet(_ fields: String...) -> [UInt8] {
    guard let result = Wire.bytes(hex: fields.joined(separator: " ")) else {
        preconditionFailure("malformed test hex: \(fields)")
    }
    return result
}
