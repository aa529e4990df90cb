import Foundation
import Testing
import TestSupport

/// Every command reads a container as it comes, and says the same of its member as of the plain
/// capture: an Android bug report zip, a sysdiagnose .tar.gz, a gzip, on standard input too.
@Suite struct ContainerCommandTests {
    let current = Fixtures.publicCapture("whoisbe-pongbot.btsnoop")
    let previous = Fixtures.publicCapture("whoisbe-pongbot-last.btsnoop")

    func bugReport() throws -> String {
        try ContainerFixtures.androidBugReport(files: [
            ("btsnoop_hci.log", current), ("btsnoop_hci.log.last", previous),
        ])
    }

    @Test(
        .sharedCaptures,
        arguments: [
            ["decode"], ["decode", "--format", "jsonl"], ["lifecycle"], ["lifecycle", "--format", "json"], ["errors"],
            ["errors", "--format", "jsonl"], ["gatt"], ["stats"], ["diagnose"], ["diagnose", "--format", "jsonl"],
        ])
    func bugReportReadsAsItsCurrentSnoopLog(command: [String]) throws {
        let zip = try bugReport()
        let plain = try bletrace(command + [current])
        let contained = try bletrace(command + [zip])
        #expect(contained.status == plain.status)
        #expect(!plain.stdout.isEmpty)
        #expect(contained.stdout.replacingOccurrences(of: zip, with: current) == plain.stdout)
    }

    @Test(.sharedCaptures) func memberPicksTheRotatedLog() throws {
        let zip = try bugReport()
        let plain = try bletrace("lifecycle", "--format", "json", previous)
        let contained = try bletrace("lifecycle", "--format", "json", "--member", "btsnoop_hci.log.last", zip)
        #expect(contained.status == plain.status)
        #expect(contained.stdout.replacingOccurrences(of: zip, with: previous) == plain.stdout)
    }

    @Test(.sharedCaptures) func infoListsTheMembersWithFormatsAndCounts() throws {
        let zip = try bugReport()
        let result = try bletrace("info", "--format", "json", zip)
        #expect(result.status == 0)
        let document = try json(result.stdout)
        let container = try #require(document["container"] as? [String: Any])
        #expect(container["kind"] as? String == "zip")
        let members = try #require(container["members"] as? [[String: Any]])
        #expect(
            members.map { $0["path"] as? String } == [
                ContainerFixtures.androidLogs + "btsnoop_hci.log",
                ContainerFixtures.androidLogs + "btsnoop_hci.log.last",
            ])
        let currentCount = try #require(
            try json(bletrace("info", "--format", "json", current).stdout)["records"] as? Int)
        let previousCount = try #require(
            try json(bletrace("info", "--format", "json", previous).stdout)["records"] as? Int)
        #expect(members.map { $0["records"] as? Int } == [currentCount, previousCount])
        #expect(members.map { $0["default"] as? Bool } == [true, false])
        #expect(members.map { $0["read"] as? Bool } == [true, false])
        #expect(members.allSatisfy { $0["format"] as? String == "btsnoop" })
        #expect(document["records"] as? Int == currentCount)

        let text = try bletrace("info", "--member", "btsnoop_hci.log.last", zip).stdout
        #expect(text.contains("container: zip, 2 captures"))
        #expect(text.contains("  * " + ContainerFixtures.androidLogs + "btsnoop_hci.log.last"))
        #expect(text.contains("records:  \(previousCount)"))
    }

    @Test(.sharedCaptures) func unknownMemberIsBadInputListingTheCaptures() throws {
        let result = try bletrace("lifecycle", "--member", "nope.log", try bugReport())
        #expect(result.status == 2)
        #expect(result.stderr.contains("nope.log") && result.stderr.contains("btsnoop_hci.log.last"))
    }

    @Test(.sharedCaptures) func memberOfAPlainCaptureIsBadInput() throws {
        let result = try bletrace("lifecycle", "--member", "x", current)
        #expect(result.status == 2)
        #expect(result.stderr.contains("not a container"))
    }

    @Test(.sharedCaptures) func sysdiagnoseOnStandardInputReadsItsLatestPacketLogger() throws {
        let latest = Fixtures.publicCapture("elkusbry-peripage.pklg")
        let archive = try ContainerFixtures.sysdiagnose(files: [
            ("bluetoothd-hci-latest.pklg", latest),
            ("bluetoothd-hci-2026-01-01_09-00-00.pklg", Fixtures.publicCapture("fotonick-hciparse-test00.pklg")),
        ])
        let plain = try bletrace("lifecycle", latest)
        let piped = try bletrace(["lifecycle", "-"], input: try Data(contentsOf: URL(fileURLWithPath: archive)))
        #expect(piped.status == plain.status)
        #expect(piped.stdout == plain.stdout)
    }

    @Test func replayOfAGzipPlaysTheSameFlow() throws {
        let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
        let gz = try ContainerFixtures.gzip(capture)
        let plain = try bletrace("replay", capture, "--app", "reconnecting")
        let contained = try bletrace("replay", gz, "--app", "reconnecting")
        #expect(contained.status == plain.status)
        let body = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("#") } }
        #expect(!body(plain.stdout).isEmpty)
        #expect(body(contained.stdout) == body(plain.stdout))
    }

    @Test(.sharedCaptures) func convertTakesAMemberOut() throws {
        let out = try ContainerFixtures.directory().appendingPathComponent("last.btsnoop").path
        let result = try bletrace("convert", "--member", "btsnoop_hci.log.last", try bugReport(), out)
        #expect(result.status == 0)
        #expect(try Fixtures.contents(out) == Fixtures.contents(previous))
    }

    @Test(.sharedCaptures) func directoryOfContainersIsReadMemberByMember() throws {
        let folder = try ContainerFixtures.directory()
        let zip = try bugReport()
        try FileManager.default.copyItem(atPath: zip, toPath: folder.appendingPathComponent("a.zip").path)
        try FileManager.default.copyItem(
            atPath: try ContainerFixtures.gzip(previous), toPath: folder.appendingPathComponent("b.btsnoop.gz").path)
        let result = try bletrace("stats", "--format", "jsonl", "--jobs", "1", folder.path)
        #expect(result.status == 0)
        let files = try jsonLines(result.stdout).compactMap { $0["file"] as? String }
        #expect(
            Set(files) == [
                folder.appendingPathComponent("a.zip").path, folder.appendingPathComponent("b.btsnoop.gz").path,
            ])
    }

    @Test(.sharedCaptures) func damagedContainerIsBadInputNamingTheMember() throws {
        var bytes = try Fixtures.contents(try bugReport())
        let middle = bytes.count / 2
        for index in middle..<(middle + 64) { bytes[index] ^= 0x5A }
        let damaged = try Fixtures.temporaryFile(bytes, name: "damaged.zip")
        let result = try bletrace("lifecycle", damaged)
        #expect(result.status == 2)
        #expect(result.stderr.contains(damaged) && result.stderr.contains("member "))
    }
}
