import Foundation
import InlineSnapshotTesting
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

    /// The text report, whole: each finding's head line, sentence, CoreBluetooth, what to look at
    /// and evidence, then the counts by severity and by rule. (Inline snapshots: a change of
    /// wording shows here as a diff to review.)
    @Test func textGivesEachFindingAndTheCountsBySeverity() throws {
        let result = try bletrace("diagnose", capture)
        #expect(result.status == 0)
        assertInlineSnapshot(of: result.stdout, as: .lines) {
            """
            error   +0.378563  frame 85  connection 1 (handle 0x0001, F0:F1:F2:F3:F4:05)  write-refused
              The peer's server refused Write Request of 0x001d (EEE2) with Write Not Permitted (0x03).
              CoreBluetooth: CBATTError.writeNotPermitted (3) in peripheral(_:didWriteValueFor:error:)
              Android: onCharacteristicWrite, status 3 GATT_WRITE_NOT_PERMITTED [documented]
              look at: the value written (its length and format) and the characteristic's permissions on the accessory
              evidence: frame 85

            error   +0.430013  frame 88  connection 1 (handle 0x0001, F0:F1:F2:F3:F4:05)  security-refusal-not-retried
              The peer's server refused Write Request of 0x001f (EEE3) with Insufficient Authentication, and the request was not sent again on an encrypted link.
              CoreBluetooth: CBATTError.insufficientAuthentication (5) in peripheral(_:didWriteValueFor:error:)
              Android: onCharacteristicWrite, status 5 GATT_INSUFFICIENT_AUTHENTICATION [documented]
              look at: whether the accessory requires a bond for this attribute and pairing could happen (the pairing prompt, the accessory's IO capabilities)
              evidence: frame 88

            error   +0.533006  frame 94  connection 1 (handle 0x0001, F0:F1:F2:F3:F4:05)  write-refused
              The peer's server refused Write Request of 0x0021 (EEE4) with Application Error (0x80).
              CoreBluetooth: CBATTError code 128 in peripheral(_:didWriteValueFor:error:)
              Android: onCharacteristicWrite, status 128 GATT_NO_RESOURCES [documented]
              look at: the value written (its length and format) and the characteristic's permissions on the accessory
              evidence: frame 94

            warning +0.481339  frame 91  connection 1 (handle 0x0001, F0:F1:F2:F3:F4:05)  request-outside-database
              Read Request of 0x00f0, a handle outside the database discovery revealed, was refused with Invalid Handle.
              CoreBluetooth: CBATTError.invalidHandle (1) (no callback: the attribute is not in the database discovery revealed, and a CoreBluetooth app cannot address it (the captured stack used the handle directly))
              Android: onCharacteristicRead, status 1 GATT_INVALID_HANDLE [documented]
              look at: the client's hard-coded or cached handles (a stale cache after a firmware update); a CoreBluetooth app cannot send this
              evidence: frame 91

            warning +0.685537  frame 100  connection 1 (handle 0x0001, F0:F1:F2:F3:F4:05)  host-disconnected-after-refusal
              This host disconnected 0.153 s after the peer's server refused Write Request of 0x0021 with Application Error (frame 94).
              CoreBluetooth: CBATTError code 128 in peripheral(_:didWriteValueFor:error:), then the app's cancelPeripheralConnection: didDisconnectPeripheral with no error
              Android: onCharacteristicWrite, status 128 GATT_NO_RESOURCES [documented]
              look at: the app's handling of this error: whether disconnecting is the intended reaction, or the request can be fixed or retried (and why the accessory refuses it)
              evidence: frames 94, 100

            info    +0.265218  frame 31  connection 1 (handle 0x0001, F0:F1:F2:F3:F4:05)  connection-traffic
              Traffic: 22 requests answered in min 0.294 ms, median 0.47 ms, p95 0.795 ms, max 0.919 ms.
              look at: the latencies against what the app expects (a slow answer is the accessory's server, or a long connection interval)
              evidence: frame 31

            info    +0.265218  frame 31  connection 1 (handle 0x0001, F0:F1:F2:F3:F4:05)  link-parameters-outside-apple-guidelines
              The link ran with interval 15 ms, latency 0, supervision timeout 720 ms, outside Apple's guidelines for accessories: supervision timeout 0.72 s is not between 2 s and 6 s.
              look at: the central's choice (these are the parameters in force, not a request); with an iPhone as central, the parameters the accessory asks for
              evidence: frame 31

            summary: 7 findings: 3 errors, 2 warnings, 2 info
                   2  error   write-refused
                   1  error   security-refusal-not-retried
                   1  warning host-disconnected-after-refusal
                   1  warning request-outside-database
                   1  info    connection-traffic
                   1  info    link-parameters-outside-apple-guidelines

            """
        }
    }

    @Test(.sharedCaptures) func textOfAPublicCaptureWithNoFindings() throws {
        assertInlineSnapshot(
            of: try bletrace("diagnose", Fixtures.publicCapture("fotonick-hciparse-test00.pklg")).stdout, as: .lines
        ) {
            """
            no findings

            summary: 0 findings

            """
        }
    }

    @Test func minSeverityWarningListsOnlyWarningsAndErrorsAndCountsThose() throws {
        let text = try bletrace("diagnose", Fixtures.capture("bond-lost.btsnoop"), "--min-severity", "warning").stdout
        assertInlineSnapshot(of: text, as: .lines) {
            """
            error   +1.402804  frame 119  connection 2 (handle 0x0001, F0:F1:F2:F3:F4:05 "bletrace-hr")  link-ended-bond-missing
              Encryption with the keys this host holds for the peer failed with PIN or Key Missing (0x06); the two paired on connection 1 (frame 74): the peer no longer has the bond.
              CoreBluetooth: CBError.peerRemovedPairingInformation (14): the user must forget the device in Settings > Bluetooth before pairing again [hypothesis: which HCI status iOS reads this from is not documented]
              Android: onConnectionStateChange, status 0 GATT_SUCCESS [documented]
              look at: the accessory's bond storage (a factory reset, or bonds lost on reboot); the app should tell the user to forget the device
              evidence: frames 74, 119, 122

            warning +2.078573  frame 137  connection 3 (handle 0x0001, F0:F1:F2:F3:F4:05 "bletrace-hr")  bond-not-kept
              The peer paired again on connection 3 after pairing on connection 1: the bond of the first pairing was not kept by one side.
              CoreBluetooth: no callback; the user may be asked to pair again each time
              look at: the Bonding_Flags of both Pairing Request and Response, and the accessory's bond storage
              evidence: frames 74, 137

            summary: 2 findings: 1 error, 1 warning, 0 info
                   1  error   link-ended-bond-missing
                   1  warning bond-not-kept
            Secrets: the capture holds the LTK of 2 bonded devices, 10 pairing confirm/random values, 2 P-256 keys or DHKeys, 2 identity addresses: run bletrace redact before sharing.

            """
        }
    }

    @Test(arguments: ["error", "warning", "info"])
    func minSeverityKeepsExactlyTheFindingsThatSerious(_ minimum: String) throws {
        let ranks = ["error": 0, "warning": 1, "info": 2]
        let all = try jsonLines(try bletrace("diagnose", capture, "--format", "jsonl").stdout)
        let kept = try jsonLines(
            try bletrace("diagnose", capture, "--format", "jsonl", "--min-severity", minimum).stdout)
        let expected = all.filter { ranks[$0["severity"] as! String]! <= ranks[minimum]! }
        #expect(kept.map { $0["frame"] as! Int } == expected.map { $0["frame"] as! Int })
        #expect(kept.map { $0["rule"] as! String } == expected.map { $0["rule"] as! String })
        // att-errors has findings of each severity, so each level keeps a different number.
        #expect(Set(all.map { $0["severity"] as! String }) == ["error", "warning", "info"])
        let document = try json(try bletrace("diagnose", capture, "--format", "json", "--min-severity", minimum).stdout)
        let counts = try #require(document["counts"] as? [String: Int])
        #expect(counts.values.reduce(0, +) == expected.count)
    }

    @Test func minSeverityDecidesWhatFailOnJudges() throws {
        // att-errors has errors and warnings: --fail-on error fails whatever is listed with them.
        #expect(try bletrace("diagnose", capture, "--min-severity", "error", "--fail-on", "error").status == 1)
        // short-key has one warning and no error: listed, it fails --fail-on warning.
        let warningOnly = Fixtures.capture("short-key.btsnoop")
        #expect(try bletrace("diagnose", warningOnly, "--min-severity", "warning", "--fail-on", "warning").status == 1)
        #expect(try bletrace("diagnose", warningOnly, "--min-severity", "warning", "--fail-on", "error").status == 0)
        // A --fail-on that --min-severity hides is an argument error.
        let refused = try bletrace("diagnose", warningOnly, "--min-severity", "error", "--fail-on", "warning")
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--min-severity error"))
        #expect(try bletrace("diagnose", capture, "--min-severity", "notice").status == 2)
    }

    @Test func failOnExitsOneOnlyForFindingsThatSerious() throws {
        // att-errors has errors; pairing-retry only info (its refusal was retried).
        #expect(try bletrace("diagnose", capture, "--fail-on", "error").status == 1)
        #expect(try bletrace("diagnose", capture, "--fail-on", "warning").status == 1)
        let quiet = Fixtures.capture("pairing-retry.btsnoop")
        let severities = try jsonLines(try bletrace("diagnose", quiet, "--format", "jsonl").stdout).map {
            $0["severity"] as! String
        }
        #expect(!severities.contains("error") && !severities.contains("warning"))
        #expect(try bletrace("diagnose", quiet, "--fail-on", "error").status == 0)
        #expect(try bletrace("diagnose", quiet, "--fail-on", "warning").status == 0)
        #expect(try bletrace("diagnose", quiet).status == 0)
        #expect(try bletrace("diagnose", capture).status == 0)
        #expect(try bletrace("diagnose", capture, "--fail-on", "sometimes").status == 2)
    }

    @Test(.sharedCaptures) func theSelectionOptionsNarrowTheFindings() throws {
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
