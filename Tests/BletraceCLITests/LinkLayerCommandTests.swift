import Foundation
import TestSupport
import Testing

/// `info`, `decode` and the analyses on over-the-air captures; `stats` refuses them by name. The
/// Ubertooth capture and its nRF Sniffer conversion come from the shared folder (`.sharedCaptures`).
@Suite struct LinkLayerCommandTests {
    static let nordic = Fixtures.crackleConversion("crackle-nordic-v3.pcap")
    static let ubertooth = Fixtures.publicCapture("mikeryan-crackle-le-sc.pcapng")
    static let knownLTK = Fixtures.capture("linklayer/crackle-known-ltk.pcap")

    /// A pcap file of link type `linkType` holding `packets`.
    static func pcap(linkType: UInt32, _ packets: [[UInt8]]) -> [UInt8] {
        func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var file = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(linkType)
        for (index, packet) in packets.enumerated() {
            file += le32(UInt32(index)) + le32(0) + le32(UInt32(packet.count)) + le32(UInt32(packet.count)) + packet
        }
        return file
    }

    @Test(.sharedCaptures) func infoCountsAdvertisingAndDataPDUs() throws {
        let result = try bletrace("info", Self.nordic)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("pcap, link type 272 (NORDIC_BLE)"))
        #expect(result.stdout.contains("records:  303 (44 advertising, 259 data)"))
        let document = try json(try bletrace("info", Self.ubertooth, "--format", "json").stdout)
        #expect(document["datalink"] as? Int == 256)
        #expect((document["kinds"] as? [String: Int])?["advertising"] == 44)
    }

    @Test(.sharedCaptures) func decodeTellsTheConnectionsStoryLineByLine() throws {
        let result = try bletrace("decode", Self.nordic)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 303)
        #expect(lines[43].contains("CONNECT_IND central 5C:F3:70:73:3E:F4 peripheral 7D:43:82:42:23:16 (random)"))
        #expect(lines[43].contains("interval 67.50 ms"))
        #expect(lines[47].contains("P->C") && lines[47].contains("LL_VERSION_IND"))
        #expect(lines[58].contains("C->P") && lines[58].contains("ATT Exchange MTU Request MTU 517"))
        #expect(lines[59].contains("(retransmission of frame 59)"))
        #expect(lines[67].contains("ATT Exchange MTU Response MTU 517 (answers Exchange MTU Request, frame 59)"))
        // Without the nRF header's direction, the Ubertooth file's is inferred, and marked so.
        let inferred = try bletrace("decode", Self.ubertooth).stdout.split(separator: "\n")
        #expect(inferred[58].contains("C->P?"))
    }

    @Test(.sharedCaptures) func verboseShowsEveryHeaderField() throws {
        let result = try bletrace("decode", Self.ubertooth, "-v")
        #expect(result.status == 0)
        for field in [
            "LE RF", "rf channel:", "noise power: -55", "access address: 0x50654a27", "crc init: 3069021",
            "data PDU: LL control, NESN", "SMP",
        ] {
            #expect(result.stdout.contains(field), "\(field)")
        }
    }

    @Test(.sharedCaptures) func jsonAndJSONLHoldTheSameRecords() throws {
        let lines = try jsonLines(try bletrace("decode", Self.nordic, "--format", "jsonl").stdout)
        let document = try json(try bletrace("decode", Self.nordic, "--format", "json").stdout)
        let records = try #require(document["records"] as? [[String: Any]])
        #expect(records.count == lines.count && lines.count == 303)
        #expect(lines.allSatisfy { $0["kind"] as? String == "ll" && $0["version"] as? Int == 3 })
        #expect(records.allSatisfy { $0["version"] == nil })
        let mtu = lines[58]
        #expect((mtu["att"] as? [String: Any])?["mtu"] as? Int == 517)
        #expect(
            mtu["direction"] as? String == "central-to-peripheral" && mtu["direction_source"] as? String == "header")
    }

    /// The analyses read the air as the central's HCI would have shown it (Formats/link-layer.md,
    /// "Lifecycles from the air"); the facts below are tshark's on the same capture (its
    /// CONNECT_IND, frame 44: `btle.initiator_address`, `btle.advertising_address`,
    /// `btle.link_layer_data.interval` 54; `btatt.server_rx_mtu` 517, frame 68; 12 ×
    /// `btatt.error_code` 0x0a; 42 ADV_IND and SCAN_RSP of 7d:43:82:42:23:16 with
    /// `btcommon.eir_ad.entry.device_name` "Alert Notification", `btle_rf.signal_dbm` -5 or 0).
    @Test(.sharedCaptures) func theAnalysesReadAnAirCapture() throws {
        let lifecycle = try bletrace("lifecycle", Self.nordic)
        #expect(lifecycle.status == 0, "\(lifecycle.stderr)")
        #expect(
            lifecycle.stdout.contains(
                "connection 1: LE, local central, peer 7D:43:82:42:23:16 \"Alert Notification\" (random)"))
        #expect(lifecycle.stdout.contains("42 advertising reports from 1 device"))
        #expect(
            lifecycle.stdout.contains(
                "7D:43:82:42:23:16 \"Alert Notification\" services 1811 RSSI -5…0 dBm, 42 reports, connectable"))
        #expect(lifecycle.stdout.contains("interval 67.5 ms, latency 0, supervision timeout 420 ms"))
        #expect(lifecycle.stdout.contains("LE Secure Connections, Just Works, bonding: encrypted"))
        #expect(lifecycle.stdout.contains("MTU 517; ATT: 19 requests") && lifecycle.stdout.contains("12 errors"))
        let errors = try json(try bletrace("errors", Self.nordic, "--format", "json").stdout)
        let list = try #require(errors["errors"] as? [[String: Any]])
        #expect(list.count == 12 && list.allSatisfy { $0["code"] as? Int == 0x0A })
        let gatt = try bletrace("gatt", Self.nordic)
        #expect(gatt.status == 0 && gatt.stdout.contains("service 0x0014-0x0017 180F Battery"))
        let diagnose = try bletrace("diagnose", Self.nordic)
        #expect(diagnose.status == 0 && diagnose.stdout.contains("link-parameters-outside-apple-guidelines"))
        // From the peripheral's side the peer is the central.
        let peripheral = try bletrace("lifecycle", Self.nordic, "--this-host", "peripheral")
        #expect(peripheral.stdout.contains("connection 1: LE, local peripheral, peer 5C:F3:70:73:3E:F4 (public)"))
    }

    @Test(.sharedCaptures) func replayPlaysAnAirCapture() throws {
        let result = try bletrace("replay", Self.ubertooth, "--app", "reconnecting")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("central didConnect peripheral=7D:43:82:42:23:16"))
    }

    @Test(.sharedCaptures) func statsRefusesAnAirCaptureByName() throws {
        let result = try bletrace("stats", Self.nordic)
        #expect(result.status == 2)
        #expect(result.stderr.contains("link type 272 (NORDIC_BLE) is an over-the-air link-layer sniffer capture"))
    }

    @Test func aWrongKeyIsReportedPerPacketAndAMalformedOneRefused() throws {
        let wrong = try bletrace("decode", Self.knownLTK, "--ltk", "00112233445566778899aabbccddeeff")
        #expect(wrong.status == 0, "\(wrong.stderr)")
        #expect(wrong.stdout.contains("[MIC failed: no key given decrypts it]"))
        let right = try bletrace("decode", Self.knownLTK, "--ltk", "0x7f62c053f104a5bbe68b1d896a2ed49c")
        #expect(right.stdout.contains("LL_START_ENC_RSP (decrypted)"))
        let short = try bletrace("decode", Self.knownLTK, "--ltk", "0x1234")
        #expect(short.status != 0 && short.stderr.contains("a long-term key is 32 hex digits"))
    }

    /// Bad records in the middle: each gets its fault with record index and byte offset, the good
    /// ones around them are decoded, nothing crashes.
    @Test func badRecordsAreNamedAndTheRestDecoded() throws {
        let advInd: [UInt8] = [
            0xD6, 0xBE, 0x89, 0x8E, 0x40, 0x06, 0x16, 0x23, 0x42, 0x82, 0x43, 0x7D, 0x00, 0x00, 0x00,
        ]
        var longLength = advInd
        longLength[5] = 200
        let file = Self.pcap(
            linkType: 251,
            [advInd, [0xD6, 0xBE], longLength, [0x27, 0x4A, 0x65, 0x50, 0x03, 0x02, 0xEE, 0x00, 0, 0, 0], advInd])
        let path = try Fixtures.temporaryFile(file, name: "bad.pcap")
        let result = try bletrace("decode", path, "--format", "jsonl")
        #expect(result.status == 0, "\(result.stderr)")
        let records = try jsonLines(result.stdout)
        #expect(records.count == 5)
        #expect(records[0]["fault"] == nil && records[4]["fault"] == nil)
        let short = try #require(records[1]["fault"] as? String)
        #expect(short.contains("frame 2:") && short.contains("access address"))
        let long = try #require(records[2]["fault"] as? String)
        #expect(long.contains("frame 3:") && long.contains("offset 5") && long.contains("200 bytes of PDU payload"))
        // An unassigned LL control opcode is shown, not refused.
        let control = try #require((records[3]["ll"] as? [String: Any])?["control"] as? [String: Any])
        #expect(control["opcode"] as? Int == 0xEE && control["name"] == nil)
    }

    @Test(.sharedCaptures) func aFileCutInARecordShowsEveryGoodRecordThenTheFault() throws {
        let bytes = try Fixtures.contents(Self.nordic)
        let path = try Fixtures.temporaryFile(Array(bytes.dropLast(7)), name: "cut.pcap")
        let result = try bletrace("decode", path, "--format", "jsonl")
        #expect(result.status == 1)
        #expect(try jsonLines(result.stdout).count == 302)
        #expect(result.stderr.contains("frame 303:"))
    }

    @Test func filtersAreRefusedRatherThanIgnored() throws {
        let result = try bletrace("decode", Self.knownLTK, "--filter", "att")
        #expect(result.status == 2)
        #expect(result.stderr.contains("do not apply to link-layer captures yet"))
    }
}
