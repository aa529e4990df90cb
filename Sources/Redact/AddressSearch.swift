/// Where six-byte values (the known addresses, in both byte orders) may start in bytes of
/// unknown layout: Wu and Manber's multi-pattern search with blocks of two bytes. A window of six
/// bytes is looked at by its last two: where no known value has that pair at all, the window
/// moves on by five; where one has it but not at its end, by less; where one ends with it, the
/// window's first two bytes are checked against the known values' first two, and a window that
/// passes both is a candidate, for the caller to compare whole. Most windows move on by four or
/// five bytes unread, where a byte-by-byte search reads them all.
struct AddressSearch {
    /// By a pair of bytes (the first | the second << 8): how far the window's end may move when
    /// the window ends with the pair, 5 for a pair no known value holds.
    private var shifts = [UInt8](repeating: 5, count: 1 << 16)
    /// The known values' first pairs, as a bit set.
    private var starts = [UInt64](repeating: 0, count: (1 << 16) / 64)

    /// Adds a value: its six bytes least significant first, as they appear.
    mutating func add(_ value: UInt64) {
        for end in 1...5 {
            let pair = Int(truncatingIfNeeded: value >> (8 * UInt64(end - 1)) & 0xFFFF)
            shifts[pair] = min(shifts[pair], UInt8(5 - end))
        }
        let first = Int(truncatingIfNeeded: value & 0xFFFF)
        starts[first >> 6] |= 1 << UInt64(first & 63)
    }

    /// The first index at `from` or after where a known value may start in `bytes`, nil when
    /// none can.
    func candidate(in bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard from >= 0, from + 6 <= bytes.count else { return nil }
        return shifts.withUnsafeBufferPointer { shifts in
            starts.withUnsafeBufferPointer { starts in
                var end = from + 5
                while end < bytes.count {
                    let step = Int(shifts[Int(bytes[end - 1]) | Int(bytes[end]) << 8])
                    if step > 0 {
                        end += step
                        continue
                    }
                    let first = Int(bytes[end - 5]) | Int(bytes[end - 4]) << 8
                    if starts[first >> 6] & (1 << UInt64(first & 63)) != 0 { return end - 5 }
                    end += 1
                }
                return nil
            }
        }
    }
}
