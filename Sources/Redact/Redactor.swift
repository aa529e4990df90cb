import LinkLayer
import TraceFiles
import Wire

/// Makes a capture safe to share, one record at a time: every Bluetooth address replaced by
/// another of the same kind (the same one each time, ``AddressMap``), every key and pairing
/// secret zeroed, and with ``RedactionOptions`` names and values too. Lengths, handles, opcodes,
/// timing and the records themselves stay, so that every analysis of the output tells the
/// original's story under the address mapping. Formats/redact.md says field by field what is
/// replaced.
///
/// The layouts it knows field by field: HCI commands, events and their return parameters that
/// carry addresses, keys or names; advertising data; L2CAP frames across ACL fragments, with SMP
/// and ATT on them; Linux monitor and PacketLogger records; over-the-air link-layer packets
/// (their CRC computed again). A record it cannot read far enough to know it is safe (an
/// advertising report whose lengths do not add up, an L2CAP continuation whose start the capture
/// lacks, an air packet that does not decode) is dropped and counted in ``tally``; a record of a
/// layout it does not know (vendor commands and events) is written with every address already
/// met replaced wherever its bytes appear.
public final class Redactor {
    public var options: RedactionOptions { core.pointee.options }
    public var addresses: AddressMap { core.pointee.addresses }
    public var tally: RedactionTally { core.pointee.tally }
    /// The pcap link type of an over-the-air capture (251, 256, 272); nil for HCI captures.
    public let airLinkType: Int32?

    /// The state and the work, a struct behind a pointer: Swift checks each access to a class's
    /// stored `var` for exclusivity as the program runs, and a struct's, passed `inout`, as it
    /// compiles (the run-time checks took a sixth of redact's time when the state was this
    /// class's properties, and 6 % when it was one property).
    let core: UnsafeMutablePointer<RedactorCore>

    /// `airLinkType`: the capture's pcap link type when it is an over-the-air one (251, 256, 272).
    /// `scouting`: a first reading that only learns the addresses and names of the fields it
    /// knows, for ``knowAddresses(of:)``; it does not search bytes of unknown layout, and what
    /// it returns is not to be written. Its tally counts the keys and identity addresses (what
    /// ``SecretScanner`` needs), not the addresses found by that search.
    public init(options: RedactionOptions = .init(), airLinkType: Int32? = nil, scouting: Bool = false) {
        core = .allocate(capacity: 1)
        core.initialize(to: RedactorCore(options: options, airLinkType: airLinkType, scouting: scouting))
        self.airLinkType = airLinkType
    }

    deinit {
        core.pointee.buffer.deallocate()
        core.deinitialize(count: 1)
        core.deallocate()
    }

    /// The record redacted, its bytes in this redactor's buffer (valid until the next call), or
    /// nil when it is dropped (``tally`` says why).
    public func redact(_ record: CaptureRecord) -> CaptureRecord? { core.pointee.redact(record) }

    /// Takes every address `scout` met in the fields it knows: a redactor that read the whole
    /// capture first. An address is then found in bytes of unknown layout (vendor events,
    /// manufacturer data) even where they come before the first record that shows it in a
    /// field of known layout.
    public func knowAddresses(of scout: Redactor) {
        for address in scout.core.pointee.knownForward { core.pointee.remember(address) }
        for name in scout.core.pointee.knownNames { core.pointee.rememberName(name) }
    }
}

/// ``Redactor``'s state and its reading of the fields (this file and the `Redactor+` ones).
struct RedactorCore {
    let options: RedactionOptions
    var addresses: AddressMap
    var tally = RedactionTally()
    /// A first reading that only learns (``Redactor/init(options:airLinkType:scouting:)``).
    let scouting: Bool

    /// L2CAP frames under way, by connection and direction (``streamKey(_:_:)``).
    var streams: [UInt64: L2CAPStream] = [:]
    /// Per connection: what GATT discovery told of its handles, and each side's open request.
    var gatt: [UInt64: GATTKnowledge] = [:]
    /// Advertising data cut across commands or reports: the AD structure under way, by set.
    var carries: [UInt64: ADCarry] = [:]
    /// The addresses replaced so far, as their six bytes read least significant first and in
    /// the other byte order: the search in records of unknown layout (``searchKnown(_:)``).
    var knownForward: Set<UInt64> = []
    var knownReversed: Set<UInt64> = []
    var search = AddressSearch()
    /// With `names`: the names replaced so far (4 bytes or more), looked for in the same bytes,
    /// and their first bytes as a bit set.
    var knownNames: Set<[UInt8]> = []
    var nameStarts = [UInt64](repeating: 0, count: 4)
    var air: LinkLayerDecoder?
    /// Over-the-air data PDUs: per connection and side, the last payload as written, to write a
    /// retransmission the same way.
    var lastAirPayload: [UInt64: (original: [UInt8], written: [UInt8])] = [:]

