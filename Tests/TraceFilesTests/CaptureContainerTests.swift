import Foundation
import Testing
import TestSupport
import TraceFiles
import Wire

/// Containers as Android and Apple lay them out, built from the public captures: each member
/// comes out byte for byte, the default is the current log, and damage is named with its place.
@Suite struct CaptureContainerTests {
    let current = Fixtures.publicCapture("whoisbe-pongbot.btsnoop")
    let previous = Fixtures.publicCapture("whoisbe-pongbot-last.btsnoop")
    let latestPklg = Fixtures.publicCapture("elkusbry-peripage.pklg")
    let rotatedPklg = Fixtures.publicCapture("fotonick-hciparse-test00.pklg")

    func open(_ path: String, limits: ContainerLimits = ContainerLimits()) throws -> CaptureContainer {
        try #require(try CaptureContainer.open(path: path, limits: limits))
    }

    @Test(.sharedCaptures) func androidBugReportGivesBothSnoopLogsWithTheCurrentOneFirstChoice() throws {
        let zip = try ContainerFixtures.androidBugReport(files: [
            ("btsnoop_hci.log.last", previous), ("btsnoop_hci.log", current),
        ])
        let container = try open(zip)
        #expect(container.kind == .zip)
        #expect(
            container.members.map(\.path) == [
                ContainerFixtures.androidLogs + "btsnoop_hci.log",
                ContainerFixtures.androidLogs + "btsnoop_hci.log.last",
            ])
        #expect(container.defaultMember?.path == ContainerFixtures.androidLogs + "btsnoop_hci.log")
        #expect(
            try Fixtures.contents(container.member(named: "btsnoop_hci.log").extractedPath)
                == Fixtures.contents(current))
        #expect(
            try Fixtures.contents(container.member(named: "btsnoop_hci.log.last").extractedPath)
                == Fixtures.contents(previous))
        // The logcat and the texts are not captures: not listed.
        #expect(container.members.allSatisfy { !$0.isSummary })
    }

    @Test(.sharedCaptures) func bugReportWithoutSnoopFileGivesItsBTSnoozSummary() throws {
        let zip = try ContainerFixtures.androidBugReport(files: [], summary: current, truncateACL: false)
        let container = try open(zip)
        let member = try #require(container.defaultMember)
        #expect(member.isSummary)
        #expect(member.path.hasSuffix(".txt#BTSNOOP_LOG_SUMMARY"))
        let decoded = try Fixtures.readAll(member.extractedPath)
        let original = try Fixtures.readAll(current)
        #expect(decoded.fault == nil)
        #expect(decoded.records.count == original.records.count)
        for (got, want) in Swift.zip(decoded.records, original.records) {
            #expect(got.kind == want.kind && got.direction == want.direction)
            #expect(got.timestamp == want.timestamp)
            #expect(got.bytes == want.bytes)
        }
    }

    @Test(.sharedCaptures) func btsnoozKeepsAndroidsTruncatedACLWithItsWholeLength() throws {
        let zip = try ContainerFixtures.androidBugReport(files: [], summary: current, truncateACL: true)
        let container = try open(zip)
        let decoded = try Fixtures.readAll(try #require(container.defaultMember).extractedPath)
        let original = try Fixtures.readAll(current)
        let truncated = Swift.zip(decoded.records, original.records).filter { $0.0.bytes.count < $0.1.bytes.count }
        #expect(!truncated.isEmpty)
        for (got, want) in truncated {
            #expect(got.kind == .acl && got.bytes.count == 14)
            #expect(Array(got.bytes) == Array(want.bytes.prefix(14)))
            #expect(got.originalLength == want.originalLength)
        }
    }

    @Test(.sharedCaptures) func bugReportTextAloneIsAContainerOfItsSummary() throws {
        let text = "== dumpstate\n" + (try ContainerFixtures.btsnoozSection(of: previous)) + "more\n"
        let path = try Fixtures.temporaryFile(Array(text.utf8), name: "bugreport.txt")
        let container = try open(path)
        #expect(container.kind == .bugReportText)
        #expect(container.members.map(\.path) == ["bugreport.txt#BTSNOOP_LOG_SUMMARY"])
        #expect(
            try Fixtures.readAll(container.members[0].extractedPath).records.count
                == Fixtures.readAll(previous).records.count)
    }

    @Test func textWithoutSummaryIsRefusedByName() throws {
        let path = try Fixtures.temporaryFile(Array("just some notes\nand more\n".utf8), name: "notes.txt")
        #expect {
            _ = try CaptureContainer.open(path: path)
        } throws: { error in
            "\(error)".contains("BTSNOOP_LOG_SUMMARY") && "\(error)".contains(path)
        }
    }

    @Test(.sharedCaptures, arguments: ["pax", "ustar", "gnu"])
    func sysdiagnoseGivesItsPacketLoggerFiles(format: String) throws {
        let archive = try ContainerFixtures.sysdiagnose(
            files: [
                ("bluetoothd-hci-latest.pklg", latestPklg), ("bluetoothd-hci-2026-01-01_09-00-00.pklg", rotatedPklg),
            ],
            format: format)
        let container = try open(archive)
        #expect(container.kind == .tarGzip)
        let folder = ContainerFixtures.sysdiagnoseName + "/logs/Bluetooth/"
        #expect(
            container.members.map(\.path) == [
                folder + "bluetoothd-hci-2026-01-01_09-00-00.pklg", folder + "bluetoothd-hci-latest.pklg",
            ])
        #expect(container.defaultMember?.path == folder + "bluetoothd-hci-latest.pklg")
        #expect(
            try Fixtures.contents(container.member(named: "bluetoothd-hci-latest.pklg").extractedPath)
                == Fixtures.contents(latestPklg))
        #expect(try Fixtures.contents(container.members[0].extractedPath) == Fixtures.contents(rotatedPklg))
    }

    @Test(.sharedCaptures) func longMemberNamesComeFromGNUAndPaxHeaders() throws {
        // Over 100 bytes and no '/' in its last 100, so ustar's prefix cannot hold it: GNU tar
        // writes an 'L' entry, pax an 'x' header with its path.
        let name = "bluetoothd-hci-" + String(repeating: "x", count: 120) + ".pklg"
        for format in ["gnu", "pax"] {
            let archive = try ContainerFixtures.sysdiagnose(files: [(name, latestPklg)], format: format)
            let container = try open(archive)
            #expect(container.members.map(\.path) == [ContainerFixtures.sysdiagnoseName + "/logs/Bluetooth/" + name])
        }
    }

    @Test(
        .sharedCaptures,
        arguments: ["whoisbe-pongbot.btsnoop", "joelarula-darkelf-test1.pcapng", "elkusbry-peripage.pklg"])
    func gzipCaptureGivesTheCaptureItself(name: String) throws {
        let original = Fixtures.publicCapture(name)
        let container = try open(try ContainerFixtures.gzip(original))
        #expect(container.kind == .gzip)
        #expect(container.members.map(\.path) == [name])
        #expect(try Fixtures.contents(container.members[0].extractedPath) == Fixtures.contents(original))
    }

    @Test func pcapGzipGivesThePcap() throws {
        let original = Fixtures.capture("att-errors.pcap")
        let container = try open(try ContainerFixtures.gzip(original))
        #expect(
            try Fixtures.readAll(container.members[0].extractedPath).records.count
                == Fixtures.readAll(original).records.count)
    }

    @Test(.sharedCaptures) func plainCaptureIsNoContainer() throws {
        #expect(try CaptureContainer.open(path: current) == nil)
        #expect(try CaptureContainer.open(path: latestPklg) == nil)
    }

    @Test func compressionBombIsRefusedAtTheLimit() throws {
        // 64 MiB of zeros compress to about 64 KiB; the member limit is 1 MiB.
        let folder = try ContainerFixtures.directory()
        let bomb = folder.appendingPathComponent("zeros.btsnoop.gz").path
        let made = try run("/bin/sh", ["-c", "head -c 67108864 /dev/zero | gzip -c > \"$0\"", bomb])
        #expect(made.status == 0)
        let limits = ContainerLimits(memberBytes: 1 << 20, totalBytes: 1 << 20)
        #expect {
            _ = try CaptureContainer.open(path: bomb, limits: limits)
        } throws: { error in
            "\(error)".contains("at most 1048576 bytes") && "\(error)".contains("zeros.btsnoop")
        }
    }

    @Test(.sharedCaptures) func zipMemberOverTheLimitIsRefusedByName() throws {
        let zip = try ContainerFixtures.androidBugReport(files: [("btsnoop_hci.log", current)])
        #expect {
            _ = try CaptureContainer.open(path: zip, limits: ContainerLimits(memberBytes: 10_000, totalBytes: 10_000))
        } throws: { error in
            "\(error)".contains("member FS/data/misc/bluetooth/logs/btsnoop_hci.log")
                && "\(error)".contains("at most 10000 bytes")
        }
    }

    @Test(.sharedCaptures) func truncatedSysdiagnoseSaysWhereItEnds() throws {
        let archive = try ContainerFixtures.sysdiagnose(files: [("bluetoothd-hci-latest.pklg", latestPklg)])
        let bytes = try Fixtures.contents(archive)
        let cut = try Fixtures.temporaryFile(Array(bytes.prefix(bytes.count / 2)), name: "cut.tar.gz")
        #expect {
            _ = try CaptureContainer.open(path: cut)
        } throws: { error in
            let error = error as? ContainerError
            return error?.container == cut && error?.offset != nil && error!.expected.contains("cut short")
        }
    }

    @Test(.sharedCaptures) func damagedZipMemberIsNamed() throws {
        let zip = try ContainerFixtures.androidBugReport(files: [("btsnoop_hci.log", current)])
        var bytes = try Fixtures.contents(zip)
        // Scramble the middle of the snoop log's compressed data (the largest entry).
        let middle = bytes.count / 2
        for index in middle..<(middle + 64) { bytes[index] ^= 0x5A }
        let damaged = try Fixtures.temporaryFile(bytes, name: "damaged.zip")
        #expect {
            _ = try CaptureContainer.open(path: damaged)
        } throws: { error in
            (error as? ContainerError)?.member == ContainerFixtures.androidLogs + "btsnoop_hci.log"
        }
    }

    @Test func tarHeaderWithBadChecksumIsRefusedWithItsOffset() throws {
        var block = [UInt8](repeating: 0, count: 1024)
        for (index, byte) in "a.pklg".utf8.enumerated() { block[index] = byte }
        for (index, byte) in "ustar\0".utf8.enumerated() { block[257 + index] = byte }
        for (index, byte) in "0000000\0".utf8.enumerated() { block[148 + index] = byte }
        let path = try Fixtures.temporaryFile(block, name: "bad.tar")
        #expect {
            _ = try CaptureContainer.open(path: path)
        } throws: { error in
            (error as? ContainerError)?.offset == 0 && "\(error)".contains("checksum")
        }
    }

    @Test(.sharedCaptures) func memberPathsCannotLeaveTheTemporaryFolder() throws {
        // A tar whose entry climbs out with ../: unpacked inside the container's own folder.
        let folder = try ContainerFixtures.directory()
        let inner = folder.appendingPathComponent("inner")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: latestPklg, toPath: inner.appendingPathComponent("x.pklg").path)
        let archive = folder.appendingPathComponent("climb.tar").path
        let made = try run(
            "/usr/bin/env",
            ["tar", "--format=pax", "-cf", archive, "-C", inner.path, "--transform=s,^,../../,", "x.pklg"])
        #expect(made.status == 0)
        let container = try open(archive)
        let member = try #require(container.members.first)
        #expect(member.path.hasPrefix("../../"))
        #expect(!member.extractedPath.contains("/../"))
        #expect(try Fixtures.contents(member.extractedPath) == Fixtures.contents(latestPklg))
    }

    @Test(.sharedCaptures) func closingRemovesTheUnpackedMembers() throws {
        let container = try open(try ContainerFixtures.gzip(current))
        let path = container.members[0].extractedPath
        #expect(FileManager.default.fileExists(atPath: path))
        container.close()
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test(.sharedCaptures) func decodeErrorsInAMemberNameTheContainerAndMember() throws {
        var bytes = try Fixtures.contents(current)
        bytes.removeLast(5)  // the last record cut short
        let cut = try Fixtures.temporaryFile(bytes, name: "btsnoop_hci.log")
        let container = try open(try ContainerFixtures.gzip(cut))
        let result = try Fixtures.readAll(container.members[0].extractedPath)
        let fault = try #require(result.fault as? DecodeError)
        #expect(fault.file == container.path + ": btsnoop_hci.log")
    }
}
