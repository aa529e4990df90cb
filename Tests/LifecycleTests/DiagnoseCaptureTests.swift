import Reports
import TestSupport
import Testing
import TraceFiles
import Wire

@testable import Lifecycle

/// The rules that had only hand-built records, on the Bumble captures made for them
/// (Captures/README.md, "Diagnose captures"). The records each finding must name are found here
/// from the raw bytes of the capture (HCI opcodes, event codes, status and reason bytes, L2CAP
/// and SMP codes), not from the analysis.
@Suite struct DiagnoseCaptureTests {
    /// The records of a capture, with their index.
    static func records(_ name: String) throws -> [OwnedRecord] {
        let (records, fault) = try Fixtures.readAll(Fixtures.capture(name))
        #expect(fault == nil)
        return records
    }

    /// Commands with this opcode (Core 6.0, Vol 4, Part E, §5.4.1: opcode first, little-endian).
    static func commands(_ records: [OwnedRecord], opcode: UInt16) -> [OwnedRecord] {
        records.filter {
            $0.kind == .command && $0.bytes.count >= 2 && UInt16($0.bytes[0]) | UInt16($0.bytes[1]) << 8 == opcode
        }
    }

    /// Events with this code whose parameter at `offset` (after code and length) is `value`.
    static func events(_ records: [OwnedRecord], code: UInt8, parameter offset: Int? = nil, is value: UInt8? = nil)
        -> [OwnedRecord]
    {
        records.filter { record in
            guard record.kind == .event, record.bytes.first == code else { return false }
            guard let offset, let value else { return true }
            return record.bytes.count > 2 + offset && record.bytes[2 + offset] == value
        }
    }

    /// ACL records whose L2CAP frame is on `channel` and whose payload starts with `code`.
    static func l2cap(_ records: [OwnedRecord], channel: UInt16, code: UInt8, _ direction: Direction) -> [OwnedRecord] {
        records.filter { record in
            guard record.kind == .acl, record.direction == direction, record.bytes.count >= 9 else { return false }
            return UInt16(record.bytes[6]) | UInt16(record.bytes[7]) << 8 == channel && record.bytes[8] == code
        }
    }

