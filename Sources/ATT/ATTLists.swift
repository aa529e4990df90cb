import Wire

// Lazy views over the lists inside ATT PDUs. Each is validated once, when its PDU is decoded
// (whole entries only, lengths in range), so iterating never fails and never allocates.

/// Fixed-size entries over borrowed bytes; the base of the list views below.
public struct ATTFixedEntries: RandomAccessCollection {
    /// The list's bytes as they were on the wire.
    public let bytes: UnsafeRawBufferPointer
    public let entryLength: Int

    @usableFromInline init(bytes: UnsafeRawBufferPointer, entryLength: Int) {
        self.bytes = bytes
        self.entryLength = entryLength
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { bytes.count / entryLength }

    public subscript(position: Int) -> UnsafeRawBufferPointer {
        let start = position * entryLength
        return UnsafeRawBufferPointer(rebasing: bytes[start..<start + entryLength])
    }

    /// Checks that `bytes` holds at least `minimum` whole entries of `entryLength` bytes. The
    /// error points at the entry cut short, or else at where the first missing entry would begin.
    static func validated(
        _ bytes: UnsafeRawBufferPointer, entryLength: Int, minimum: Int, offset: Int, what: String
    ) throws(DecodeError) -> ATTFixedEntries {
        let whole = entryLength > 0 ? bytes.count / entryLength : 0
        guard entryLength > 0, bytes.count % entryLength == 0, whole >= minimum else {
            throw DecodeError(
                layer: .att, offset: offset + whole * entryLength,
                expected:
                    "\(minimum == 1 ? "one or more" : "\(minimum) or more") \(what) of \(entryLength) bytes each, not \(bytes.count) bytes"
            )
        }
        return ATTFixedEntries(bytes: bytes, entryLength: entryLength)
    }
}

@inline(__always)
func le16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
    UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
}

/// Find Information Response data: (handle, type) pairs with 16-bit or 128-bit UUIDs.
/// Core 6.0, Vol 3, Part F, §3.4.3.2.
public struct ATTInformationList: RandomAccessCollection {
    /// 0x01: 16-bit UUIDs; 0x02: 128-bit UUIDs.
    public let format: UInt8
    public let entries: ATTFixedEntries

    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }
    public subscript(position: Int) -> (handle: UInt16, type: BluetoothUUID) {
        let entry = entries[position]
        return (le16(entry, 0), BluetoothUUID(littleEndian: UnsafeRawBufferPointer(rebasing: entry[2...]))!)
    }
}

/// Find By Type Value Response: (found attribute handle, group end handle) pairs.
/// Core 6.0, Vol 3, Part F, §3.4.3.4.
public struct ATTHandleRangeList: RandomAccessCollection {
    public let entries: ATTFixedEntries
    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }
    public subscript(position: Int) -> (found: UInt16, groupEnd: UInt16) {
        let entry = entries[position]
        return (le16(entry, 0), le16(entry, 2))
    }
}

/// Read By Type Response: (handle, value) pairs of one length. Core 6.0, Vol 3, Part F, §3.4.4.2.
public struct ATTHandleValueList: RandomAccessCollection {
    public let entries: ATTFixedEntries
    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }
    public subscript(position: Int) -> (handle: UInt16, value: UnsafeRawBufferPointer) {
        let entry = entries[position]
        return (le16(entry, 0), UnsafeRawBufferPointer(rebasing: entry[2...]))
    }
}

/// Read By Group Type Response: (handle, end group handle, value) of one length.
/// Core 6.0, Vol 3, Part F, §3.4.4.10.
public struct ATTGroupList: RandomAccessCollection {
    public let entries: ATTFixedEntries
    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }
    public subscript(position: Int) -> (handle: UInt16, groupEnd: UInt16, value: UnsafeRawBufferPointer) {
        let entry = entries[position]
        return (le16(entry, 0), le16(entry, 2), UnsafeRawBufferPointer(rebasing: entry[4...]))
    }
}

/// A set of attribute handles (Read Multiple and Read Multiple Variable Requests).
/// Core 6.0, Vol 3, Part F, §3.4.4.7 and §3.4.4.11.
public struct ATTHandleList: RandomAccessCollection {
    public let entries: ATTFixedEntries
    public var startIndex: Int { 0 }
    public var endIndex: Int { entries.count }
    public subscript(position: Int) -> UInt16 { le16(entries[position], 0) }
}

/// Variable-length entries, each preceded by its 16-bit length (Read Multiple Variable Response,
/// §3.4.4.12) or by a handle and a length (Multiple Handle Value Notification, §3.4.7.4).
public struct ATTLengthPrefixedList: Sequence {
    public let bytes: UnsafeRawBufferPointer
    /// 0 when each entry is length + value; 2 when a handle comes first.
    let handleLength: Int

    /// Walks the entries in order, each a view of the PDU's bytes.
    public struct Iterator: IteratorProtocol {
        let bytes: UnsafeRawBufferPointer
        let handleLength: Int
        var offset = 0

        public mutating func next() -> (handle: UInt16?, value: UnsafeRawBufferPointer)? {
            guard offset < bytes.count else { return nil }
            let handle = handleLength == 2 ? le16(bytes, offset) : nil
            let length = Int(le16(bytes, offset + handleLength))
            let start = offset + handleLength + 2
            // A value cut short by the MTU is legal at the end of a Read Multiple Variable
            // Response (§3.4.4.12); it is yielded as far as it goes.
            let end = Swift.min(bytes.count, start + length)
            offset = start + length
            return (handle, UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        }
    }

    public func makeIterator() -> Iterator { Iterator(bytes: bytes, handleLength: handleLength) }

    /// Checks that every entry header is whole, and that there are at least `minimum` entries; a
    /// value may be cut short only when `lastMayBeShort`.
    static func validated(
        _ bytes: UnsafeRawBufferPointer, handleLength: Int, lastMayBeShort: Bool, minimum: Int = 0,
        offset: Int, what: String
    ) throws(DecodeError) -> ATTLengthPrefixedList {
        var position = 0
        var count = 0
        while position < bytes.count {
            count += 1
            guard position + handleLength + 2 <= bytes.count else {
                throw DecodeError(layer: .att, offset: offset + position, expected: "a whole \(what) header")
            }
            let length = Int(le16(bytes, position + handleLength))
            let end = position + handleLength + 2 + length
            if end > bytes.count, !lastMayBeShort {
                throw DecodeError(
                    layer: .att, offset: offset + position,
                    expected: "\(length) bytes of \(what) value, not \(bytes.count - position - handleLength - 2)")
            }
            position = end
        }
        guard count >= minimum else {
            throw DecodeError(
                layer: .att, offset: offset + bytes.count, expected: "\(minimum) or more \(what) tuples, not \(count)")
        }
        return ATTLengthPrefixedList(bytes: bytes, handleLength: handleLength)
    }
}
