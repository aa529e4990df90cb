import Foundation
import Reports
import TestSupport
import Testing
import TraceFiles
import Wire

@testable import Lifecycle

/// Can this capture answer? (issue 43 §4): whole captures of ours get no verdict; the same
/// captures cut as Android's filtered mode, a rotation or a one-sided log cuts them get the verdict
/// that names the cut, with its records; the shared captures agree with the lifecycle analysis.
@Suite struct CaptureFitnessTests {
    /// The problems `CaptureFitness` finds in `records`, read as a capture of `format`.
    static func problems(_ records: [OwnedRecord], format: CaptureFormat = .btsnoop(datalink: 1002)) -> [FitnessProblem]
    {
        var fitness = CaptureFitness(format: format)
        for record in records { record.withRecord { fitness.add($0) } }
        return fitness.problems
    }

    /// The problems of a capture file, read as `info` reads it.
    static func problems(path: String) throws -> [FitnessProblem] {
        let reader = try CaptureReader(path: path, linkLayer: true)
        var fitness = CaptureFitness(format: reader.format)
        try reader.forEach { fitness.add($0) }
        return fitness.problems
    }

    /// Every HCI capture of ours (Captures/, recorded whole from the controller's Reset) and every
    /// air twin recorded unencrypted.
    static let ours: [String] = {
        let names =
            (try? FileManager.default.contentsOfDirectory(
                atPath: Fixtures.packageRoot.appendingPathComponent("Captures").path)) ?? []
        let hci = names.filter { [".btsnoop", ".pcap", ".pcapng", ".pklg"].contains(where: $0.hasSuffix) }.sorted()
        return hci.map(Fixtures.capture)
    }()

    @Test func everyWholeCaptureOfOursCanAnswer() throws {
        #expect(Self.ours.count >= 50)
        for path in Self.ours {
            let problems = try Self.problems(path: path)
            #expect(problems.isEmpty, "\(path): \(problems.map(\.kind))")
        }
    }

