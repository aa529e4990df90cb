import Foundation
import TestSupport
import Testing

/// `--peer` means the same in every command and every output format: each reads the capture in
/// the one analysis pass, whose selection keeps the peer's connections, errors, findings and
/// databases and leaves the other peer's out. (`lifecycle --format svg|html` drew every peer
/// before the pass: its loop never applied the selection.)
@Suite struct PeerEveryFormatTests {
    static let first = "11:22:33:44:55:66"
    static let second = "AA:BB:CC:DD:EE:01"

    /// Each command and format, with what in its output names a peer's connection: the address
    /// (decode names the connection handle instead).
    static let outputs: [[String]] = [
        ["lifecycle"], ["lifecycle", "--format", "json"], ["lifecycle", "--format", "jsonl"],
        ["lifecycle", "--format", "svg"], ["lifecycle", "--format", "html"],
        ["errors"], ["errors", "--format", "json"], ["errors", "--format", "jsonl"],
        ["diagnose"], ["diagnose", "--format", "json"], ["diagnose", "--format", "jsonl"],
        ["gatt"], ["gatt", "--format", "json"], ["gatt", "--format", "jsonl"],
    ]

    @Test(arguments: outputs) func theOtherPeerIsLeftOut(_ command: [String]) throws {
        let path = try Fixtures.temporaryFile(Self.twoPeers(), name: "two-peers.btsnoop")
        let all = try bletrace(command + [path])
        #expect(all.status == 0, "\(command): \(all.stderr)")
        #expect(all.stdout.contains(Self.first) && all.stdout.contains(Self.second), "\(command)")
        for (kept, other) in [(Self.first, Self.second), (Self.second, Self.first)] {
            let one = try bletrace(command + ["--peer", kept, path])
            #expect(one.status == 0, "\(command) --peer \(kept): \(one.stderr)")
            #expect(one.stdout.contains(kept), "\(command) --peer \(kept)")
            #expect(!one.stdout.contains(other), "\(command) --peer \(kept) shows \(other)")
            #expect(!one.stderr.contains("warning"), "\(command) --peer \(kept): \(one.stderr)")
        }
    }

    /// `stats` counts what the selection keeps: one connection, and only its records.
    @Test(arguments: [["stats", "--format", "json"], ["stats", "--format", "jsonl"]])
    func statsCountOnePeer(_ command: [String]) throws {
        let path = try Fixtures.temporaryFile(Self.twoPeers(), name: "two-peers.btsnoop")
        let all = try json(try bletrace(command + [path]).stdout)
        let one = try json(try bletrace(command + ["--peer", Self.first, path]).stdout)
        #expect(all["connections"] as? Int == 2)
        #expect(one["connections"] as? Int == 1)
        let records = { (document: [String: Any]) in document["records"] as? Int ?? -1 }
        #expect(records(one) > 0 && records(one) < records(all))
    }

    /// `decode` shows the records of the peer's connection, none of the other's (by handle:
    /// 0x0040 the first's, 0x0041 the second's).
    @Test(arguments: [
        (["decode"], "0x0040", "0x0041"), (["decode", "--format", "jsonl"], "\"handle\":64", "\"handle\":65"),
    ])
    func decodeShowsOnePeersRecords(_ command: [String], kept: String, other: String) throws {
        let path = try Fixtures.temporaryFile(Self.twoPeers(), name: "two-peers.btsnoop")
        let one = try bletrace(command + ["--peer", Self.first, path]).stdout
        let all = try bletrace(command + [path]).stdout
        #expect(one.contains(kept))
        #expect(!one.contains(other))
        #expect(all.contains(other))
    }

    /// Two LE connections, one to each peer: each with a discovered service, an ATT error and its
    /// own end (the first a supervision timeout, the second the peer's choice).
    static func twoPeers() -> [UInt8] {
        var capture = CraftedCapture(step: 100_000)
        let le16 = CraftedCapture.le16
        func acl(_ handle: Int, _ payload: [UInt8], sent: Bool) { capture.acl(handle, 0x0004, payload, sent: sent) }
        func link(_ handle: Int, peer: [UInt8], service: Int, refused: UInt8, reason: UInt8) {
            // LE Connection Complete, as central, to `peer` (public, least significant byte first).
            capture.event(0x3E, [0x01, 0] + le16(handle) + [0, 0] + peer + le16(24) + le16(0) + le16(72) + [0])
            // Discover Primary Services: one, 0x0001-0x0005.
            acl(handle, [0x10] + le16(0x0001) + le16(0xFFFF) + le16(0x2800), sent: true)
            acl(handle, [0x11, 0x06] + le16(0x0001) + le16(0x0005) + le16(service), sent: false)
            // A write the peer refuses.
            acl(handle, [0x12] + le16(0x0003) + [0x01], sent: true)
            acl(handle, [0x01, 0x12] + le16(0x0003) + [refused], sent: false)
            capture.event(0x05, [0] + le16(handle) + [reason])
        }
        link(0x40, peer: [0x66, 0x55, 0x44, 0x33, 0x22, 0x11], service: 0x180D, refused: 0x03, reason: 0x08)
        link(0x41, peer: [0x01, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA], service: 0x180F, refused: 0x05, reason: 0x13)
        return capture.bytes
    }
}
