import Wire

/// Fixed-size entries of an arrayed HCI parameter, over borrowed bytes: the storage of the list
/// views (completed packets, advertising sets, per-PHY parameters).
///
/// Arrayed parameters are interleaved, entry by entry: `A[0], B[0], A[1], B[1], ...`
/// (Core 6.0, Vol 4, Part E, §5.2). A list is built only after its decoder has read every field
/// of every entry, so indexing it never fails and never allocates.
struct HCIEntryList {
    let bytes: UnsafeRawBufferPointer
    let entryLength: Int

    var count: Int { entryLength == 0 ? 0 : bytes.count / entryLength }

    subscript(position: Int) -> UnsafeRawBufferPointer {
        let start = position * entryLength
        return UnsafeRawBufferPointer(rebasing: bytes[start..<start + entryLength])
    }

    /// The entries read since `start`: the caller reads every field of every entry first (so that
    /// a short packet fails at the first missing field), then takes the bytes it read.
    static func since(_ start: Int, in reader: ByteReader, entryLength: Int) -> HCIEntryList {
        HCIEntryList(
            bytes: UnsafeRawBufferPointer(rebasing: reader.buffer[start..<reader.offset]),
            entryLength: entryLength)
    }
}
