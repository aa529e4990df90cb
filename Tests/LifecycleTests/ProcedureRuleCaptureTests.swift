import Foundation
import Reports
import TestSupport
import Testing
import TraceFiles
import Wire

@testable import Lifecycle

/// Three rules of issue 43 §5 on the Bumble captures made for them (Captures/README.md, "diagnose:
/// more of what breaks apps"): the peer ending the link right after a procedure, ATT values too
/// long, a scan filter that cannot match its peer. The records each finding must name are found
/// from the raw bytes, as in ``DiagnoseCaptureTests``.
@Suite struct ProcedureRuleCaptureTests {
    typealias Bytes = DiagnoseCaptureTests

    /// The ACL records carrying an ATT PDU (channel 4) with this opcode, sent or received: for a
    /// PDU split into fragments, its first fragment.
    static func att(_ records: [OwnedRecord], opcode: UInt8, direction: Direction) -> [OwnedRecord] {
        ReconnectCaptureTests.att(records, opcode: opcode, direction: direction).filter { $0.bytes[1] & 0x30 != 0x10 }
    }

    /// The record that completes the L2CAP frame `first` starts: its last continuation fragment
    /// (packet boundary 0b01) on the same handle and direction, or `first` itself.
    static func frameEnd(_ records: [OwnedRecord], _ first: OwnedRecord) -> OwnedRecord {
        var end = first
        for record in records[(first.index + 1)...] where record.kind == .acl && record.direction == first.direction {
            guard record.bytes[1] & 0x30 == 0x10 else { break }
            end = record
        }
        return end
    }

    // MARK: link-ended-after-procedure

