import Reports
import TestSupport
import Testing
import TraceFiles
import Wire

@testable import Lifecycle

/// The connection that never came (issue 43 §3), on the Bumble captures made for it
/// (Captures/README.md, "diagnose: the connection that never came"). As in
/// ``DiagnoseCaptureTests``, the records each finding must name are found from the raw bytes.
@Suite struct NeverConnectedCaptureTests {
    typealias Bytes = DiagnoseCaptureTests

    /// LE Create Connection (0x200D) and LE Create Connection Cancel (0x200E) of a capture.
    func attemptAndCancel(_ records: [OwnedRecord]) throws -> (attempt: OwnedRecord, cancel: OwnedRecord) {
        let attempt = try #require(Bytes.commands(records, opcode: 0x200D).first)
        let cancel = try #require(Bytes.commands(records, opcode: 0x200E).first)
        #expect(attempt.index < cancel.index)
        return (attempt, cancel)
    }

    @Test func anAttemptCancelledAtThirtySecondsIsAndroidsTimeout() throws {
        let name = "connect-timeout.btsnoop"
        let records = try Bytes.records(name)
        let (attempt, cancel) = try attemptAndCancel(records)
        let waited = cancel.timestamp.seconds(since: attempt.timestamp)
        #expect(waited >= 30 && waited < 31)
        // The peer's last LE Advertising Report (subevent 0x02) came before the attempt, and none after.
        let reports = DiagnosisProcedureCaptureTests.le(records, subevent: 0x02)
        let last = try #require(reports.last)
        #expect(last.index < attempt.index)
        #expect(
            !records.contains {
                $0.kind == .event && $0.bytes.first == 0x3E && $0.index > attempt.index && $0.bytes[2] == 0x01
            }, "no LE Connection Complete")

