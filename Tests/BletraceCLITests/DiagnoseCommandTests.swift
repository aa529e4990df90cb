import Foundation
import TestSupport
import Testing

/// `bletrace diagnose`: text, JSON, JSON Lines and the exit codes of --fail-on.
@Suite struct DiagnoseCommandTests {
    let capture = Fixtures.capture("att-errors.btsnoop")

    @Test func jsonListsEachFindingWithItsContract() throws {
        let result = try bletrace("diagnose", capture, "--format", "json")
        #expect(result.status == 0)
        let document = try json(result.stdout)
        #expect(document["version"] as? Int != nil)
        let findings = try #require(document["findings"] as? [[String: Any]])
        #expect(!findings.isEmpty)
        let counts = try #require(document["counts"] as? [String: Int])
        #expect(counts.values.reduce(0, +) == findings.count)
        for finding in findings {
            for key in ["rule", "severity", "frame", "evidence_frames", "summary", "coreBluetooth", "look_at"] {
                #expect(finding.keys.contains(key), "\(key)")
            }
            #expect((finding["evidence_frames"] as? [Int])?.contains(finding["frame"] as! Int) == true)
        }
        // Most serious first.
        let ranks = findings.map { ["error", "warning", "info"].firstIndex(of: $0["severity"] as! String)! }
        #expect(ranks == ranks.sorted())
    }

    @Test func jsonLinesCarryTheSameFindingsWithAVersionEach() throws {
        let document = try json(try bletrace("diagnose", capture, "--format", "json").stdout)
        let lines = try jsonLines(try bletrace("diagnose", capture, "--format", "jsonl").stdout)
        let findings = document["findings"] as! [[String: Any]]
        #expect(lines.count == findings.count)
        #expect(lines.allSatisfy { $0["version"] as? Int == document["version"] as? Int })
        #expect(lines.map { $0["rule"] as! String } == findings.map { $0["rule"] as! String })
    }

    @Test func textGivesEachFindingAndTheCountsBySeverity() throws {
        let document = try json(try bletrace("diagnose", capture, "--format", "json").stdout)
        let findings = document["findings"] as! [[String: Any]]
        let text = try bletrace("diagnose", capture).stdout
        for finding in findings {
            #expect(text.contains("frame \(finding["frame"] as! Int)"))
            #expect(text.contains(finding["rule"] as! String))
        }
        #expect(text.contains("look at: "))
        #expect(text.contains("CoreBluetooth: "))
        let counts = document["counts"] as! [String: Int]
        #expect(text.contains("summary: \(findings.count) findings: \(counts["error"]!) error"))
    }

    @Test func failOnExitsOneOnlyForFindingsThatSerious() throws {
        // att-errors has errors; pairing-retry only info (its refusal was retried).
        #expect(try bletrace("diagnose", capture, "--fail-on", "error").status == 1)
        #expect(try bletrace("diagnose", capture, "--fail-on", "warning").status == 1)
        let quiet = Fixtures.capture("pairing-retry.btsnoop")
        let severities = try jsonLines(try bletrace("diagnose", quiet, "--format", "jsonl").stdout).map { $0["severity"] as! String }
        #expect(!severities.contains("error") && !severities.contains("warning"))
        #expect(try bletrace("diagnose", quiet, "--fail-on", "error").status == 0)
        #expect(try bletrace("diagnose", quiet, "--fail-on", "warning").status == 0)
        #expect(try bletrace("diagnose", quiet).status == 0)
        #expect(try bletrace("diagnose", capture).status == 0)
        #expect(try bletrace("diagnose", capture, "--fail-on", "sometimes").status == 2)
    }

    @Test func theSelectionOptionsNarrowTheFindings() throws {
        let busy = Fixtures.publicCapture("whoisbe-pongbot-last.btsnoop")
        let all = try jsonLines(try bletrace("diagnose", busy, "--format", "jsonl").stdout)
        let peer = "C5:34:18:42:4C:43"
        let one = try jsonLines(try bletrace("diagnose", busy, "--format", "jsonl", "--peer", peer).stdout)
        #expect(!one.isEmpty && one.count < all.count)
        #expect(one.allSatisfy { $0["peer"] as? String == peer })
        let early = try jsonLines(try bletrace("diagnose", busy, "--format", "jsonl", "--to", "100").stdout)
        #expect(early.count < all.count)
    }

    @Test func theLifecycleSummaryLeadsWithTheFindingsCount() throws {
        let lines = try bletrace("lifecycle", capture).stdout.split(separator: "\n")
        let summary = try #require(lines.firstIndex(of: "summary"))
        #expect(lines[summary + 1].hasPrefix("  findings: "))
    }
}