    @Test func thePeerEndingTheLinkRightAfterADataLengthUpdateIsSaid() throws {
        let name = "ended-after-data-length.btsnoop"
        let records = try Bytes.records(name)
        let request = try #require(Bytes.commands(records, opcode: 0x2022).first)
        // LE Set Data Length: handle, TxOctets 251 (0x00FB), TxTime 2120.
        #expect(Array(request.bytes[5...6]) == [0xFB, 0x00])
        let changes = DiagnosisProcedureCaptureTests.le(records, subevent: 0x07)
        #expect(changes.count == 1)
        let change = try #require(changes.first)
        // Disconnection Complete: status, handle, reason 0x13; and no HCI Disconnect of this host.
        let ends = Bytes.events(records, code: 0x05)
        #expect(ends.count == 1)
        let end = try #require(ends.first)
        #expect(end.bytes[5] == 0x13)
        #expect(Bytes.commands(records, opcode: 0x0406).isEmpty)
        // Nothing from the peer after the change.
        #expect(records.filter { $0.kind == .acl && $0.direction == .received && $0.index > change.index }.isEmpty)
        let gap = end.timestamp.seconds(since: change.timestamp)
        #expect(gap > 0 && gap < DiagnosisCollector.procedureWindow)

        let findings = try diagnose(path: Fixtures.capture(name)).of(.endedAfterProcedure)
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.record == end.index)
        #expect(finding.evidence == [request.index, change.index, end.index])
        #expect(finding.severity == .error)
        #expect(
            finding.summary.contains(
                "ended the link (Remote User Terminated Connection, 0x13, frame \(end.index + 1)) \(Wording.duration(gap)) after a data length update completed (LE Set Data Length at frame \(request.index + 1), LE Data Length Change at frame \(change.index + 1): 251 bytes out, 251 in)"
            ))
        #expect(finding.summary.contains("cannot take the 251-byte link-layer PDUs"))
        #expect(finding.values["after_s"] == (gap * 1_000_000).rounded() / 1_000_000)
        #expect(finding.android?.status == 19)
        #expect(finding.coreBluetooth?.hasPrefix("centralManager(_:didDisconnectPeripheral:error:)") == true)
    }

    /// The same capture with the peer's end moved past the window, or with a packet from the peer
    /// after the procedure, is no finding: the rule needs both.
    @Test func aLaterEndOrOneAfterMoreTrafficIsNone() throws {
        let records = try Bytes.records("ended-after-data-length.btsnoop")
        let end = try #require(Bytes.events(records, code: 0x05).first)
        #expect(!diagnose(records).of(.endedAfterProcedure).isEmpty)
        var late = records
        late[end.index].timestamp = Timestamp(
            microseconds: end.timestamp.microseconds + Int64(DiagnosisCollector.procedureWindow * 1_000_000))
        #expect(diagnose(late).of(.endedAfterProcedure).isEmpty)
        // A Read By Group Type Response of the peer's, again, just before the end.
        let answer = try #require(Self.att(records, opcode: 0x11, direction: .received).first)
        var chatty = records
        var copy = answer
        copy.timestamp = end.timestamp
        chatty.insert(copy, at: end.index)
        #expect(diagnose(chatty).of(.endedAfterProcedure).isEmpty)
    }

    // MARK: att-value-too-long

    @Test func writesAndReadsTooLongAreSaidWithThePeersAnswer() throws {
        let name = "value-too-long.btsnoop"
        let records = try Bytes.records(name)
        // The Write Request (0x12) of 0x0018 with 40 bytes, in two fragments, before any Exchange
        // MTU; the Write Response (0x13).
        let write = try #require(Self.att(records, opcode: 0x12, direction: .sent).first)
        #expect(UInt16(write.bytes[4]) | UInt16(write.bytes[5]) << 8 == 1 + 2 + 40)
        let writeEnd = Self.frameEnd(records, write)
        #expect(writeEnd.index > write.index)
        let writeResponse = try #require(Self.att(records, opcode: 0x13, direction: .received).first)
        let mtuResponse = try #require(Self.att(records, opcode: 0x03, direction: .received).first)
        #expect(write.index < mtuResponse.index)
        // Three Prepare Write Requests (0x16) at offsets 0, 240, 480; Execute Write (0x18); its
        // Error Response (0x01) for opcode 0x18 with Invalid Attribute Value Length (0x0D).
        let prepares = Self.att(records, opcode: 0x16, direction: .sent)
        #expect(prepares.map { UInt16($0.bytes[11]) | UInt16($0.bytes[12]) << 8 } == [0, 240, 480])
        let execute = try #require(Self.att(records, opcode: 0x18, direction: .sent).first)
        let refusal = try #require(Self.att(records, opcode: 0x01, direction: .received).first)
        #expect(refusal.bytes[9] == 0x18 && refusal.bytes[12] == 0x0D)
        // Read Blob Requests (0x0C) at offsets 246 and 492; their responses (0x0D), the second of
        // 108 bytes: 600 in all.
        let blobs = Self.att(records, opcode: 0x0C, direction: .sent)
        #expect(blobs.map { UInt16($0.bytes[11]) | UInt16($0.bytes[12]) << 8 } == [246, 492])
        let parts = Self.att(records, opcode: 0x0D, direction: .received)
        #expect(parts.count == 2)
        let last = try #require(parts.last)
        #expect(492 + Int(UInt16(last.bytes[4]) | UInt16(last.bytes[5]) << 8) - 1 == 600)

        let findings = try diagnose(path: Fixtures.capture(name)).of(.valueTooLong)
        try #require(findings.count == 3)
        let (tooLong, queue, read) = (findings[0], findings[1], findings[2])
        #expect(tooLong.record == writeEnd.index)
        #expect(tooLong.evidence == [writeEnd.index, writeResponse.index])
        #expect(
            tooLong.summary
                == "This host's client sent Write Request of 0x0018 with a 40-byte value (frame \(writeEnd.index + 1)), longer than ATT_MTU − 3 = 20 (ATT_MTU 23, LE's default: no Exchange MTU before it); the peer's server took it (frame \(writeResponse.index + 1))."
        )
        #expect(tooLong.values == ["length": 40, "count": 1, "mtu": 23])
        let prepareEnds = prepares.map { Self.frameEnd(records, $0).index }
        #expect(queue.record == execute.index)
        #expect(queue.evidence == [prepareEnds[0], prepareEnds[2], execute.index, refusal.index])
        #expect(
            queue.summary.contains(
                "queued Prepare Write Requests from frame \(prepareEnds[0] + 1) that make 0x0018 a 580-byte value (frame \(prepareEnds[2] + 1) takes it past 512 bytes"
            ))
        #expect(
            queue.summary.hasSuffix(
                "refused it: Error Response Invalid Attribute Value Length (0x0d, frame \(refusal.index + 1))."))
        #expect(queue.android?.status == 13)
        #expect(queue.coreBluetooth?.contains("didWriteValueFor") == true)
        #expect(read.record == last.index)
        #expect(read.evidence == [blobs[1].index, last.index])
        #expect(read.summary.contains("handed out 600 bytes of it"))
        // The capture's other writes (the Exchange MTU, the Prepare Writes of 240 bytes within
        // 247 − 5) are none.
        #expect(!findings.contains { $0.record == prepareEnds[1] })
    }

    /// A Write Command too long takes the quick path (``QuickRecord``): the same finding as a
    /// Write Request, with no answer.
    @Test func aWriteCommandTooLongIsSaidOnTheQuickPath() throws {
        var records = try Bytes.records("value-too-long.btsnoop")
        let write = try #require(Self.att(records, opcode: 0x12, direction: .sent).first)
        let end = Self.frameEnd(records, write)
        // The ACL packets of the write, joined into one unfragmented packet with opcode 0x52.
        var bytes = Array(write.bytes)
        for record in records[(write.index + 1)...end.index] { bytes += record.bytes[4...] }
        bytes[2] = UInt8((bytes.count - 4) & 0xFF)
        bytes[3] = UInt8((bytes.count - 4) >> 8)
        bytes[8] = 0x52
        var command = write
        command.bytes = bytes
        records.replaceSubrange(write.index...end.index, with: [command])
        // (Positions, not the records' indices, which the join shifted.)
        let response = try #require(
            records.firstIndex { $0.kind == .acl && $0.direction == .received && $0.bytes[8] == 0x13 })
        records.remove(at: response)
        let findings = diagnose(records).of(.valueTooLong)
        let first = try #require(findings.first)
        #expect(first.record == write.index)
        #expect(first.summary.hasPrefix("This host's client sent Write Command of 0x0018 with a 40-byte value"))
        #expect(first.summary.hasSuffix("(a command: no answer is sent)."))
    }

    // MARK: scan-filter-never-matches-peer

    @Test func aControllerScanFilterOnAServiceThePeerDoesNotAdvertiseIsSaid() throws {
        let name = "scan-filter-unmatched.btsnoop"
        let records = try Bytes.records(name)
        // APCF (0xFD57): enable, feature selection, the service UUID filter (sub-command 3, add,
        // index 1, 0000AAA0-… little-endian and an all-ones mask), disable.
        let apcf = Bytes.commands(records, opcode: 0xFD57)
        #expect(apcf.map { $0.bytes[3] } == [0x00, 0x01, 0x03, 0x00])
        let filter = apcf[2]
        #expect(filter.bytes[4] == 0x00 && filter.bytes[5] == 0x01)
        #expect(Array(filter.bytes[18...19]) == [0xA0, 0xAA] && filter.bytes[22...].allSatisfy { $0 == 0xFF })
        // Its Command Complete (0x0E: packets, opcode 0xFD57, status 0, sub-command 3).
        let complete = try #require(
            records.first {
                $0.kind == .event && $0.bytes[0] == 0x0E && $0.index > filter.index && $0.bytes[3] == 0x57
                    && $0.bytes[4] == 0xFD
            })
        #expect(complete.bytes[5] == 0x00 && complete.bytes[6] == 0x03)
        // No advertising report (LE subevent 0x02) until the filter is disabled; then the
        // peripheral's, listing 180D.
        let reports = DiagnosisProcedureCaptureTests.le(records, subevent: 0x02)
        #expect(!reports.isEmpty && reports.allSatisfy { $0.index > apcf[3].index })
        let first = reports[0]
        #expect(Array(first.bytes.suffix(5).prefix(4)) == [0x03, 0x03, 0x0D, 0x18])
        // The second Read By Group Type Response (0x11) lists the 128-bit 0000AAA0-….
        let groups = Self.att(records, opcode: 0x11, direction: .received)
        let custom = try #require(groups.last)
        #expect(custom.bytes[9] == 20 && Array(custom.bytes[26...27]) == [0xA0, 0xAA])

        let findings = try diagnose(path: Fixtures.capture(name)).of(.scanFilterUnmatched)
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.record == filter.index)
        #expect(finding.evidence == [filter.index, complete.index, first.index, custom.index])
        #expect(finding.connection == 0)
        #expect(
            finding.summary.contains(
                "scan filter on the service AAA0 (Android's APCF vendor command 0xFD57, filter index 1, frame \(filter.index + 1), accepted at frame \(complete.index + 1))"
            ))
        #expect(
            finding.summary.contains(
                "which has that service in its database (frame \(custom.index + 1)), never advertised it: the capture heard it in \(reports.count) reports (the first at frame \(first.index + 1)) listing 180D only, and no device it heard advertised AAA0."
            ))
        #expect(
            finding.summary.hasSuffix(
                "Which app set the filter, and whether it also scanned without one, the capture does not say."))
        #expect(finding.android == nil)
    }

    /// The filter taken away, or the peer advertising the service, is no finding.
    @Test func aFilterThePeerMatchesOrNoFilterIsNone() throws {
        let records = try Bytes.records("scan-filter-unmatched.btsnoop")
        let filter = Bytes.commands(records, opcode: 0xFD57)[2]
        var unfiltered = records
        unfiltered.remove(at: filter.index)
        #expect(diagnose(unfiltered).of(.scanFilterUnmatched).isEmpty)
        // The filter on 180D (16-bit, with its mask), which the peer advertises.
        var heartRate = records
        var bytes = Array(filter.bytes[0..<6]) + [0x0D, 0x18, 0xFF, 0xFF]
        bytes[2] = UInt8(bytes.count - 3)
        heartRate[filter.index].bytes = bytes
        #expect(diagnose(heartRate).of(.scanFilterUnmatched).isEmpty)
        #expect(!diagnose(records).of(.scanFilterUnmatched).isEmpty)
    }

    // MARK: Every other capture

    static let made: [(DiagnosisRule, String)] = [
        (.endedAfterProcedure, "/ended-after-data-length.btsnoop"), (.valueTooLong, "/value-too-long.btsnoop"),
        (.scanFilterUnmatched, "/scan-filter-unmatched.btsnoop"),
    ]

    /// The shared captures (real phones and accessories) give none of the three: no peer there
    /// ends a link within 2 s of a procedure with nothing from it in between, no write breaks
    /// its MTU, and no controller scan filter names a service a connected peer has but does not
    /// advertise. (Before the ATT tracker answered an indication and a request of the same side
    /// apart, the field `cagnulein-Bafang-RideSync-sysdiagnose.pklg` gave a false write over
    /// ATT_MTU 23 at frame 46342: its MTU of 185, agreed at frame 46242, was lost.)
    @Test func noSharedCaptureGivesThem() throws {
        let captures = Fixtures.sharedCaptures("public") + Fixtures.sharedCaptures("field")
        if captures.isEmpty {
            print("noSharedCaptureGivesThem: no shared captures checked: \(Fixtures.sharedMissing)")
            return
        }
        var checked = 0
        for path in captures {
            // (Over-the-air captures are not diagnosed.)
            guard let findings = try? diagnose(path: path) else { continue }
            checked += 1
            for (rule, _) in Self.made { #expect(findings.of(rule).isEmpty, "\(rule) on \(path)") }
        }
        #expect(checked >= 40)
    }

    /// `csacca-horizon74`: an app's controller filter on Heart Rate (180D, frame 177) and a
    /// connection to a treadmill that advertises Fitness Machine (1826): no finding, as the
    /// treadmill's database has no 180D either (the filter was for another kind of device).
    @Test(.sharedCaptures) func aFilterForAnotherKindOfDeviceIsNone() throws {
        let path = Fixtures.publicCapture("csacca-horizon74.btsnoop")
        let records = try Fixtures.readAll(path).records
        let filters = Bytes.commands(records, opcode: 0xFD57).filter { $0.bytes[3] == 0x03 && $0.bytes[4] == 0x00 }
        #expect(filters.contains { Array($0.bytes[6...7]) == [0x0D, 0x18] })
        let analysis = try TraceAnalysis(path: path)
        let services = analysis.gatt.flatMap(\.database.services).map(\.uuid)
        #expect(services.contains(BluetoothUUID(UInt16(0x1826))) && !services.contains(BluetoothUUID(UInt16(0x180D))))
        #expect(analysis.findings.of(.scanFilterUnmatched).isEmpty)
    }

    /// No capture of ours but the one made for it gives any of the three rules.
    @Test func noOtherCaptureOfOursGivesThem() throws {
        for path in CaptureFitnessTests.ours {
            let findings = try diagnose(path: path)
            for (rule, capture) in Self.made where !path.hasSuffix(capture) {
                #expect(findings.of(rule).isEmpty, "\(rule) on \(path)")
            }
        }
    }
}