    /// The redacted record's bytes; ``Redactor`` deallocates it.
    var buffer: UnsafeMutableRawBufferPointer = .allocate(byteCount: 4096, alignment: 8)

    init(options: RedactionOptions, airLinkType: Int32?, scouting: Bool) {
        self.options = options
        addresses = options.seed.map { AddressMap(seed: $0) } ?? AddressMap()
        air = airLinkType.map { LinkLayerDecoder(linkType: $0) }
        self.scouting = scouting
    }

    /// See ``Redactor/redact(_:)``.
    mutating func redact(_ record: CaptureRecord) -> CaptureRecord? {
        let count = record.bytes.count
        if count > buffer.count {
            buffer.deallocate()
            buffer = .allocate(byteCount: max(count, buffer.count * 2), alignment: 8)
        }
        let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
        if count > 0 { bytes.copyMemory(from: record.bytes) }
        let reason: String?
        switch record.kind {
        case .command: reason = command(bytes)
        case .event: reason = event(bytes)
        case .acl: reason = acl(bytes, direction: record.direction)
        case .sco:
            if options.values, bytes.count > 3 { zeroValue(bytes, from: 3, to: bytes.count) }
            reason = nil
        case .iso: reason = iso(bytes)
        case .other:
            if air != nil {
                reason = airPacket(bytes, original: record.bytes, record: record)
            } else {
                reason = other(bytes, type: record.sourceType, note: { record.note })
            }
        }
        if let reason {
            tally.drop(record: record.index, offset: record.fileOffset, reason: reason)
            return nil
        }
        var out = record
        out.bytes = UnsafeRawBufferPointer(bytes)
        return out
    }

    // MARK: Fields

    /// Replaces the address at `offset`, its least significant byte first as HCI writes it
    /// (`mostSignificantFirst`: the other way round); a cut one is zeroed as far as the bytes go.
    mutating func address(_ bytes: UnsafeMutableRawBufferPointer, _ offset: Int, mostSignificantFirst: Bool = false) {
        guard offset >= 0, offset < bytes.count else { return }
        guard offset + 6 <= bytes.count else {
            zero(bytes, from: offset, to: bytes.count)
            tally.addressesZeroed += 1
            return
        }
        func at(_ index: Int) -> Int { offset + (mostSignificantFirst ? 5 - index : index) }
        var original: UInt64 = 0
        for index in 0..<6 { original |= UInt64(bytes[at(index)]) << (8 * UInt64(index)) }
        if original == 0 || original == 0xFFFF_FFFF_FFFF { return }
        remember(original)
        let replaced = addresses.map(original)
        for index in 0..<6 { bytes[at(index)] = UInt8(truncatingIfNeeded: replaced >> (8 * UInt64(index))) }
        tally.addressesReplaced += 1
    }

    /// `count` addresses one after another from `offset`.
    mutating func addresses(_ bytes: UnsafeMutableRawBufferPointer, _ offset: Int, count: Int) {
        for index in 0..<count { address(bytes, offset + 6 * index) }
    }

