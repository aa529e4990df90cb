import Foundation
import TestSupport
import Testing

@testable import BletraceCLI

/// `replay` with the selection options (Formats/commands.md, "Conventions", Sources/BletraceCLI/ReplaySelection.swift):
/// the capture cut to them, replayed as if the cut were the whole capture.
@Suite struct ReplaySelectionTests {
    /// A btsnoop file of the records of `path` that `keep` keeps (by index and time in seconds
    /// after the first record), byte for byte.
    func cut(_ path: String, keep: (Int, Double) -> Bool) throws -> String {
        let bytes = try Fixtures.contents(path)
        let (records, fault) = try Fixtures.readAll(path)
        try #require(fault == nil)
        let origin = try #require(records.first).timestamp.microseconds
        var out = Array(bytes[..<16])
        for (index, record) in records.enumerated() {
            let end = index + 1 < records.count ? Int(records[index + 1].fileOffset) : bytes.count
            let seconds = Double(record.timestamp.microseconds - origin) / 1_000_000
            if keep(index, seconds) { out += bytes[Int(record.fileOffset)..<end] }
        }
        return try Fixtures.temporaryFile(out, name: "cut.btsnoop")
    }

    /// The flow without its first comment (which names the capture and the options).
    func events(_ flow: String) -> [Substring] { flow.split(separator: "\n").filter { !$0.hasPrefix("# capture:") } }

    @Test(arguments: [
        ("reconnect-supervision-timeout.btsnoop", "reconnecting", 0.5, 3.0),
        ("att-errors.btsnoop", "mirror", 0.2, 1.2),
        ("restore-notifying.btsnoop", "restoring", 0.0, 0.6),
    ])
    func fromAndToReplayTheCaptureCutToThatWindow(name: String, app: String, from: Double, to: Double) throws {
        let capture = Fixtures.capture(name)
        let selected = try bletrace("replay", capture, "--app", app, "--from", "\(from)", "--to", "\(to)")
        #expect(selected.status == 0, "\(selected.stderr)")
        let cutFile = try cut(capture) { _, seconds in seconds >= from && seconds <= to }
        let whole = try bletrace("replay", cutFile, "--app", app)
        #expect(events(selected.stdout) == events(whole.stdout))
        #expect(selected.stdout.contains("app: \(app)  --from \(from) --to \(to)"), "\(selected.stdout.prefix(300))")
        // A window that leaves something out plays less than the whole capture.
        let all = try bletrace("replay", capture, "--app", app)
        #expect(events(all.stdout) != events(selected.stdout))
    }

    /// Of an Android log with three LE peers, `--peer` plays one: no event names another, and
    /// that peer's own events are those of the whole replay.
    @Test(.sharedCaptures) func peerLeavesTheOtherDevicesOut() throws {
        let capture = Fixtures.publicCapture("whoisbe-pongbot.btsnoop")
        let lifecycle = try json(try bletrace("lifecycle", capture, "--format", "json", "--transport", "le").stdout)
        let peers = Array(
            Set(try #require(lifecycle["connections"] as? [[String: Any]]).compactMap { $0["peer"] as? String })
        ).sorted()
        try #require(peers.count >= 3, "\(peers)")
        let whole = try bletrace("replay", capture)
        for (peer, other) in [(peers[0], peers[1]), (peers[1], peers[2]), (peers[2], peers[0])] {
            let one = try bletrace("replay", capture, "--peer", peer)
            #expect(one.status == 0, "\(one.stderr)")
            #expect(one.stderr.isEmpty)
            let played = events(one.stdout).filter { !$0.hasPrefix("#") }
            #expect(!played.contains { $0.contains(other) }, "\(one.stdout)")
            let mine = played.filter { $0.contains(peer) }
            #expect(!mine.isEmpty)
            let wholeMine = events(whole.stdout).filter { !$0.hasPrefix("#") && $0.contains(peer) }
            #expect(
                mine.map { $0.split(separator: " ").dropFirst().joined(separator: " ") }
                    == wholeMine.map { $0.split(separator: " ").dropFirst().joined(separator: " ") })
        }
    }

    @Test func aPeerThatNamesNoDeviceIsAWarningAndBriefIsRefused() throws {
        let capture = Fixtures.capture("att-errors.btsnoop")
        let nobody = try bletrace("replay", capture, "--peer", "nobody")
        #expect(nobody.stderr == "bletrace: warning: --peer nobody names no device of \(capture)\n")
        let brief = try bletrace("replay", capture, "--brief")
        #expect(brief.status == 2)
        #expect(brief.stderr.hasPrefix("bletrace: --brief"))
    }

    /// The sweep takes them too: its kill points lie in the window.
    @Test func theSweepSweepsTheWindow() throws {
        let capture = Fixtures.capture("restore-notifying.btsnoop")
        let sweep = try bletrace(
            "replay", capture, "--app", "restoring", "--sweep", "terminate", "--format", "json", "--to", "0.3")
        let whole = try bletrace("replay", capture, "--app", "restoring", "--sweep", "terminate", "--format", "json")
        let points = try #require(try json(sweep.stdout)["points"] as? [[String: Any]])
        let all = try #require(try json(whole.stdout)["points"] as? [[String: Any]])
        #expect(!points.isEmpty && points.count < all.count)
        #expect(points.allSatisfy { ($0["at_s"] as? Double ?? 1) <= 0.3 + 0.002 })
    }

    /// The cut of an iPhone's own capture (PacketLogger) is still an Apple host's: the replay
    /// keeps the MTU it exchanged, as the whole capture's replay does (the cut cassette said
    /// otherwise before the analysis pass: its reading left `hostIsApple` false).
    @Test func theCutOfAnApplehostsCaptureIsStillApples() throws {
        let path = Fixtures.capture("att-errors.pklg")
        let options = try SelectionOptions.parse(["--peer", "F0:F1:F2:F3:F4:05"])
        let (cut, fault, nobody) = try options.cassette(path: path)
        #expect(fault == nil && !nobody)
        #expect(cut.hostIsApple)
        #expect(cut.links(of: try #require(cut.peers.first)).compactMap(\.mtu) == [247])
        let (btsnoop, _, _) = try options.cassette(path: Fixtures.capture("att-errors.btsnoop"))
        #expect(!btsnoop.hostIsApple)
    }
}
