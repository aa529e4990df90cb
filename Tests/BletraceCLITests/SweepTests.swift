import Foundation
import TestSupport
import Testing

/// `bletrace replay CAPTURE --app NAME --sweep terminate` on the five state-restoration captures:
/// the app that follows the seeds loses nothing at any kill point, the one without a restore
/// identifier loses something at some, and says what.
@Suite struct SweepTests {
    static let captures = [
        "restore-scanning", "restore-pending-connection", "restore-connected", "restore-out-of-range",
        "restore-notifying",
    ]

    @Test(arguments: captures)
    func theRestoringAppLosesNothingAtAnyKillPoint(_ capture: String) throws {
        let result = try bletrace(
            "replay", Fixtures.capture(capture + ".btsnoop"), "--app", "restoring", "--sweep", "terminate")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("no kill point loses anything\n"))
    }

    @Test(arguments: captures)
    func theForgetfulAppLosesAndTheReportNamesWhat(_ capture: String) throws {
        let result = try bletrace(
            "replay", Fixtures.capture(capture + ".btsnoop"), "--app", "forgetful", "--sweep", "terminate", "--format",
            "json")
        #expect(result.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let points = try #require(document["points"] as? [[String: Any]])
        let losing = points.filter { ($0["lost"] as? [String])?.isEmpty == false }
        #expect(document["losing"] as? Int == losing.count)
        #expect(!losing.isEmpty)
        // Each loss is something the run without a kill held.
        let reference = try #require(document["reference"] as? [String: [String]])
        let held = Set(
            reference["connected", default: []].map { "connected \($0)" }
                + reference["subscribed", default: []].map { "subscribed \($0)" }
                + reference["pending", default: []].map { "pending \($0)" })
        for point in losing { #expect(Set(point["lost"] as! [String]).isSubset(of: held)) }
        // The kill points are in time order, between the events of the run.
        let times = points.compactMap { $0["at_s"] as? Double }
        #expect(times == times.sorted() && times.count == points.count)
    }

    /// The reconnecting app sets no delegate on its peripheral; it still ends the capture
    /// connected, and a kill while it is connected loses that connection (it has no restore
    /// identifier), as the replay without a kill shows.
    @Test func anAppHoldingAConnectionWithoutAPeripheralDelegateLosesItToAKill() throws {
        let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
        let replay = try bletrace("replay", capture, "--app", "reconnecting")
        #expect(replay.stdout.contains("# at the end of the capture: F0:F1:F2:F3:F4:05 is connected"))
        let sweep = try bletrace("replay", capture, "--app", "reconnecting", "--sweep", "terminate")
        #expect(sweep.stdout.contains("without a kill the app ends connected to F0:F1:F2:F3:F4:05"), "\(sweep.stdout)")
        #expect(sweep.stdout.contains(" connected F0:F1:F2:F3:F4:05 "), "\(sweep.stdout)")
        #expect(!sweep.stdout.hasSuffix("no kill point loses anything\n"))
        #expect(sweep.status == 1)
    }

    @Test func theTextReportNamesTheFirstLosingKillPoint() throws {
        let result = try bletrace(
            "replay", Fixtures.capture("restore-notifying.btsnoop"), "--app", "naive", "--sweep", "terminate")
        #expect(result.status == 1)
        let verdict = try #require(result.stdout.split(separator: "\n").last)
        #expect(verdict.contains("kill points lose something; the first, at +"))
        #expect(verdict.contains("loses connected F0:F1:F2:F3:F4:05"))
    }

    @Test func aForceQuitSweepLosesEvenForTheRestoringApp() throws {
        // A force quit keeps nothing (state-restoration seed): the connection is gone.
        let result = try bletrace(
            "replay", Fixtures.capture("restore-connected.btsnoop"), "--app", "restoring", "--sweep", "force-quit")
        #expect(result.status == 1)
    }

    @Test func sweepAllGivesOneLinePerKindAndTheReleaseChangesIt() throws {
        let capture = Fixtures.capture("restore-pending-connection.btsnoop")
        let ios26 = try bletrace("replay", capture, "--app", "restoring", "--sweep", "all")
        let ask = try bletrace("replay", capture, "--app", "restoring", "--sweep", "all", "--accessory-setup-kit")
        #expect(ios26.status == 1 && ask.status == 1)  // a Settings toggle loses the pending connect on every release
        func row(_ output: String, _ kind: String) -> String? {
            output.split(separator: "\n").map(String.init).first { $0.hasPrefix(kind + " ") }
        }
        for kind in [
            "terminate", "crash", "force-quit", "reboot", "settings-toggle", "control-center", "airplane-mode",
        ] {
            #expect(row(ios26.stdout, kind) != nil, "\(kind) in\n\(ios26.stdout)")
        }
        #expect(row(ios26.stdout, "terminate")?.contains(" 0 of ") == true)
        #expect(row(ios26.stdout, "force-quit")?.contains(" 0 of ") == false)
        #expect(row(ask.stdout, "force-quit")?.contains(" 0 of ") == true)
        #expect(
            ios26.stdout.hasPrefix("every kind of sweep of restoring on restore-pending-connection.btsnoop, iOS 26:"))
        let json = try bletrace(
            "replay", capture, "--app", "restoring", "--sweep", "all", "--format", "json", "--ios", "18")
        let documents = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(
            documents.map { $0["kind"] as? String } == [
                "terminate", "crash", "force-quit", "reboot", "settings-toggle", "control-center", "airplane-mode",
            ])
    }

    @Test func optionsThatNeedAnotherAreRefused() throws {
        let capture = Fixtures.capture("restore-connected.btsnoop")
        let via = try bletrace("replay", capture, "--via", "control-center")
        #expect(via.status != 0 && via.stderr.contains("--via says how --power-off-at"))
        let unlock = try bletrace("replay", capture, "--unlock-at", "1")
        #expect(unlock.status != 0 && unlock.stderr.contains("use it with --reboot-at"))
        let ios = try bletrace("replay", capture, "--ios", "16")
        #expect(ios.status != 0)
    }

    @Test func theFlowHeaderNamesTheReleaseAndTheWayBluetoothWentOff() throws {
        let result = try bletrace(
            "replay", Fixtures.capture("restore-connected.btsnoop"), "--power-off-at", "0.5", "--via", "control-center",
            "--ios", "18")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("--power-off-at 0.5 --via control-center --ios 18"))
        #expect(result.stdout.contains("system powerOff via=controlCenter"))
    }

    @Test func systemEventTimesMustBeSecondsFromTheStart() throws {
        let result = try bletrace("replay", Fixtures.capture("restore-connected.btsnoop"), "--terminate-at=-1")
        #expect(result.status == 64 || result.status == 2)
        #expect(result.stderr.contains("0 or more"))
    }
}
