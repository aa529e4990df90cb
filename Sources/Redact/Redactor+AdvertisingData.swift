/// The AD structure an advertising data fragment ended inside, for the next fragment of the same
/// set (extended and periodic advertising data come in several commands or reports).
struct ADCarry {
    var type: UInt8 = 0
    /// Bytes of the structure's data still to come.
    var remaining = 0
    /// Bytes of its data seen so far.
    var done = 0
}

/// Advertising and extended inquiry response data (Core 6.0, Vol 3, Part C, §11; the types in
/// the Core Specification Supplement, Part A): addresses in it replaced, secrets zeroed, and
/// with the options names replaced and manufacturer and service data zeroed.
extension RedactorCore {
    /// The AD structures in `bytes[from..<to]`. `carry`: the structure a previous fragment
    /// ended inside, and where this one ends inside one; nil for data that is whole.
    mutating func advertisingData(
        _ bytes: UnsafeMutableRawBufferPointer, from start: Int, to end: Int, carry: UnsafeMutablePointer<ADCarry>?
    ) {
        let end = min(end, bytes.count)
        guard start < end else { return }
        // Devices put their own address in manufacturer and service data, in either byte order,
        // and some advertise data that is not AD structures at all: the addresses met so far
        // (the advertiser's comes first) are looked for in all of it.
        defer { searchKnown(UnsafeMutableRawBufferPointer(rebasing: bytes[start..<end])) }
        var at = start
        if let carry, carry.pointee.remaining > 0 {
            let take = min(carry.pointee.remaining, end - at)
            structure(bytes, type: carry.pointee.type, from: at, count: take, skip: carry.pointee.done, cut: true)
            carry.pointee.remaining -= take
            carry.pointee.done += take
            at += take
        }
        while at < end {
            let length = Int(bytes[at])
            // A zero length ends the significant part (the rest is padding).
            if length == 0 { break }
            guard at + 1 < end else {
                carry?.pointee = ADCarry(type: 0, remaining: 0, done: 0)
                return
            }
            let type = bytes[at + 1]
            let dataStart = at + 2
            let dataCount = length - 1
            let take = min(dataCount, end - dataStart)
            structure(bytes, type: type, from: dataStart, count: max(0, take), skip: 0, cut: take < dataCount)
            if take < dataCount {
                carry?.pointee = ADCarry(type: type, remaining: dataCount - max(0, take), done: max(0, take))
                return
            }
            at = dataStart + dataCount
        }
        carry?.pointee = ADCarry()
    }

    /// The data of one AD structure of `type`, `count` bytes from `start`; `skip`: how many of
    /// its bytes came before (in an earlier fragment); `cut`: the structure is not whole here.
    mutating func structure(
        _ bytes: UnsafeMutableRawBufferPointer, type: UInt8, from start: Int, count: Int, skip: Int, cut: Bool
    ) {
        guard count > 0 else { return }
        let end = start + count
        switch type {
        case 0x08, 0x09, 0x30:  // Shortened and Complete Local Name, Broadcast_Name
            guard options.names else { return }
            if cut {
                // Part of a name: its replacement needs all of it, so the part is filled.
                for index in start..<end { bytes[index] = UInt8(ascii: "x") }
                tally.namesReplaced += 1
            } else {
                name(bytes, start, count)
            }
        case 0xFF, 0x16, 0x20, 0x21:  // Manufacturer Specific Data; Service Data, 16-, 32-, 128-bit UUID
            guard options.values else { return }
            // The company identifier or the service UUID stays: whose data it is.
            let kept = type == 0xFF || type == 0x16 ? 2 : type == 0x20 ? 4 : 16
            zeroValue(bytes, from: start + max(0, kept - skip), to: end)
        case 0x24:  // URI
            if options.values { zeroValue(bytes, from: start, to: end) }
        case 0x17, 0x18:  // Public / Random Target Address: a list of addresses
            guard skip == 0, !cut else { return cutAddress(bytes, start, end) }
            addresses(bytes, start, count: count / 6)
        case 0x1B:  // LE Bluetooth Device Address: address, type
            guard skip == 0, count >= 6 else { return cutAddress(bytes, start, end) }
            address(bytes, start)
        case 0x10, 0x0E, 0x0F, 0x22, 0x23:
            // Security Manager TK Value; Simple Pairing Hash C and Randomizer R; LE Secure
            // Connections Confirmation and Random Values: out-of-band pairing secrets.
            secret(.passkey, bytes, start, count)
        default:
            return
        }
    }

    private mutating func cutAddress(_ bytes: UnsafeMutableRawBufferPointer, _ start: Int, _ end: Int) {
        zero(bytes, from: start, to: end)
        tally.addressesZeroed += 1
    }
}