        let findings = try diagnose(path: Fixtures.capture(name))
        let timedOut = findings.of(.connectTimedOut)
        #expect(timedOut.count == 1)
        let finding = try #require(timedOut.first)
        #expect(finding.record == attempt.index)
        #expect(finding.evidence == [attempt.index])
        #expect(
            finding.summary.contains(
                "to F0:F1:F2:F3:F4:05 \"bletrace-hr\" (frame \(attempt.index + 1)) was cancelled by this host after \(Wording.duration(waited)), Android's direct-connection timeout"
            ))
        #expect(
            finding.summary.contains(
                "and the capture's scans last heard it advertising connectably \(Wording.duration(attempt.timestamp.seconds(since: last.timestamp))) before the attempt."
            ))
        #expect(finding.coreBluetooth?.contains("does not time out") == true)
        #expect(finding.android?.status == 133)
        #expect(finding.android?.later?.status == 147)
        #expect(finding.android?.grade == .hypothesis)
        // Heard a second before, connectably: not a peer the scans missed.
        #expect(findings.of(.connectToUnheardPeer).isEmpty)
    }

    @Test func anAttemptToAnAddressNoScanHeardIsOneToAnUnheardPeer() throws {
        let name = "connect-unheard.btsnoop"
        let records = try Bytes.records(name)
        let (attempt, _) = try attemptAndCancel(records)
        // The peer address (offset 6 of the command's parameters, after opcode and length: 3 + 6)
        // is random (its type at offset 3 + 5) and resolvable (01 in its top two bits).
        #expect(attempt.bytes[3 + 5] == 0x01)
        #expect(attempt.bytes[3 + 11] & 0xC0 == 0x40)
        #expect(DiagnosisProcedureCaptureTests.le(records, subevent: 0x02).isEmpty, "the scan heard nobody")
        #expect(!Bytes.commands(records, opcode: 0x200C).isEmpty, "but it scanned")

        let findings = try diagnose(path: Fixtures.capture(name))
        let unheard = findings.of(.connectToUnheardPeer)
        #expect(unheard.count == 1)
        let finding = try #require(unheard.first)
        #expect(finding.record == attempt.index)
        #expect(finding.severity == .warning)
        #expect(finding.summary.contains("but the capture's scans never heard it advertising before the attempt"))
        #expect(finding.summary.contains("resolvable private"))
        #expect(finding.summary.contains("the host cancelled it after"))
        #expect(finding.android == nil, "a cancel after 2 s is the app's own, no failure on Android")
        #expect(findings.of(.connectTimedOut).isEmpty)
    }

    /// On the shared captures (real phones), each attempt the rule names is, in the bytes, an LE
    /// Create Connection whose cancel came 29.5 s to 32 s later, with no connection completed
    /// in between; and every such attempt is named.
    @Test func onTheSharedCapturesEachTimedOutAttemptIsOneInTheBytes() throws {
        let captures = Fixtures.sharedCaptures("public") + Fixtures.sharedCaptures("field")
        if captures.isEmpty {
            print(
                "onTheSharedCapturesEachTimedOutAttemptIsOneInTheBytes: no shared captures checked: \(Fixtures.sharedMissing)"
            )
            return
        }
        var named = 0
        for path in captures {
            // (Over-the-air captures are not diagnosed.)
            guard let findings = try? diagnose(path: path), let (records, _) = try? Fixtures.readAll(path) else {
                continue
            }
            // The attempts the bytes show timed out: a Create Connection (0x200D, 0x2043), then
            // a Cancel (0x200E) before any other Create Connection or LE Connection Complete.
            var expected: [Int] = []
            var pending: OwnedRecord?
            for record in records {
                if record.kind == .command, record.bytes.count >= 2 {
                    let opcode = UInt16(record.bytes[0]) | UInt16(record.bytes[1]) << 8
                    if opcode == 0x200D || opcode == 0x2043 { pending = record }
                    if opcode == 0x200E, let attempt = pending {
                        let waited = record.timestamp.seconds(since: attempt.timestamp)
                        if waited >= 29.5 && waited <= 32 { expected.append(attempt.index) }
                        pending = nil
                    }
                } else if record.kind == .event, record.bytes.count > 3, record.bytes[0] == 0x3E,
                    [0x01, 0x0A].contains(record.bytes[2]), record.bytes[3] == 0
                {
                    pending = nil
                }
            }
            let found = findings.of(.connectTimedOut).map(\.record).sorted()
            #expect(found == expected, "\(path)")
            named += found.count
        }
        print(
            "onTheSharedCapturesEachTimedOutAttemptIsOneInTheBytes: \(named) attempts on \(captures.count) shared captures"
        )
        #expect(named > 0)
    }

    /// A capture with no scan says nothing of whether the peer was there; an attempt that
    /// connected is no finding.
    @Test(arguments: [
        "cancelled-connect.btsnoop", "reconnect-supervision-timeout.btsnoop", "restore-pending-connection.btsnoop",
    ])
    func noFindingWithoutAScanOrForAConnection(_ name: String) throws {
        let findings = try diagnose(path: Fixtures.capture(name))
        #expect(findings.of(.connectToUnheardPeer).isEmpty)
        #expect(findings.of(.connectTimedOut).isEmpty)
    }

    /// Two attempts to a peer while another is under way (Captures/README.md, `connect-while-busy`):
    /// one while the first attempt is pending, refused by the controller, and one while connected.
    /// The records are found from the bytes: every LE Create Connection, its Command Status, and
    /// the LE Connection Complete.
    @Test func aConnectWhileAnotherToThePeerIsUnderWayIsOneWhileBusy() throws {
        let name = "connect-while-busy.btsnoop"
        let records = try Bytes.records(name)
        let attempts = Bytes.commands(records, opcode: 0x200D)
        #expect(attempts.count == 3)
        // Command Status (0x0F) of LE Create Connection (opcode at 4-5): its status at 2.
        let statuses = records.filter {
            $0.kind == .event && $0.bytes.first == 0x0F && $0.bytes.count >= 6 && $0.bytes[4] == 0x0D
                && $0.bytes[5] == 0x20
        }
        #expect(statuses.map { $0.bytes[2] } == [0x00, 0x0C, 0x00])
        let complete = try #require(DiagnosisProcedureCaptureTests.le(records, subevent: 0x01).first)
        #expect(attempts[1].index < complete.index && complete.index < attempts[2].index)

        let findings = try diagnose(path: Fixtures.capture(name)).of(.connectWhileBusy)
        try #require(findings.map(\.record) == [attempts[1].index, attempts[2].index])
        let pending = findings[0], connected = findings[1]
        #expect(pending.evidence == [attempts[0].index, attempts[1].index, statuses[1].index])
        #expect(
            pending.summary.contains(
                "while its attempt to connect to it (frame \(attempts[0].index + 1)) was still pending; the controller refused it (Command Disallowed 0x0c)."
            ))
        #expect(pending.android?.status == 133)
        #expect(pending.coreBluetooth?.contains("the app waits") == true)
        #expect(connected.evidence == [complete.index, attempts[2].index])
        #expect(
            connected.summary.contains(
                "while its connection to it (connection 1, frame \(complete.index + 1)) was up; it never completed, and the host cancelled it after"
            ))
        // The first attempt, made when nothing else was under way, is none.
        #expect(!findings.contains { $0.record == attempts[0].index })
    }

    /// No capture of ours but that one makes an attempt while another to the same peer is under
    /// way (each connects once at a time, or again after the link ended).
    @Test func noOtherCaptureOfOursConnectsWhileBusy() throws {
        for path in CaptureFitnessTests.ours where !path.hasSuffix("/connect-while-busy.btsnoop") {
            #expect(try diagnose(path: path).of(.connectWhileBusy).isEmpty, "\(path)")
        }
    }
}
