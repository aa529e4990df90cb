import Foundation
import TestSupport
import Testing
import TraceFiles

/// `bletrace diagnose --format json` of the three rules of issue 43 §5 on the captures made for
/// them (Captures/README.md): each finding's rule, frame, evidence frames (Wireshark's, 1-based,
/// found from the bytes here), values and Android object.
@Suite struct ProcedureRulesJSONTests {
    /// The findings of `rule` in the JSON document of `capture`.
    func findings(_ capture: String, rule: String) throws -> [[String: Any]] {
        let result = try bletrace("diagnose", Fixtures.capture(capture), "--format", "json")
        let document = try json(result.stdout)
        return (document["findings"] as? [[String: Any]] ?? []).filter { $0["rule"] as? String == rule }
    }

    /// 1-based frames of the records that match.
    func frames(_ capture: String, _ match: (OwnedRecord) -> Bool) throws -> [Int] {
        try Fixtures.readAll(Fixtures.capture(capture)).records.filter(match).map { $0.index + 1 }
    }

    @Test func theEndAfterADataLengthUpdate() throws {
        let name = "ended-after-data-length.btsnoop"
        let found = try findings(name, rule: "link-ended-after-procedure")
        #expect(found.count == 1)
        let finding = try #require(found.first)
        // LE Set Data Length (0x2022), LE Data Length Change (LE meta 0x07), Disconnection Complete.
        let start = try frames(name) { $0.kind == .command && $0.bytes.starts(with: [0x22, 0x20]) }
        let change = try frames(name) { $0.kind == .event && $0.bytes.starts(with: [0x3E]) && $0.bytes[2] == 0x07 }
        let end = try frames(name) { $0.kind == .event && $0.bytes.first == 0x05 }
        #expect(finding["severity"] as? String == "error")
        #expect(finding["frame"] as? Int == end.first)
        #expect(finding["evidence_frames"] as? [Int] == start + change + end)
        #expect((finding["values"] as? [String: Double])?["after_s"].map { $0 > 0 && $0 < 2 } == true)
        let android = try #require(finding["android"] as? [String: Any])
        #expect(android["status"] as? Int == 19)
        #expect(android["callback"] as? String == "onConnectionStateChange")
    }

    @Test func theValuesTooLong() throws {
        let name = "value-too-long.btsnoop"
        let found = try findings(name, rule: "att-value-too-long")
        #expect(found.count == 3)
        #expect(found.allSatisfy { $0["severity"] as? String == "warning" })
        // The Execute Write Request (ATT 0x18 sent) and the Error Response to it (0x01 received).
        let execute = try frames(name) {
            $0.kind == .acl && $0.direction == .sent && $0.bytes.count > 8 && $0.bytes[8] == 0x18
        }
        let refusal = try frames(name) {
            $0.kind == .acl && $0.direction == .received && $0.bytes.count > 12 && $0.bytes[8] == 0x01
        }
        let queue = try #require(found.first { $0["frame"] as? Int == execute.first })
        #expect((queue["evidence_frames"] as? [Int])?.suffix(2) == [execute[0], refusal[0]])
        #expect(queue["values"] as? [String: Double] == ["length": 580, "count": 1])
        let android = try #require(queue["android"] as? [String: Any])
        #expect(android["status"] as? Int == 13)
        #expect(android["callback"] as? String == "onReliableWriteCompleted")
        // The first: the Write Request over ATT_MTU 23, with its MTU among the values.
        #expect((found.first?["values"] as? [String: Double])?["mtu"] == 23)
        #expect(found.first?["android"] is NSNull)
    }

    @Test func theScanFilterThatCannotMatch() throws {
        let name = "scan-filter-unmatched.btsnoop"
        let found = try findings(name, rule: "scan-filter-never-matches-peer")
        #expect(found.count == 1)
        let finding = try #require(found.first)
        // The APCF command (0xFD57) with sub-command 0x03 (a service UUID filter).
        let filter = try frames(name) {
            $0.kind == .command && $0.bytes.starts(with: [0x57, 0xFD]) && $0.bytes[3] == 0x03
        }
        #expect(finding["frame"] as? Int == filter.first)
        #expect((finding["evidence_frames"] as? [Int])?.first == filter.first)
        #expect((finding["evidence_frames"] as? [Int])?.count == 4)
        #expect(finding["connection"] as? Int == 1)
        #expect(finding["android"] is NSNull)
        #expect((finding["summary"] as? String)?.contains("the capture does not say") == true)
    }
}