    @Test func llResponseTimeoutNamesTheConnectionUpdateThePeerNeverAnswered() throws {
        let records = try Self.records("ll-response-timeout.btsnoop")
        let update = try #require(Self.commands(records, opcode: 0x2013).first)
        // LE Connection Update Complete (LE Meta 0x3E, subevent 0x03) with status 0x22.
        let complete = try #require(Self.events(records, code: 0x3E, parameter: 1, is: 0x22).first)
        #expect(complete.bytes[2] == 0x03)
        let lost = try #require(Self.events(records, code: 0x05, parameter: 3, is: 0x22).first)
        // What the capture shows: 40 s between the update and its failure.
        #expect(complete.timestamp.seconds(since: update.timestamp) >= 40)

        let findings = try diagnose(path: Fixtures.capture("ll-response-timeout.btsnoop"))
        let finding = try #require(findings.of(.llResponseTimeout).first)
        #expect(finding.record == lost.index)
        #expect(finding.evidence == [update.index, complete.index, lost.index])
        #expect(
            finding.summary.contains(
                "connection update procedure completed with the same status (frame \(complete.index + 1)), started at frame \(update.index + 1)"
            ))
        // Nothing reads the loss as a supervision timeout.
        #expect(findings.of(.supervisionTimeout).isEmpty)
    }

    @Test func aSupervisionTimeoutRightAfterAParameterUpdateNamesTheUpdate() throws {
        let records = try Self.records("timeout-after-update.btsnoop")
        // LE Connection Update Complete (subevent 0x03), success; the loss (reason 0x08) after it.
        let update = try #require(Self.events(records, code: 0x3E, parameter: 0, is: 0x03).first)
        #expect(update.bytes[3] == 0x00)
        let lost = try #require(Self.events(records, code: 0x05, parameter: 3, is: 0x08).first)
        let lastReceived = try #require(
            records.last { $0.index < lost.index && $0.kind == .acl && $0.direction == .received })
        #expect(lost.timestamp.seconds(since: update.timestamp) < 5)

        let finding = try #require(
            try diagnose(path: Fixtures.capture("timeout-after-update.btsnoop")).of(.supervisionTimeout).first)
        #expect(finding.record == lost.index)
        #expect(finding.evidence == [lastReceived.index, update.index, lost.index])
        #expect(
            finding.summary.contains(
                "after a connection parameter update (frame \(update.index + 1): interval 45 ms, latency 0, supervision timeout 500 ms)"
            ))
    }

    @Test func unacceptableParametersNameTheRequestTheCentralRefused() throws {
        let records = try Self.records("unacceptable-parameters.btsnoop")
        // L2CAP LE signalling (CID 5): Connection Parameter Update Request 0x12 received, Response 0x13 sent.
        let request = try #require(Self.l2cap(records, channel: 5, code: 0x12, .received).first)
        let response = try #require(Self.l2cap(records, channel: 5, code: 0x13, .sent).first)
        let lost = try #require(Self.events(records, code: 0x05, parameter: 3, is: 0x3B).first)

        let findings = try diagnose(path: Fixtures.capture("unacceptable-parameters.btsnoop"))
        let end = try #require(findings.of(.unacceptableParameters).first)
        #expect(end.record == lost.index)
        #expect(end.evidence == [request.index, lost.index])
        #expect(end.summary.contains("interval 7.5 ms-10 ms, latency 0, timeout 1000 ms (frame \(request.index + 1))"))
        let asked = try #require(findings.of(.requestedParameters).first)
        #expect(asked.record == request.index)
        #expect(asked.evidence == [request.index, response.index])
        #expect(asked.summary.contains("The peer asked"))
    }

    @Test func pinOrKeyMissingAfterABondIsThePeerRemovingItsPairingInformation() throws {
        let records = try Self.records("bond-lost.btsnoop")
        // SMP (CID 6) Pairing Requests sent: connection 1's, then connection 3's.
        let pairings = Self.l2cap(records, channel: 6, code: 0x01, .sent)
        #expect(pairings.count == 2)
        // Encryption Change (0x08) with status 0x06, and the disconnection after it.
        let refused = try #require(Self.events(records, code: 0x08, parameter: 0, is: 0x06).first)
        let ends = Self.events(records, code: 0x05)
        let end = try #require(ends.first { $0.index > refused.index })

        let findings = try diagnose(path: Fixtures.capture("bond-lost.btsnoop"))
        let missing = try #require(findings.of(.bondMissing).first)
        #expect(findings.of(.bondMissing).count == 1)
        #expect(missing.record == refused.index)
        #expect(missing.connection == 1)
        #expect(missing.evidence == [pairings[0].index, refused.index, end.index])
        #expect(
            missing.summary.contains(
                "PIN or Key Missing (0x06); the two paired on connection 1 (frame \(pairings[0].index + 1))"))
        #expect(missing.coreBluetooth?.contains("peerRemovedPairingInformation (14)") == true)

        // Connection 3 pairs again: the bond was not kept.
        let again = try #require(findings.of(.bondNotKept).first)
        #expect(again.record == pairings[1].index)
        #expect(again.connection == 2)
        #expect(again.evidence == [pairings[0].index, pairings[1].index])
    }

    @Test func micFailureNamesTheEncryptionItInterrupted() throws {
        let records = try Self.records("mic-failure.btsnoop")
        // LE Enable Encryption (0x2019): connection 1's, then connection 2's.
        let encryptions = Self.commands(records, opcode: 0x2019)
        #expect(encryptions.count == 2)
        let lost = try #require(Self.events(records, code: 0x05, parameter: 3, is: 0x3D).first)
        // No Encryption Change between the second start and the loss.
        #expect(Self.events(records, code: 0x08).allSatisfy { $0.index < encryptions[1].index })

        let finding = try #require(try diagnose(path: Fixtures.capture("mic-failure.btsnoop")).of(.micFailure).first)
        #expect(finding.record == lost.index)
        #expect(finding.evidence == [encryptions[1].index, lost.index])
        #expect(
            finding.summary.contains("before the encryption started at frame \(encryptions[1].index + 1) completed"))
    }

    @Test func aSevenByteKeyFromReadEncryptionKeySize() throws {
        let records = try Self.records("short-key.btsnoop")
        // Command Complete (0x0E) of Read Encryption Key Size (0x1408): status, handle, size.
        let read = try #require(Self.events(records, code: 0x0E).first { $0.bytes[3] == 0x08 && $0.bytes[4] == 0x14 })
        let size = read.bytes[8]
        #expect(size == 7)
        // The size the pairing negotiated: the smaller Maximum Encryption Key Size (SMP byte 4).
        let request = try #require(Self.l2cap(records, channel: 6, code: 0x01, .sent).first)
        let response = try #require(Self.l2cap(records, channel: 6, code: 0x02, .received).first)
        #expect(min(request.bytes[8 + 4], response.bytes[8 + 4]) == size)

        let finding = try #require(try diagnose(path: Fixtures.capture("short-key.btsnoop")).of(.shortKey).first)
        #expect(finding.record == read.index)
        #expect(finding.time == read.timestamp)
        #expect(finding.values["key_size"] == Double(size))
    }

    @Test func aPairingPromptNobodyAnswersIsAPairingThatNeverFinished() throws {
        let records = try Self.records("pairing-unanswered.btsnoop")
        let request = try #require(Self.l2cap(records, channel: 6, code: 0x01, .sent).first)
        let end = try #require(Self.events(records, code: 0x05).first)
        // Neither Pairing Failed (0x05) nor Encryption Change in the capture.
        #expect(
            Self.l2cap(records, channel: 6, code: 0x05, .sent).isEmpty
                && Self.l2cap(records, channel: 6, code: 0x05, .received).isEmpty)
        #expect(Self.events(records, code: 0x08).isEmpty)

        let findings = try diagnose(path: Fixtures.capture("pairing-unanswered.btsnoop"))
        let finding = try #require(findings.of(.pairingUnfinished).first)
        #expect(finding.record == request.index)
        #expect(finding.evidence == [request.index, end.index])
        #expect(findings.of(.pairingFailed).isEmpty)
    }
}

