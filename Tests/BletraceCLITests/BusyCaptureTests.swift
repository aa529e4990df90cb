import Foundation
import TestSupport
import Testing

/// A busy real capture (whoisbe-pongbot-last: 8018 records, 49 LE attempts and connections, 229
/// BR/EDR Page Timeouts, 243 scans; the shared folder's captures/public/SOURCES.md) must lead with its answer.
@Suite(.sharedCaptures) struct BusyCaptureTests {
    let busy = Fixtures.publicCapture("whoisbe-pongbot-last.btsnoop")

    @Test func lifecycleLeadsWithASummaryOfOutcomesReasonsPeersAndErrors() throws {
        let text = try bletrace("lifecycle", busy).stdout
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let summary = try #require(lines.firstIndex(of: "summary"))
        let firstConnection = try #require(lines.firstIndex { $0.hasPrefix("connection ") })
        let firstScan = try #require(lines.firstIndex { $0.hasPrefix("scan") })
        #expect(summary < 5)
        #expect(summary < firstScan && summary < firstConnection)
        let block = lines[summary..<firstScan].joined(separator: "\n")
        // SOURCES.md counts 229 Page Timeouts and 6 Connection Timeouts (tshark).
        #expect(block.contains("229 × Page Timeout (0x04)"))
        #expect(block.contains("6 × Connection Timeout (0x08) by the peer or link"))
        #expect(block.contains("peers:"))
        #expect(block.contains("errors:"))
    }

    @Test func brEdrFailuresAreReportedAsBrEdrWithoutACoreBluetoothError() throws {
        let text = try bletrace("lifecycle", busy).stdout
        #expect(!text.contains("CBError.unknown"))
        #expect(text.contains("BR/EDR"))
        let document = try json(try bletrace("lifecycle", busy, "--format", "json").stdout)
        let connections = try #require(document["connections"] as? [[String: Any]])
        let classic = connections.filter { $0["transport"] as? String == "classic" }
        #expect(classic.count == 229)
        #expect(classic.allSatisfy { $0["cb_error"] == nil && $0["status"] as? Int == 0x04 })
        let summary = try #require(document["summary"] as? [String: Any])
        #expect((summary["br_edr"] as? [String: Any])?["failed"] as? Int == 229)
        let errors = try #require(
            try json(try bletrace("errors", busy, "--format", "json").stdout)["errors"] as? [[String: Any]])
        let pageTimeouts = errors.filter { $0["code"] as? Int == 0x04 && $0["layer"] as? String == "hci" }
        #expect(pageTimeouts.count == 229)
        #expect(pageTimeouts.allSatisfy { $0["transport"] as? String == "classic" && $0["cb"] is NSNull })
    }

    @Test func emptyScansAreFoldedIntoOneLine() throws {
        let text = try bletrace("lifecycle", busy).stdout
        #expect(!text.contains("0 advertising reports from 0 devices"))
        #expect(text.contains("scans heard no advertising"))
        #expect(text.split(separator: "\n").count < 1500)
    }

    @Test func namesHeardInAdvertisingLabelConnectionsInTextJSONAndTimeline() throws {
        let document = try json(try bletrace("lifecycle", busy, "--format", "json").stdout)
        let connections = try #require(document["connections"] as? [[String: Any]])
        let named = try #require(connections.first { ($0["peer_name"] as? String)?.hasPrefix("NOVA_") == true })
        let name = try #require(named["peer_name"] as? String)
        let peer = try #require(named["peer"] as? String)
        #expect(try bletrace("lifecycle", busy).stdout.contains("peer \(peer) \"\(name)\""))
        #expect(try bletrace("lifecycle", busy, "--format", "svg").stdout.contains(name))
    }

    @Test func peerTransportAndTimeSelectConnectionsAndErrors() throws {
        let all = try #require(
            try json(try bletrace("lifecycle", busy, "--format", "json").stdout)["connections"] as? [[String: Any]])
        let le = try #require(
            try json(try bletrace("lifecycle", busy, "--format", "json", "--transport", "le").stdout)["connections"]
                as? [[String: Any]])
        #expect(le.count == all.filter { $0["transport"] as? String == "le" }.count)
        #expect(le.count == 49)
        // By name (its beginning, any case) and by address: the same connections.
        let named = try #require(all.first { ($0["peer_name"] as? String)?.hasPrefix("NOVA_") == true })
        let byName = try #require(
            try json(try bletrace("lifecycle", busy, "--format", "json", "--peer", "nova_").stdout)["connections"]
                as? [[String: Any]])
        let byAddress = try #require(
            try json(try bletrace("lifecycle", busy, "--format", "json", "--peer", named["peer"] as! String).stdout)[
                "connections"] as? [[String: Any]])
        #expect(!byName.isEmpty)
        #expect(byName.map { $0["id"] as? Int } == byAddress.map { $0["id"] as? Int })
        // A window keeps what overlaps it.
        let early = try #require(
            try json(try bletrace("lifecycle", busy, "--format", "json", "--to", "30").stdout)["connections"]
                as? [[String: Any]])
        #expect(!early.isEmpty && early.count < all.count)
        let first = try #require(try json(try bletrace("info", busy, "--format", "json").stdout)["first_ts_us"] as? Int)
        #expect(
            early.allSatisfy { (($0["attempt_ts_us"] ?? $0["connect_ts_us"]) as? Int ?? first) <= first + 30_000_000 })
        // errors and decode take the same options.
        let errors = try #require(
            try json(try bletrace("errors", busy, "--format", "json", "--transport", "br-edr").stdout)["errors"]
                as? [[String: Any]])
        #expect(errors.count == 229)
        let decoded = try jsonLines(
            try bletrace("decode", busy, "--format", "jsonl", "--from", "10", "--to", "20").stdout)
        #expect(!decoded.isEmpty)
        #expect(try bletrace("lifecycle", busy, "--from", "20", "--to", "10").status == 2)
    }

    @Test func briefGivesTheSummaryAndALinePerConnection() throws {
        let brief = try bletrace("lifecycle", busy, "--brief").stdout
        let lines = brief.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("connection ") }.count == 229 + 49)
        #expect(lines.count < 300)
        #expect(!brief.contains("advertising reports"))
        let errors = try bletrace("errors", busy, "--brief").stdout.split(separator: "\n")
        #expect(errors.allSatisfy { !$0.hasPrefix("  CoreBluetooth") })
        let decodeBrief = try bletrace("decode", busy, "--brief").stdout
        #expect(!decodeBrief.contains("Number Of Completed Packets"))
        #expect(!decodeBrief.contains("Vendor Command"))
    }
}
