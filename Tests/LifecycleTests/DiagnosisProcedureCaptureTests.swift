import Reports
import TestSupport
import Testing
import TraceFiles
import Wire

@testable import Lifecycle

/// The link-layer procedures a peer leaves unanswered or asks for, and the key size a pairing
/// agrees on, on the Bumble captures made for them (Captures/README.md, "diagnose: link-layer
/// procedures and key sizes"). As in ``DiagnoseCaptureTests``, the records each finding
/// must name are found from the capture's raw bytes, not from the analysis.
@Suite struct DiagnosisProcedureCaptureTests {
    typealias Bytes = DiagnoseCaptureTests

    /// LE Meta events (0x3E) of this subevent.
    static func le(_ records: [OwnedRecord], subevent: UInt8) -> [OwnedRecord] {
        Bytes.events(records, code: 0x3E, parameter: 0, is: subevent)
    }

    @Test func aRejectedLERemoteConnectionParameterRequestIsCheckedAgainstApplesGuidelines() throws {
        let name = "remote-parameter-request.btsnoop"
        let records = try Bytes.records(name)
        // LE Remote Connection Parameter Request (subevent 0x06): handle, interval min, max,
        // latency, timeout. The first asks for 6-8 (7.5-10 ms) and 100 (1 s), the second 24-36, 400.
        let requests = Self.le(records, subevent: 0x06)
        #expect(requests.count == 2)
        func field(_ record: OwnedRecord, _ offset: Int) -> UInt16 {
            UInt16(record.bytes[offset]) | UInt16(record.bytes[offset + 1]) << 8
        }
        #expect([5, 7, 9, 11].map { field(requests[0], $0) } == [6, 8, 0, 100])
        #expect([5, 7, 9, 11].map { field(requests[1], $0) } == [24, 36, 0, 400])
        // The host's answers: Negative Reply (0x2021) with Unacceptable Connection Parameters, then Reply (0x2020).
        let rejection = try #require(Bytes.commands(records, opcode: 0x2021).first)
        #expect(rejection.bytes[5] == 0x3B)
        let acceptance = try #require(Bytes.commands(records, opcode: 0x2020).first)
        #expect(
            requests[0].index < rejection.index && rejection.index < requests[1].index
                && requests[1].index < acceptance.index)
        // LE Connection Update Complete (subevent 0x03), success, after the acceptance.
        let update = try #require(Self.le(records, subevent: 0x03).first)
        #expect(update.bytes[3] == 0x00 && update.index > acceptance.index)