    /// Android's filtered snoop mode: each ACL packet kept to 14 bytes with its H4 type (13 of
    /// HCI), its original length kept in the record header.
    @Test func aclCutAsAndroidsFilteredModeIsSaid() throws {
        let records = try DiagnoseCaptureTests.records("att-errors.btsnoop")
        let cut = records.map { record -> OwnedRecord in
            guard record.kind == .acl, record.bytes.count > 13 else { return record }
            var short = record
            short.bytes = Array(record.bytes.prefix(13))
            return short
        }
        let long = records.filter { $0.kind == .acl && $0.bytes.count > 13 }
        #expect(long.count > 10)
        let problems = Self.problems(cut)
        #expect(problems.map(\.kind) == [.aclCutShort])
        let problem = try #require(problems.first)
        #expect(problem.evidence == long.prefix(3).map(\.index))
        #expect(
            problem.facts
                == .aclCutShort(packets: long.count, first: long[0].index, kept: 13, whole: long[0].bytes.count))
        #expect(
            problem.problem.hasPrefix(
                "\(long.count) ACL packets were cut short by the capture (frame \(long[0].index + 1) keeps 13 of \(long[0].bytes.count) bytes)"
            ))
        #expect(problem.remedy.contains("persist.bluetooth.btsnooplogmode full"))
        #expect(problem.remedy.contains("bluetooth_btsnoop_default_mode"))
        // The untouched capture: nothing.
        #expect(Self.problems(records).isEmpty)
    }

    /// A log that begins at the connection's first ACL packet: the connection was up before it.
    @Test func aLogStartingInsideAConnectionSaysWhichHandles() throws {
        let records = try DiagnoseCaptureTests.records("att-errors.btsnoop")
        let firstACL = try #require(records.firstIndex { $0.kind == .acl })
        let problems = Self.problems(Array(records[firstACL...]))
        #expect(problems.map(\.kind) == [.startedMidConnection])
        let problem = try #require(problems.first)
        let handle = DiagnosisOnPublicCapturesTests.handle(records[firstACL])
        #expect(problem.evidence == [records[firstACL].index])
        #expect(
            problem.facts
                == .startedMidConnection(
                    connections: 1, first: [.init(handle: handle, record: records[firstACL].index)]))
        #expect(
            problem.problem.contains(
                "began in the middle of 1 connection (handle \(hex(handle, digits: 4)) from frame \(records[firstACL].index + 1))"
            ))
        #expect(problem.remedy.contains("iOS: install Apple's Bluetooth logging profile"))
    }

    /// A log cut between a command and its Command Complete: its first record answers a command it
    /// does not hold.
    @Test func aLogCutMidExchangeLostItsStart() throws {
        let records = try DiagnoseCaptureTests.records("att-errors.btsnoop")
        // The Command Complete (0x0E) of the second command: the Reset is cut away with it.
        let complete = try #require(records.dropFirst(2).firstIndex { $0.kind == .event && $0.bytes.first == 0x0E })
        let problems = Self.problems(Array(records[complete...]))
        #expect(problems.map(\.kind) == [.lostItsStart])
        let problem = try #require(problems.first)
        #expect(problem.evidence == [records[complete].index])
        #expect(problem.facts == .lostItsStart(first: records[complete].index, resetSeen: false, rotatedFile: false))
        #expect(problem.problem.contains("frame \(records[complete].index + 1) answers a command"))
        #expect(problem.problem.contains("no HCI Reset starts it"))
        #expect(problem.remedy.contains("btsnoop_hci.log.last"))
    }

    /// Only what the host sent: no event, no ACL received.
    @Test func aLogOfOneSideIsSaid() throws {
        let records = try DiagnoseCaptureTests.records("att-errors.btsnoop")
        let sent = records.filter { $0.kind == .acl && $0.direction == .sent }
        let problems = Self.problems(sent)
        let problem = try #require(problems.first { $0.kind == .oneSideOnly })
        #expect(problem.facts == .oneSideOnly(recorded: .aclSent, count: sent.count))
        #expect(problem.problem.contains("\(sent.count) ACL packets sent and none received"))
        #expect(problem.evidence == [sent[0].index])
    }

    /// crackle's Ubertooth capture, encrypted under a known LTK: without the key its encrypted
    /// packets cannot be read; with it (as `diagnose --ltk` gives it) they can.
    @Test func anAirCaptureEncryptedWithoutItsKeyIsSaidUntilTheKeyIsGiven() throws {
        let path = Fixtures.capture("linklayer/crackle-known-ltk.pcap")
        let without = try Self.problems(path: path)
        let problem = try #require(without.first { $0.kind == .encryptedWithoutKey })
        #expect(problem.evidence.count == 1)
        guard case .encryptedWithoutKey(let packets, let links, _, let from) = problem.facts else {
            Issue.record("\(problem.facts)")
            return
        }
        #expect(packets > 0 && links == 1 && from == problem.evidence.first)
        #expect(problem.problem.hasPrefix("\(Wording.count(packets, "encrypted packet")) on 1 link could not be read"))
        #expect(problem.remedy.contains("--ltk"))
        // Link type 251 has no direction: no verdict on sides.
        #expect(!without.contains { $0.kind == .oneSideOnly })

        // The LTK as crackle prints it (most significant octet first, Captures/linklayer/README.md),
        // reversed into the octets AirOptions takes.
        let key: [UInt8] = packet(["7f62c053f104a5bbe68b1d896a2ed49c"]).reversed()
        for keys in [[], [key]] {
            let reader = try AnalysisReader(path: path, air: AirOptions(keys: keys))
            while try reader.next() != nil {}
            var fitness = CaptureFitness(format: reader.format)
            fitness.attach(reader.airCapture)
            #expect(fitness.problems.contains { $0.kind == .encryptedWithoutKey } == keys.isEmpty, "\(keys)")
        }
    }

    /// The field captures known to start inside a connection (SOURCES.md: the iPhone trace whose
    /// "ACL starts inside an existing connection", the 12-second adb excerpt) get the verdict;
    /// and on every shared HCI capture the verdict names exactly the handles the lifecycle
    /// analysis found connected before the capture.
    @Test(.sharedCaptures) func sharedCapturesAgreeWithTheLifecycleAnalysis() throws {
        for name in ["havvk-even-g2-smart-classroom-bt3.pklg", "cheoljun99-bluetooth-pcap-test-infocar.pcap"] {
            let path = try #require(Fixtures.sharedCaptures("field").first { $0.hasSuffix("/" + name) })
            #expect(try Self.problems(path: path).contains { $0.kind == .startedMidConnection }, "\(name)")
        }
        let paths = (Fixtures.sharedCaptures("public") + Fixtures.sharedCaptures("field"))
        var checked = 0
        for path in paths {
            let reader = try CaptureReader(path: path, linkLayer: true)
            guard reader.format.linkLayerType == nil else { continue }
            var analysis = CaptureAnalyzer(diagnosing: false)
            var fitness = CaptureFitness(format: reader.format)
            try? reader.forEach { record in
                fitness.add(record)
                _ = analysis.add(record)
            }
            let before = analysis.lifecycle.report.connections.filter(\.beganBeforeCapture).count
            let verdict = fitness.problems.first { $0.kind == .startedMidConnection }
            #expect((verdict != nil) == (before > 0), "\(path)")
            if let verdict {
                #expect(verdict.problem.contains("middle of \(before) connection"), "\(path): \(verdict.problem)")
            }
            checked += 1
        }
        #expect(checked >= 35)
    }
}