    /// Zeroes the secret in `offset..<offset+length`, as far as the bytes go.
    mutating func secret(
        _ kind: SecretKind, _ bytes: UnsafeMutableRawBufferPointer, _ offset: Int, _ length: Int, found: Bool = true
    ) {
        let end = min(bytes.count, offset + length)
        guard offset >= 0, offset < end else { return }
        tally.secret(kind, UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<end]), found: found)
    }

    /// Replaces a name of at most `length` bytes (up to its first NUL) with `names`.
    mutating func name(_ bytes: UnsafeMutableRawBufferPointer, _ offset: Int, _ length: Int) {
        guard options.names else { return }
        var end = min(bytes.count, offset + length)
        guard offset >= 0, offset < end else { return }
        if let nul = bytes[offset..<end].firstIndex(of: 0) { end = nul }
        guard end > offset else { return }
        let field = UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<end])
        rememberName(Array(field))
        let replacement = addresses.replaceName(UnsafeRawBufferPointer(field))
        field.copyBytes(from: replacement)
        tally.namesReplaced += 1
    }

    /// Zeroes a value field (with `values`).
    mutating func zeroValue(_ bytes: UnsafeMutableRawBufferPointer, from start: Int, to end: Int) {
        let end = min(end, bytes.count)
        guard start >= 0, start < end else { return }
        zero(bytes, from: start, to: end)
        tally.valuesZeroed += 1
    }

    func zero(_ bytes: UnsafeMutableRawBufferPointer, from start: Int, to end: Int) {
        guard start < end else { return }
        UnsafeMutableRawBufferPointer(rebasing: bytes[start..<end]).initializeMemory(as: UInt8.self, repeating: 0)
    }

    // MARK: Addresses in bytes of unknown layout

    mutating func rememberName(_ name: [UInt8]) {
        guard name.count >= 4, knownNames.insert(name).inserted else { return }
        nameStarts[Int(name[0]) >> 6] |= 1 << UInt64(name[0] & 63)
    }

    /// With `names`: replaces every name already met wherever it appears in `bytes`.
    mutating func searchNames(_ bytes: UnsafeMutableRawBufferPointer) {
        guard !knownNames.isEmpty else { return }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard nameStarts[Int(byte) >> 6] & (1 << UInt64(byte & 63)) != 0 else {
                index += 1
                continue
            }
            var matched = 0
            for name in knownNames where name.count > matched && index + name.count <= bytes.count && name[0] == byte {
                if bytes[index..<index + name.count].elementsEqual(name) { matched = name.count }
            }
            if matched > 0 {
                let field = UnsafeMutableRawBufferPointer(rebasing: bytes[index..<index + matched])
                field.copyBytes(from: addresses.replaceName(UnsafeRawBufferPointer(field)))
                tally.namesReplaced += 1
                index += matched
            } else {
                index += 1
            }
        }
    }

    mutating func remember(_ address: UInt64) {
        guard knownForward.insert(address).inserted else { return }
        var reversed: UInt64 = 0
        for index in 0..<6 { reversed |= (address >> (8 * UInt64(index)) & 0xFF) << (8 * UInt64(5 - index)) }
        knownReversed.insert(reversed)
        search.add(address)
        search.add(reversed)
    }

    /// Replaces every address already met wherever its six bytes appear in `bytes`, in either
    /// byte order (the other order written as the replacement's in that order). A scout does not.
    mutating func searchKnown(_ bytes: UnsafeMutableRawBufferPointer) {
        guard !scouting else { return }
        if options.names { searchNames(bytes) }
        guard !knownForward.isEmpty else { return }
        var from = 0
        while let index = search.candidate(in: UnsafeRawBufferPointer(bytes), from: from) {
            var value: UInt64 = 0
            for offset in 0..<6 { value |= UInt64(bytes[index + offset]) << (8 * UInt64(offset)) }
            if knownForward.contains(value) {
                addresses.mapInPlace(bytes, at: index)
                tally.addressesReplaced += 1
                from = index + 6
            } else if knownReversed.contains(value) {
                var original: UInt64 = 0
                for offset in 0..<6 { original |= UInt64(bytes[index + 5 - offset]) << (8 * UInt64(offset)) }
                let replaced = addresses.map(original)
                for offset in 0..<6 {
                    bytes[index + 5 - offset] = UInt8(truncatingIfNeeded: replaced >> (8 * UInt64(offset)))
                }
                tally.addressesReplaced += 1
                from = index + 6
            } else {
                from = index + 1
            }
        }
    }

    // MARK: Text

    /// Replaces every address written as text (`AA:BB:CC:DD:EE:FF`, either case) in `bytes`.
    mutating func textAddresses(_ bytes: UnsafeMutableRawBufferPointer) {
        guard bytes.count >= 17 else { return }
        var index = 0
        while index + 17 <= bytes.count {
            guard let value = Self.textAddress(bytes, at: index) else {
                index += 1
                continue
            }
            // Not part of a longer run of hex pairs (a key or UUID written with colons).
            let before = index >= 1 && (bytes[index - 1] == UInt8(ascii: ":") || Self.hexValue(bytes[index - 1]) != nil)
            let after =
                index + 17 < bytes.count
                && (bytes[index + 17] == UInt8(ascii: ":") || Self.hexValue(bytes[index + 17]) != nil)
            if before || after {
                index += 1
                continue
            }
            if value != 0, value != 0xFFFF_FFFF_FFFF {
                // Printed most significant byte first: the address's value as HCI carries it.
                remember(value)
                let replaced = addresses.map(value)
                let lower = (0..<17).contains {
                    bytes[index + $0] >= UInt8(ascii: "a") && bytes[index + $0] <= UInt8(ascii: "f")
                }
                let digits = Array((lower ? "0123456789abcdef" : "0123456789ABCDEF").utf8)
                let printed = replaced
                for part in 0..<6 {
                    let byte = Int(printed >> (8 * UInt64(5 - part)) & 0xFF)
                    bytes[index + 3 * part] = digits[byte >> 4]
                    bytes[index + 3 * part + 1] = digits[byte & 0x0F]
                }
                tally.addressesReplaced += 1
            }
            index += 17
        }
    }

    /// The address printed at `index`, most significant byte first.
    static func textAddress(_ bytes: UnsafeMutableRawBufferPointer, at index: Int) -> UInt64? {
        var value: UInt64 = 0
        for part in 0..<6 {
            let at = index + 3 * part
            guard let high = hexValue(bytes[at]), let low = hexValue(bytes[at + 1]) else { return nil }
            if part < 5 { guard bytes[at + 2] == UInt8(ascii: ":") else { return nil } }
            value = value << 8 | UInt64(high << 4 | low)
        }
        return value
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