/// `--min-severity` in the library: `Finding.Severity.isAtLeast(_:)` and `atLeast(_:)`.
@Suite struct FindingSeverityFilterTests {
    @Test(arguments: [
        // severity, minimum, at least as serious
        (Finding.Severity.error, Finding.Severity.error, true), (.error, .warning, true), (.error, .info, true),
        (.warning, .error, false), (.warning, .warning, true), (.warning, .info, true),
        (.info, .error, false), (.info, .warning, false), (.info, .info, true),
    ])
    func isAtLeast(_ severity: Finding.Severity, _ minimum: Finding.Severity, _ expected: Bool) {
        #expect(severity.isAtLeast(minimum) == expected)
    }

    @Test func atLeastKeepsTheOrderAndDropsOnlyTheLessSerious() throws {
        let findings = try diagnose(path: Fixtures.capture("att-errors.btsnoop"))
        #expect(Set(findings.map(\.severity)) == [.error, .warning, .info])
        #expect(findings.atLeast(.info) == findings)
        #expect(findings.atLeast(.warning) == findings.filter { $0.severity != .info })
        #expect(findings.atLeast(.error) == findings.filter { $0.severity == .error })
    }
}

/// Findings on the shared public captures that were read by hand against tshark
/// (Captures/README.md, "diagnose on the shared public captures"), held to the records their bytes give.
@Suite(.sharedCaptures) struct DiagnosisOnPublicCapturesTests {
    static func records(_ name: String) throws -> [OwnedRecord] {
        try Fixtures.readAll(Fixtures.publicCapture(name)).records
    }

    /// The ACL connection handle of a record (Core 6.0, Vol 4, Part E, §5.4.2).
    static func handle(_ record: OwnedRecord) -> UInt16 {
        (UInt16(record.bytes[0]) | UInt16(record.bytes[1]) << 8) & 0x0FFF
    }

    @Test func aSupervisionTimeoutLongAfterThePeersLastDataSaysTheLinkLivedOnUnseenPackets() throws {
        let name = "joelarula-darkelf-1.btsnoop"
        let records = try Self.records(name)
        let lost = try #require(records.first { $0.kind == .event && $0.bytes.first == 0x05 && $0.bytes[5] == 0x08 })
        let handle = UInt16(lost.bytes[3]) | UInt16(lost.bytes[4]) << 8
        let lastReceived = try #require(
            records.last {
                $0.index < lost.index && $0.kind == .acl && $0.direction == .received && Self.handle($0) == handle
            })
        let finding = try #require(try diagnose(path: Fixtures.publicCapture(name)).of(.supervisionTimeout).first)
        #expect(finding.record == lost.index)
        #expect(finding.evidence.contains(lastReceived.index))
        // 38.65 s of no data against a 6 s timeout: the sentence says where the silence really was.
        #expect(lost.timestamp.seconds(since: lastReceived.timestamp) > 6)
        #expect(finding.summary.contains("the peer stopped answering only in the last 6000 ms before the loss"))
        // Where the data came within the timeout, it does not.
        let bundled = try #require(
            try diagnose(path: Fixtures.capture("reconnect-supervision-timeout.btsnoop")).of(.supervisionTimeout).first)
        #expect(!bundled.summary.contains("stopped answering only"))
    }

    @Test func theTrafficOfAConnectionThatBeganBeforeTheCaptureIsAtItsFirstPacket() throws {
        let name = "madkaye-revcar.btsnoop"
        let records = try Self.records(name)
        let first = try #require(records.first { $0.kind == .acl })
        let finding = try #require(try diagnose(path: Fixtures.publicCapture(name)).of(.traffic).first)
        #expect(finding.record == first.index)
        #expect(finding.time == first.timestamp)
    }

    @Test func jkbmsRefusesTheSubscriptionWithAnApplicationError() throws {
        let name = "syssi-jkbms-b5a24s.btsnoop"
        // ATT (CID 4) Error Response 0x01 for a Write Request 0x12 of a handle, received.
        let refusals = try Self.records(name).filter { record in
            record.kind == .acl && record.direction == .received && record.bytes.count >= 13 && record.bytes[6] == 4
                && record.bytes[7] == 0
                && record.bytes[8] == 0x01 && record.bytes[9] == 0x12
        }
        let refusal = try #require(refusals.first)
        #expect(refusal.bytes[10] == 0x14 && refusal.bytes[11] == 0x00 && refusal.bytes[12] == 0x80)
        let finding = try #require(try diagnose(path: Fixtures.publicCapture(name)).of(.subscriptionRefused).first)
        #expect(finding.record == refusal.index)
        #expect(
            finding.summary.contains("0x0014 (2902 Client Characteristic Configuration)) with Application Error (0x80)")
        )
    }
}
