import Redact
import Testing
import TraceFiles
import Wire

/// Redacts one record made in code and returns its bytes as written (nil: dropped).
private func redacted(
    _ redactor: Redactor, _ kind: PacketKind, _ bytes: [UInt8], direction: Direction? = .received, index: Int = 0
)
    -> [UInt8]?
{
    bytes.withUnsafeBytes { raw in
        let record = CaptureRecord(
            index: index, fileOffset: 0, timestamp: Timestamp(seconds: 0, microseconds: 0), direction: direction,
            kind: kind,
            originalLength: raw.count, bytes: raw)
        return redactor.redact(record).map { Array($0.bytes) }
    }
}

/// An ACL packet on `handle` carrying `data`; `start` false for a continuation fragment.
private func acl(_ handle: UInt16, _ data: [UInt8], start: Bool = true) -> [UInt8] {
    let flags: UInt16 = start ? 0x2000 : 0x1000
    let word = handle | flags
    return [UInt8(word & 0xFF), UInt8(word >> 8), UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + data
}

private func address(_ bytes: [UInt8], at offset: Int) -> UInt64 {
    (0..<6).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
}

@Suite struct AddressMapTests {
    @Test(arguments: [
        (0xC1_2233_4455_66 as UInt64, "static random"), (0x41_2233_4455_66, "resolvable private"),
        (0x01_2233_4455_66, "non-resolvable private"), (0x80_2233_4455_66, "public with the top bits 10"),
    ])
    func keepsTheTwoBitsThatSayTheKind(address: UInt64, kind: String) {
        var map = AddressMap(seed: 1)
        let replaced = map.map(address)
        #expect(replaced >> 46 == address >> 46, "\(kind)")
        #expect(replaced != address)
        #expect(replaced <= 0xFFFF_FFFF_FFFF)
        #expect(map.map(address) == replaced, "the same address, the same replacement")
    }

    @Test func aSeedMakesTheSameMappingAndARandomKeyAnother() {
        var first = AddressMap(seed: 9)
        var second = AddressMap(seed: 9)
        var other = AddressMap(seed: 10)
        var random = AddressMap()
        let address: UInt64 = 0xD0_1122_3344_55
        #expect(first.map(address) == second.map(address))
        #expect(first.map(address) != other.map(address))
        #expect(first.map(address) != random.map(address))
    }

    @Test func fillersStayAndDifferentAddressesStayDifferent() {
        var map = AddressMap(seed: 2)
        #expect(map.map(0) == 0)
        #expect(map.map(0xFFFF_FFFF_FFFF) == 0xFFFF_FFFF_FFFF)
        let replaced = Set((0..<2000).map { map.map(0xC0_0000_0000_00 | UInt64($0)) })
        #expect(replaced.count == 2000)
    }
}

@Suite struct RedactorTests {
    @Test func anLTKCutAcrossTwoFragmentsIsZeroedAndCountedOnce() throws {
        let redactor = Redactor(options: .init(seed: 1))
        let key: [UInt8] = (1...16).map { UInt8($0) }
        // L2CAP: length 17, CID 6; SMP Encryption Information (0x06) and the key, cut after 3 bytes of it.
        let frame: [UInt8] = [17, 0, 6, 0, 0x06] + key
        let first = try #require(redacted(redactor, .acl, acl(0x40, Array(frame[0..<8]))))
        let second = try #require(redacted(redactor, .acl, acl(0x40, Array(frame[8...]), start: false)))
        #expect(Array(first[0..<9]) == Array(acl(0x40, Array(frame[0..<8]))[0..<9]), "headers and opcode stay")
        #expect(first[9...].allSatisfy { $0 == 0 } && second[4...].allSatisfy { $0 == 0 })
        #expect(second.count == 4 + frame.count - 8)
        #expect(redactor.tally.found[.longTermKey] == 1)
        #expect(redactor.tally.removed[.longTermKey] == 1)
        #expect(redactor.tally.secretsSentence?.contains("the LTK of 1 bonded device") == true)
    }

    @Test func theIdentityAddressIsReplacedAndCounted() throws {
        let redactor = Redactor(options: .init(seed: 1))
        let identity: [UInt8] = [0x66, 0x55, 0x44, 0x33, 0x22, 0xC1]
        let frame: [UInt8] = [8, 0, 6, 0, 0x09, 0x01] + identity
        let out = try #require(redacted(redactor, .acl, acl(0x40, frame)))
        #expect(Array(out[0..<10]) == Array(acl(0x40, frame)[0..<10]))
        var map = AddressMap(seed: 1)
        #expect(address(out, at: 10) == map.map(address(identity, at: 0)))
        #expect(redactor.tally.identityAddresses == 1)
    }

    @Test func aContinuationWithoutItsStartIsDroppedAndSaid() {
        let redactor = Redactor(options: .init(seed: 1))
        #expect(redacted(redactor, .acl, acl(0x40, [1, 2, 3, 4], start: false), index: 7) == nil)
        #expect(redactor.tally.droppedCount == 1)
        #expect(redactor.tally.firstDropped.first?.record == 7)
    }

    @Test func anAdvertisingReportKeepsItsLengthsAndLosesItsAddressAndOnRequestItsName() throws {
        let name = Array("Heart Strap".utf8)
        let data: [UInt8] = [2, 0x01, 0x06, UInt8(name.count + 1), 0x09] + name
        let peer: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0xC6]
        let parameters: [UInt8] = [0x02, 1, 0x00, 0x01] + peer + [UInt8(data.count)] + data + [0xC0]
        let event: [UInt8] = [0x3E, UInt8(parameters.count)] + parameters
        let plain = try #require(redacted(Redactor(options: .init(seed: 3)), .event, event))
        #expect(plain.count == event.count)
        #expect(address(plain, at: 6) != address(event, at: 6))
        #expect(address(plain, at: 6) >> 46 == 0b11)
        #expect(Array(plain[13...]) == Array(event[13...]), "the data stays without --names")
        let named = try #require(redacted(Redactor(options: .init(names: true, seed: 3)), .event, event))
        let nameAt = 13 + 5
        #expect(Array(named[nameAt..<nameAt + name.count]) != name)
        #expect(
            named[nameAt..<nameAt + name.count].allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) })
        #expect(Array(named[13..<nameAt]) == Array(event[13..<nameAt]), "the flags and the name's header stay")
    }

    @Test func aReportWhoseLengthsDoNotAddUpIsDropped() {
        let event: [UInt8] = [0x3E, 12, 0x02, 1, 0x00, 0x01, 1, 2, 3, 4, 5, 6, 40, 0]
        let redactor = Redactor(options: .init(seed: 1))
        #expect(redacted(redactor, .event, event) == nil)
        #expect(redactor.tally.dropped.keys.contains { $0.contains("runs past the event") })
    }

    @Test func startEncryptionAndTheLTKReplyLoseTheirKeys() throws {
        let redactor = Redactor(options: .init(seed: 1))
        let start: [UInt8] =
            [0x19, 0x20, 28, 0x40, 0x00] + Array(repeating: 0xAB, count: 10) + Array(repeating: 0xCD, count: 16)
        let reply: [UInt8] = [0x1A, 0x20, 18, 0x40, 0x00] + Array(repeating: 0xCD, count: 16)
        let startOut = try #require(redacted(redactor, .command, start, direction: .sent))
        let replyOut = try #require(redacted(redactor, .command, reply, direction: .sent))
        #expect(Array(startOut[0..<5]) == Array(start[0..<5]) && startOut[5...].allSatisfy { $0 == 0 })
        #expect(Array(replyOut[0..<5]) == Array(reply[0..<5]) && replyOut[5...].allSatisfy { $0 == 0 })
        #expect(redactor.tally.found[.longTermKey] == 1, "the same key twice is one key")
        #expect(redactor.tally.found[.centralIdentification] == 1)
    }

    @Test func anAddressWrittenInANoteIsReplacedAsTheSameAddressInBinary() throws {
        let redactor = Redactor(options: .init(seed: 4))
        let event: [UInt8] = [
            0x3E, 19, 0x01, 0x00, 0x40, 0x00, 0x00, 0x01, 0x66, 0x55, 0x44, 0x33, 0x22, 0xC1, 0x18, 0, 0, 0, 0x48, 0, 0,
        ]
        let binary = try #require(redacted(redactor, .event, event))
        let text = Array("Connected to c1:22:33:44:55:66, key 00:11:22:33:44:55:66:77".utf8)
        let note = try text.withUnsafeBytes { raw in
            let record = CaptureRecord(
                index: 1, fileOffset: 0, timestamp: Timestamp(seconds: 0, microseconds: 0), direction: nil,
                kind: .other,
                originalLength: raw.count, bytes: raw, sourceType: .packetLogger(type: 0xFC))
            return Array(try #require(redactor.redact(record)).bytes)
        }
        let replaced = BluetoothAddress(rawValue: address(binary, at: 8)).description.lowercased()
        #expect(String(decoding: note, as: UTF8.self) == "Connected to \(replaced), key 00:11:22:33:44:55:66:77")
    }

    @Test func valuesAreZeroedButTheSubscriptionAndAllowedOnes() throws {
        let heartRate = BluetoothUUID(UInt16(0x2A37))
        let redactor = Redactor(options: .init(values: true, allow: [BluetoothUUID(UInt16(0x2A19))], seed: 1))
        func att(_ pdu: [UInt8], _ direction: Direction) throws -> [UInt8] {
            let frame = [UInt8(pdu.count), 0, 4, 0] + pdu
            return Array(try #require(redacted(redactor, .acl, acl(0x40, frame), direction: direction))[8...])
        }
        // Discovery: Read By Type 0x2803 → declarations of 2A37 (value 0x0010) and 2A19 (0x0020); CCCD 0x0011.
        _ = try att([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28], .sent)
        let declarations: [UInt8] = [
            0x09, 7, 0x0F, 0x00, 0x10, 0x10, 0x00, 0x37, 0x2A, 0x1F, 0x00, 0x12, 0x20, 0x00, 0x19, 0x2A,
        ]
        #expect(try att(declarations, .received) == declarations, "discovery stays")
        _ = try att([0x04, 0x11, 0x00, 0x11, 0x00], .sent)
        _ = try att([0x05, 0x01, 0x11, 0x00, 0x02, 0x29], .received)
        #expect(heartRate.shortValue == 0x2A37)
        #expect(try att([0x1B, 0x10, 0x00, 0x16, 0x48, 0x01], .received) == [0x1B, 0x10, 0x00, 0, 0, 0])
        #expect(try att([0x1B, 0x20, 0x00, 0x55], .received) == [0x1B, 0x20, 0x00, 0x55], "allowed")
        #expect(
            try att([0x12, 0x11, 0x00, 0x01, 0x00], .sent) == [0x12, 0x11, 0x00, 0x01, 0x00], "the CCCD write stays")
        _ = try att([0x0A, 0x10, 0x00], .sent)
        #expect(try att([0x0B, 0x16, 0x48], .received) == [0x0B, 0, 0])
        #expect(
            try att([0x1B, 0x99, 0x00, 0x01, 0x02], .received) == [0x1B, 0x99, 0x00, 0, 0],
            "an unknown handle is zeroed")
    }

    @Test(arguments: [1, 600])
    func aKnownAddressIsFoundInBytesOfUnknownLayoutWhereverItIsAndInEitherOrder(known: Int) throws {
        // The search skips bytes (AddressSearch): checked against a byte-by-byte search, with one
        // address known and with 600 (whose pairs of bytes leave fewer to skip).
        let redactor = Redactor(options: .init(seed: 5))
        var generator = SplitMix(seed: UInt64(known))
        var peers: [UInt64] = []
        for index in 0..<known {
            let peer = generator.next() & 0x3FFF_FFFF_FFFF | 0xC000_0000_0000
            peers.append(peer)
            let bytes = (0..<6).map { UInt8(truncatingIfNeeded: peer >> (8 * UInt64($0))) }
            let parameters: [UInt8] = [0x01, 0x00, UInt8(index & 0xFF), UInt8(index >> 8 & 0x0F), 0x00, 0x01] + bytes
            _ = try #require(redacted(redactor, .event, [0x3E, 19] + parameters + [0x18, 0, 0, 0, 0x48, 0, 0]))
        }
        var map = AddressMap(seed: 5)
        for trial in 0..<200 {
            // A notification's value of random bytes, with a known address in one order or the
            // other somewhere, and a near miss (the address with one byte changed) elsewhere.
            var value = (0..<40).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let peer = peers[trial % peers.count]
            let reversed = trial % 2 == 1
            var bytes = (0..<6).map { UInt8(truncatingIfNeeded: peer >> (8 * UInt64($0))) }
            if reversed { bytes.reverse() }
            let at = trial % 35
            value.replaceSubrange(at..<at + 6, with: bytes)
            var expected = value
            let replacement = map.map(peer)
            var replaced = (0..<6).map { UInt8(truncatingIfNeeded: replacement >> (8 * UInt64($0))) }
            if reversed { replaced.reverse() }
            expected.replaceSubrange(at..<at + 6, with: replaced)
            let frame = [UInt8(value.count + 3), 0, 4, 0, 0x1B, 0x10, 0x00] + value
            let out = try #require(redacted(redactor, .acl, acl(0x40, frame)))
            #expect(Array(out[11...]) == expected, "trial \(trial): the address at \(at)")
            var nearMiss = bytes
            nearMiss[trial % 6] ^= 0x01
            let missFrame = [9, 0, 4, 0, 0x1B, 0x10, 0x00] + nearMiss
            #expect(try #require(redacted(redactor, .acl, acl(0x40, missFrame))) == acl(0x40, missFrame))
        }
    }

    @Test func anIOSLinkLayerLogRecordLosesItsAddressAndEDIVRandAndKeepsItsLayout() throws {
        let redactor = Redactor(options: .init(seed: 6))
        func record(_ type: UInt8, _ bytes: [UInt8]) -> [UInt8]? {
            bytes.withUnsafeBytes { raw in
                let record = CaptureRecord(
                    index: 0, fileOffset: 0, timestamp: Timestamp(seconds: 0, microseconds: 0), direction: nil,
                    kind: .other, originalLength: raw.count, bytes: raw, sourceType: .packetLogger(type: type))
                return redactor.redact(record).map { Array($0.bytes) }
            }
        }
        // Sent (0x80), clock, the peer F9:1C:52:63:45:3D most significant byte first, handle 0x03,
        // 0x04, LL_ENC_REQ: Rand, EDIV, SKDm, IVm; a last byte.
        let peer: [UInt8] = [0xF9, 0x1C, 0x52, 0x63, 0x45, 0x3D]
        let rand: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8], ediv: [UInt8] = [0x34, 0x12]
        let skd: [UInt8] = Array(0x40..<0x48), iv: [UInt8] = [0x50, 0x51, 0x52, 0x53]
        let encReq = [0x80, 0x0B, 0xD2, 0xA9, 0x00] + peer + [0x03, 0x04, 0x03] + rand + ediv + skd + iv + [0x00]
        let out = try #require(record(0x0A, encReq))
        #expect(out.count == encReq.count)
        var map = AddressMap(seed: 6)
        let replaced = map.map(0xF91C_5263_453D)
        #expect(Array(out[5..<11]) == (0..<6).map { UInt8(truncatingIfNeeded: replaced >> (8 * UInt64(5 - $0))) })
        #expect(out[14..<24].allSatisfy { $0 == 0 }, "Rand and EDIV zeroed")
        #expect(
            Array(out[0..<5]) + Array(out[11..<14]) + Array(out[24...]) == Array(encReq[0..<5]) + Array(encReq[11..<14])
                + Array(encReq[24...]))
        #expect(redactor.tally.found[.centralIdentification] == 1)
        // macOS's two-byte 0x0A and iOS's one-byte 0x21 stay; a 0x0B of unknown layout is dropped.
        #expect(record(0x0A, [0xF0, 0x01]) == [0xF0, 0x01])
        #expect(record(0x21, [0x01]) == [0x01])
        #expect(record(0x0B, Array(repeating: 0x11, count: 20)) == nil)
        #expect(record(0x0A, [0x00] + Array(repeating: 0x11, count: 19)) == nil, "not a link-layer log")
        #expect(redactor.tally.droppedCount == 2)
    }
}

/// SplitMix64: the tests' reproducible random numbers.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