        var analysis = CaptureAnalyzer()
        for record in records { _ = record.withRecord { analysis.add($0) } }
        let findings = analysis.findings
        let asked = findings.of(.requestedParameters)
        #expect(asked.count == 1)
        let finding = try #require(asked.first)
        #expect(finding.record == requests[0].index)
        #expect(finding.evidence == [requests[0].index, rejection.index])
        #expect(
            finding.summary.contains(
                "The peer asked for interval 7.5 ms-10 ms, latency 0, supervision timeout 1000 ms (LE Remote Connection Parameter Request)"
            ))
        #expect(finding.summary.contains("it was rejected (frame \(rejection.index + 1))"))
        // What the link ran with after the accepted request is inside the guidelines.
        #expect(!findings.of(.linkParameters).contains { $0.record == update.index })
        // Neither request is left as a procedure under way: the rejected one ended with the
        // Negative Reply, the accepted one with the update's completion.
        #expect(analysis.diagnosis.link(0).pending.isEmpty)
        #expect(analysis.diagnosis.link(0).parameterRequests.map(\.rejectedRecord) == [rejection.index, nil])
    }

    @Test func aPHYUpdateThePeerNeverAnsweredIsNamedAsTheLLResponseTimeoutsCause() throws {
        let name = "phy-update-unanswered.btsnoop"
        let records = try Bytes.records(name)
        // LE Set PHY (0x2032); LE PHY Update Complete (subevent 0x0C) with status 0x22; the
        // Disconnection Complete (0x05) with reason 0x22.
        let setPHY = try #require(Bytes.commands(records, opcode: 0x2032).first)
        let complete = try #require(Self.le(records, subevent: 0x0C).first)
        #expect(complete.bytes[3] == 0x22)
        let lost = try #require(Bytes.events(records, code: 0x05, parameter: 3, is: 0x22).first)
        #expect(complete.timestamp.seconds(since: setPHY.timestamp) >= 40)
        // The peer's data kept coming while the procedure was unanswered.
        #expect(
            records.contains {
                $0.kind == .acl && $0.direction == .received && $0.index > setPHY.index + 1 && $0.index < complete.index
            })

        let findings = try diagnose(path: Fixtures.capture(name))
        let finding = try #require(findings.of(.llResponseTimeout).first)
        #expect(finding.record == lost.index)
        #expect(finding.evidence == [setPHY.index, complete.index, lost.index])
        #expect(
            finding.summary.contains(
                "the PHY update procedure completed with the same status (frame \(complete.index + 1)), started at frame \(setPHY.index + 1)"
            ))
        #expect(findings.of(.supervisionTimeout).isEmpty)
    }

    @Test func anEncryptionThePeerNeverAnsweredIsNamedAsTheLLResponseTimeoutsCause() throws {
        let name = "encryption-unanswered.btsnoop"
        let records = try Bytes.records(name)
        // LE Enable Encryption (0x2019): connection 1's (after pairing), then connection 2's.
        let encryptions = Bytes.commands(records, opcode: 0x2019)
        #expect(encryptions.count == 2)
        let lost = try #require(Bytes.events(records, code: 0x05, parameter: 3, is: 0x22).first)
        // Nothing completed the second: no Encryption Change (0x08) after it.
        #expect(Bytes.events(records, code: 0x08).allSatisfy { $0.index < encryptions[1].index })
        #expect(lost.timestamp.seconds(since: encryptions[1].timestamp) >= 40)

        let findings = try diagnose(path: Fixtures.capture(name))
        let finding = try #require(findings.of(.llResponseTimeout).first)
        #expect(finding.record == lost.index)
        #expect(finding.connection == 1)
        #expect(finding.evidence == [encryptions[1].index, lost.index])
        #expect(
            finding.summary.contains(
                "the encryption procedure started at frame \(encryptions[1].index + 1) never completed"))
        // Not a lost bond or a key mismatch: the encryption neither failed nor ended in a MIC failure.
        #expect(findings.of(.bondMissing).isEmpty && findings.of(.micFailure).isEmpty)
    }

    /// short-key: the Pairing Request allows 16 bytes, the Pairing Response 7 (SMP byte 4 of each:
    /// Maximum Encryption Key Size); Read Encryption Key Size answers 7.
    static func shortKeyPairing(_ records: [OwnedRecord]) throws -> (
        request: OwnedRecord, response: OwnedRecord, encrypted: OwnedRecord
    ) {
        let request = try #require(Bytes.l2cap(records, channel: 6, code: 0x01, .sent).first)
        let response = try #require(Bytes.l2cap(records, channel: 6, code: 0x02, .received).first)
        #expect(request.bytes[8 + 4] == 16 && response.bytes[8 + 4] == 7)
        let encrypted = try #require(
            Bytes.events(records, code: 0x08, parameter: 0, is: 0x00).first { $0.index > response.index })
        #expect(encrypted.bytes[5] == 0x01)
        return (request, response, encrypted)
    }

    @Test func aShortKeyNamesThePairingMessagesThatAgreedOnIt() throws {
        let records = try Bytes.records("short-key.btsnoop")
        let (request, response, encrypted) = try Self.shortKeyPairing(records)
        // Command Complete (0x0E) of Read Encryption Key Size (0x1408).
        let read = try #require(Bytes.events(records, code: 0x0E).first { $0.bytes[3] == 0x08 && $0.bytes[4] == 0x14 })

        let findings = try diagnose(path: Fixtures.capture("short-key.btsnoop")).of(.shortKey)
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.record == read.index)
        #expect(finding.evidence == [request.index, response.index, encrypted.index, read.index])
        #expect(
            finding.summary.contains(
                "the pairing agreed on 7 bytes: the Pairing Request of this host allowed 16 (frame \(request.index + 1)), the Pairing Response of the peer 7 (frame \(response.index + 1))"
            ))
    }

    @Test func aPairingThatAgreesOnAShortKeyIsFoundWithoutAKeySizeReport() throws {
        // The short-key capture without its Read Encryption Key Size (0x1408) and the Command
        // Complete answering it: only the pairing messages tell the key size.
        let records = try Bytes.records("short-key.btsnoop").filter { record in
            !(record.kind == .command && record.bytes.starts(with: [0x08, 0x14]))
                && !(record.kind == .event && record.bytes.count > 4 && record.bytes[0] == 0x0E
                    && record.bytes[3] == 0x08 && record.bytes[4] == 0x14)
        }
        #expect(records.count == 105)
        let (request, response, encrypted) = try Self.shortKeyPairing(records)
        // ``diagnose(_:)`` numbers the records by their position.
        let position = { (record: OwnedRecord) in records.firstIndex { $0.index == record.index }! }

        let findings = diagnose(records).of(.shortKey)
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.record == position(encrypted))
        #expect(finding.evidence == [position(request), position(response), position(encrypted)])
        #expect(finding.values["key_size"] == 7)
        #expect(
            finding.summary.hasPrefix("The link was encrypted with a 7-byte key (frame \(position(encrypted) + 1))"))
    }
}
