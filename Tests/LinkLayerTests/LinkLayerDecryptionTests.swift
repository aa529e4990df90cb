import LinkLayer
import TestSupport
import Testing
import TraceFiles
import Wire

/// Decrypting a real encrypted link with its key: crackle's LTK-decryption test capture (an
/// Ubertooth recording, crackle's tests/02_ltk_decrypt/known_ltk.pcap (Captures/linklayer/ppi/), as link type 251 in
/// Captures/linklayer/crackle-known-ltk.pcap) with the LTK crackle's test gives, checked against
/// crackle's own decryption of it (crackle-known-ltk-decrypted.pcap: each packet it decrypted,
/// with its plaintext payload and without the MIC).
@Suite struct LinkLayerDecryptionTests {
    /// crackle's `tests/02_ltk_decrypt/args.txt`: `-l 7f62c053f104a5bbe68b1d896a2ed49c`, the
    /// LTK as crackle prints it (most significant octet first): given here with `0x`'s order
    /// reversed into the octets `--ltk` takes without it.
    static let ltk: [UInt8] = packet("7f 62 c0 53 f1 04 a5 bb e6 8b 1d 89 6a 2e d4 9c").reversed()

    struct Decoded {
        var packet: [UInt8]
        var decrypted: Bool
        var micFailed: Bool
        var encrypted: Bool
    }

    /// Each record's link-layer packet (access address to the payload; no CRC), after decoding.
    static func decode(_ name: String, keys: [[UInt8]]) throws -> [Decoded] {
        let reader = try CaptureReader(path: Fixtures.capture("linklayer/\(name)"), linkLayer: true)
        var decoder = LinkLayerDecoder(linkType: 251, keys: keys)
        var out: [Decoded] = []
        while let record = try reader.next() {
            let decoded = decoder.decode(record.bytes, time: record.timestamp, index: record.index)
            var bytes = Array(record.bytes.prefix(4))
            if case .data(let pdu) = decoded.packet?.pdu {
                bytes += [pdu.header, UInt8(pdu.length)] + Array(pdu.payload)
            }
            out.append(
                Decoded(
                    packet: bytes, decrypted: decoded.decrypted, micFailed: decoded.micFailed,
                    encrypted: decoded.isEncrypted))
        }
        return out
    }

    /// crackle's decrypted packets: those its output has 4 bytes (the MIC) shorter than the input,
    /// as (record, access address, header with its length, plaintext payload).
    static func crackleDecrypted() throws -> [Int: [UInt8]] {
        let original = try packets("crackle-known-ltk.pcap")
        let decrypted = try packets("crackle-known-ltk-decrypted.pcap")
        #expect(original.count == decrypted.count)
        var result: [Int: [UInt8]] = [:]
        for (index, (before, after)) in zip(original, decrypted).enumerated() where after.count == before.count - 4 {
            result[index] = Array(after.dropLast(3))  // its CRC
        }
        return result
    }

    /// Each record's bytes (link type 251: the packet itself).
    static func packets(_ name: String) throws -> [[UInt8]] {
        let reader = try CaptureReader(path: Fixtures.capture("linklayer/\(name)"), linkLayer: true)
        var out: [[UInt8]] = []
        while let record = try reader.next() { out.append(Array(record.bytes)) }
        return out
    }

    @Test func decryptsWhatCrackleDecryptsToTheSamePlaintext() throws {
        let expected = try Self.crackleDecrypted()
        #expect(expected.count == 7)  // crackle: "Decrypted 7 packets"
        let decoded = try Self.decode("crackle-known-ltk.pcap", keys: [Self.ltk])
        for (index, plaintext) in expected {
            #expect(decoded[index].decrypted, "record \(index + 1)")
            #expect(decoded[index].packet == plaintext, "record \(index + 1)")
        }
        let ours = Set(decoded.indices.filter { decoded[$0].decrypted })
        #expect(ours.isSuperset(of: expected.keys))
        #expect(ours.count + decoded.filter(\.micFailed).count == decoded.filter { $0.decrypted || $0.encrypted }.count)
    }

    @Test func aWrongKeyFailsEveryEncryptedPacketAndDecodesTheRest() throws {
        var wrong = Self.ltk
        wrong[15] ^= 0x01
        let keyed = try Self.decode("crackle-known-ltk.pcap", keys: [wrong])
        let plain = try Self.decode("crackle-known-ltk.pcap", keys: [])
        #expect(keyed.allSatisfy { !$0.decrypted })
        #expect(keyed.map(\.micFailed) == plain.map(\.encrypted))
        #expect(keyed.map(\.packet) == plain.map(\.packet))
        #expect(plain.filter(\.encrypted).count >= 7)
    }

    @Test func theRightKeyIsFoundAmongSeveral() throws {
        var wrong = Self.ltk
        wrong[0] ^= 0xFF
        let one = try Self.decode("crackle-known-ltk.pcap", keys: [Self.ltk])
        let several = try Self.decode("crackle-known-ltk.pcap", keys: [wrong, Self.ltk])
        #expect(several.map(\.packet) == one.map(\.packet))
        #expect(several.map(\.decrypted) == one.map(\.decrypted))
    }
}
