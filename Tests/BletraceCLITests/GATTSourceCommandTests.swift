import Foundation
import TestSupport
import Testing

/// `--gatt FILE` on `gatt`, `lifecycle` and `replay`: the database of a peer the capture never
/// discovered, from a capture that did or from `bletrace gatt --format json`.
@Suite struct GATTSourceCommandTests {
    /// A btsnoop (H4) file of `records`: (HCI packet type, received, hex), 100 ms apart.
    static func btsnoop(_ records: [(type: UInt8, received: Bool, hex: String)]) throws -> String {
        func be32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
        func be64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * $0)) } }
        var out = Array("btsnoop\0".utf8) + be32(1) + be32(1002)
        for (index, record) in records.enumerated() {
            let packet = [record.type] + Self.bytes(hex: record.hex)
            let flags: UInt32 = (record.received ? 1 : 0) | (record.type == 0x04 || record.type == 0x01 ? 2 : 0)
            out += be32(UInt32(packet.count)) + be32(UInt32(packet.count)) + be32(flags) + be32(0)
            out += be64(0x00E0_3AB4_4A67_6000 + 1_700_000_000_000_000 + UInt64(index) * 100_000) + packet
        }
        return try Fixtures.temporaryFile(out, name: "cached-handles.btsnoop")
    }

    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    /// An ATT PDU on handle 1.
    static func att(_ pdu: String, received: Bool) -> (type: UInt8, received: Bool, hex: String) {
        let count = bytes(hex: pdu).count
        func le16(_ v: Int) -> String { String(format: "%02x%02x", v & 0xFF, v >> 8) }
        return (0x02, received, "0120 \(le16(count + 4)) \(le16(count)) 0400 \(pdu)")
    }

    /// Heart Rate used with cached handles, never discovered: a read of 0x0013, a subscription
    /// (CCCD 0x0011), two notifications of 0x0010.
    static func cachedHandles() throws -> String {
        try btsnoop([
            (0x04, true, "3e 13 01 00 0100 00 01 05f4f3f2f1f0 2800 0000 2a00 00"),
            att("0a 1300", received: false), att("0b 01", received: true),
            att("12 1100 0100", received: false), att("13", received: true),
            att("1b 1000 0050", received: true), att("1b 1000 0051", received: true),
        ])
    }

    static let discovered = Fixtures.capture("reconnect-supervision-timeout.btsnoop")

    func count(_ flow: String, _ text: String) -> Int { flow.split(separator: "\n").filter { $0.contains(text) }.count }

    @Test func withoutGATTTheReplayInfersTheDatabaseFromTheTraffic() throws {
        let result = try bletrace("replay", try Self.cachedHandles())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(count(result.stdout, "inferred from the traffic") == 1)
        #expect(
            count(
                result.stdout,
                "didUpdateValueFor peripheral=F0:F1:F2:F3:F4:05 characteristic=B1E70000-0000-0000-0000-000000000010")
                == 2)
        #expect(!result.stdout.contains("divergence"))
    }

    @Test func aCaptureThatDiscoveredAndItsJSONGiveTheSameReplay() throws {
        let capture = try Self.cachedHandles()
        let fromCapture = try bletrace("replay", capture, "--gatt", Self.discovered)
        #expect(fromCapture.status == 0, "\(fromCapture.stderr)")
        #expect(fromCapture.stdout.contains("app: mirror  --gatt reconnect-supervision-timeout.btsnoop"))
        #expect(count(fromCapture.stdout, "didUpdateValueFor peripheral=F0:F1:F2:F3:F4:05 characteristic=2A37") == 2)
        #expect(count(fromCapture.stdout, "didUpdateValueFor peripheral=F0:F1:F2:F3:F4:05 characteristic=2A38") == 1)
        #expect(count(fromCapture.stdout, "setNotifyValue peripheral=F0:F1:F2:F3:F4:05 characteristic=2A37") == 1)

        let json = try bletrace("gatt", Self.discovered, "--format", "json")
        #expect(json.status == 0)
        let file = try Fixtures.temporaryFile(Array(json.stdout.utf8), name: "hr.json")
        let fromJSON = try bletrace("replay", capture, "--gatt", file)
        #expect(fromJSON.status == 0, "\(fromJSON.stderr)")
        func events(_ flow: String) -> [Substring] { flow.split(separator: "\n").filter { !$0.hasPrefix("#") } }
        #expect(events(fromJSON.stdout) == events(fromCapture.stdout))
    }

    @Test func gattAndLifecycleUseTheGivenDatabase() throws {
        let capture = try Self.cachedHandles()
        let listing = try bletrace("gatt", capture, "--gatt", Self.discovered)
        #expect(listing.status == 0, "\(listing.stderr)")
        #expect(listing.stdout.contains("its server, as --gatt reconnect-supervision-timeout.btsnoop gives it"))
        #expect(listing.stdout.contains("2A37 Heart Rate Measurement"))
        let json = try bletrace("gatt", capture, "--gatt", Self.discovered, "--format", "json")
        #expect(
            json.stdout.contains("\"services_from\" : \"--gatt reconnect-supervision-timeout.btsnoop\""),
            "\(json.stdout.prefix(400))")

        let without = try bletrace("lifecycle", capture, "--format", "json")
        #expect(!without.stdout.contains("2A37"))
        let with = try bletrace("lifecycle", capture, "--format", "json", "--gatt", Self.discovered)
        #expect(with.status == 0, "\(with.stderr)")
        #expect(with.stdout.contains("2A37"))
    }

    @Test func aGATTFileThatCannotBeReadIsBadInput() throws {
        let capture = try Self.cachedHandles()
        for command in ["replay", "gatt", "lifecycle"] {
            let missing = try bletrace(command, capture, "--gatt", "/nonexistent/db.json")
            #expect(missing.status == 2, "\(command)")
            #expect(missing.stderr.contains("--gatt"), "\(command): \(missing.stderr)")
        }
        let notJSON = try Fixtures.temporaryFile(Array("{\"peers\": 1}".utf8), name: "bad.json")
        let bad = try bletrace("replay", capture, "--gatt", notJSON)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("not the JSON of bletrace gatt --format json"))
        let help = try bletrace("replay", "--help")
        #expect(help.stdout.contains("--gatt <file>"))
    }
}
