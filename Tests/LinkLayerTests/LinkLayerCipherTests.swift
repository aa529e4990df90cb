import LinkLayer
import TestSupport
import Testing

/// AES-CCM of the LE data channel against the Bluetooth Core Specification's "LE encryption
/// sample data" (Core 6.0, Vol 6, Part C, §1): its long-term key, diversifiers and IVs, the
/// session key it derives, and the four PDUs of its encryption start (the two LL_START_ENC_RSP,
/// then a 27-octet data PDU each way), each with its header, packet counter and direction.
@Suite struct LinkLayerCipherTests {
    /// LTK = 0x4C68384139F574D836BCF34E9DFB01BF, here least significant octet first (as `--ltk`
    /// takes it); SKDm 0xACBDCEDFE0F10213, SKDs 0x0213243546576879, IVm 0xBADCAB24, IVs 0xDEAFBABE.
    static let sample = LinkLayerCipher(
        ltk: packet("bf 01 fb 9d 4e f3 bc 36 d8 74 f5 39 41 38 68 4c"), skdCentral: 0xACBD_CEDF_E0F1_0213,
        skdPeripheral: 0x0213_2435_4657_6879, ivCentral: 0xBADC_AB24, ivPeripheral: 0xDEAF_BABE)

    /// The sample's PDUs: header octet, packet counter, direction, plaintext payload, and the
    /// payload then MIC on the air.
    static let pdus: [(String, UInt8, UInt64, LinkLayerDirection, [UInt8], [UInt8])] = [
        ("LL_START_ENC_RSP1", 0x0F, 0, .centralToPeripheral, packet("06"), packet("9f cd a7 f4 48")),
        ("LL_START_ENC_RSP2", 0x07, 0, .peripheralToCentral, packet("06"), packet("a3 4c 13 a4 15")),
        (
            "LL data PDU, central to peripheral", 0x0E, 1, .centralToPeripheral,
            packet("17 00 63 64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 31 32 33 34 35 36 37 38 39 30"),
            packet("7a 70 d6 64 15 22 6d f2 6b 17 83 9a 06 04 05 59 6b d6 56 4f 79 6b 5b 9c e6 ff 32 f7 5a 6d 33")
        ),
        (
            "LL data PDU, peripheral to central", 0x06, 1, .peripheralToCentral,
            packet("17 00 37 36 35 34 33 32 31 30 41 42 43 44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50 51"),
            packet("f3 88 81 e7 bd 94 c9 c3 69 b9 a6 68 46 dd 47 86 aa 8c 39 ce 54 0d 0d ae 3a dc df 89 b9 60 88")
        ),
    ]

    @Test func derivesTheSampleSessionKeyAndIV() {
        #expect(Self.sample.sessionKey == packet("99 ad 1b 52 26 a3 7e 3e 05 8e 3b 8e 27 c2 c6 66"))
        #expect(Self.sample.iv == packet("24 ab dc ba be ba af de"))
    }

    @Test(arguments: 0..<4) func encryptsTheSamplePDUs(_ index: Int) {
        let (name, header, counter, direction, plaintext, air) = Self.pdus[index]
        #expect(
            Self.sample.encrypt(plaintext, header: header, counter: counter, direction: direction) == air, "\(name)")
    }

    @Test(arguments: 0..<4) func decryptsTheSamplePDUsAndChecksTheirMIC(_ index: Int) {
        let (name, header, counter, direction, plaintext, air) = Self.pdus[index]
        #expect(decrypt(air, header: header, counter: counter, direction: direction) == plaintext, "\(name)")
    }

    @Test func refusesAWrongMICCounterDirectionOrHeader() {
        let (_, header, counter, direction, _, air) = Self.pdus[2]
        var flipped = air
        flipped[flipped.count - 1] ^= 0x01
        #expect(decrypt(flipped, header: header, counter: counter, direction: direction) == nil)
        #expect(decrypt(air, header: header, counter: counter + 1, direction: direction) == nil)
        #expect(decrypt(air, header: header, counter: counter, direction: .peripheralToCentral) == nil)
        // LLID 0b01 instead of 0b10: the authenticated header differs.
        #expect(decrypt(air, header: header ^ 0x03, counter: counter, direction: direction) == nil)
        // NESN, SN and MD are not authenticated: the same PDU retransmitted with them changed decrypts.
        #expect(decrypt(air, header: header ^ 0x1C, counter: counter, direction: direction) != nil)
        #expect(decrypt(packet("01 02 03"), header: header, counter: counter, direction: direction) == nil)
    }

    @Test func aWrongKeyFailsTheMIC() {
        var key = packet("bf 01 fb 9d 4e f3 bc 36 d8 74 f5 39 41 38 68 4c")
        key[0] ^= 0x80
        let wrong = LinkLayerCipher(
            ltk: key, skdCentral: 0xACBD_CEDF_E0F1_0213, skdPeripheral: 0x0213_2435_4657_6879, ivCentral: 0xBADC_AB24,
            ivPeripheral: 0xDEAF_BABE)
        let (_, header, counter, direction, _, air) = Self.pdus[0]
        var out = [UInt8](repeating: 0, count: 8)
        let ok = air.withUnsafeBytes { bytes in
            out.withUnsafeMutableBytes {
                wrong.decrypt(bytes, header: header, counter: counter, direction: direction, into: $0)
            }
        }
        #expect(!ok)
    }

    private func decrypt(_ air: [UInt8], header: UInt8, counter: UInt64, direction: LinkLayerDirection) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: max(air.count - 4, 0))
        let ok = air.withUnsafeBytes { bytes in
            out.withUnsafeMutableBytes {
                Self.sample.decrypt(bytes, header: header, counter: counter, direction: direction, into: $0)
            }
        }
        return ok ? out : nil
    }
}
