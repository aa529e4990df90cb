import Foundation
import BLETrace
import Reports
import TestSupport
import Testing

/// The kill-point sweep's choices (identical app states replayed once, `--kill-points N` evenly
/// spread) and its JSON document.
@Suite struct SweepDocumentTests {
    /// Captures and apps whose sweeps have kill points of identical app state (traffic between
    /// connects, subscriptions and disconnections), and the kind of kill.
    static let sweeps: [(capture: String, app: String, kind: SystemEvent.Kind)] = [
        ("restore-notifying.btsnoop", "restoring", .terminate),
        ("restore-notifying.btsnoop", "restoring", .controlCenter),
        ("peripheral-server.btsnoop", "mirror", .crash),
        ("reconnect-supervision-timeout.btsnoop", "heart-rate", .reboot),
        ("peripheral-disconnect-mid-notification.btsnoop", "sensor-server", .forceQuit),
    ]

    /// A kill point not replayed (its app state identical to the one before it) has the outcome
    /// a replay at it gives: the rule loses nothing a full sweep finds.
    @Test(arguments: sweeps.indices)
    func aKillPointWithTheStateOfTheOneBeforeHasItsOutcome(_ index: Int) async throws {
        let (name, appName, kind) = Self.sweeps[index]
        let (cassette, fault) = try Cassette.load(path: Fixtures.capture(name))
        #expect(fault == nil)
        let app = try #require(ReferenceApps.named(appName))
        let chosen = await KillPointSweep.run(cassette, app: app, kind: kind)
        let every = await KillPointSweep.run(cassette, app: app, kind: kind, replaysIdentical: true)
        #expect(every.replayed == every.points.count)
        #expect(chosen.points.count == every.points.count)
        #expect(chosen.replayed < chosen.points.count, "\(name): no kill point shares a state")
        for (one, all) in zip(chosen.points, every.points) {
            #expect(one.seconds == all.seconds)
            #expect(
                one.lost == all.lost && one.gained == all.gained && one.relaunch == all.relaunch,
                "\(name) at \(one.seconds): \(one) vs \(all)")
            if let same = one.sameAs { #expect(same < one.seconds) }
        }
    }

    @Test func killPointsNAreSpreadFromTheFirstToTheLast() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("restore-notifying.btsnoop"))
        let app = try #require(ReferenceApps.named("restoring"))
        let all = await KillPointSweep.run(cassette, app: app, replaysIdentical: true)
        try #require(all.points.count > 5)
        for limit in [1, 2, 5, all.points.count, all.points.count + 3] {
            let some = await KillPointSweep.run(cassette, app: app, killPoints: limit)
            let times = some.points.map(\.seconds)
            #expect(times.count == min(limit, all.points.count))
            #expect(Set(times).isSubset(of: Set(all.points.map(\.seconds))))
            #expect(times == times.sorted())
            if limit >= 2 {
                #expect(times.first == all.points.first?.seconds && times.last == all.points.last?.seconds)
            }
            if limit < all.points.count, limit > 2 {
                // Evenly: the gaps between chosen kill points (counted in kill points) differ by one at most.
                let positions = times.compactMap { time in all.points.firstIndex { $0.seconds == time } }
                let gaps = zip(positions.dropFirst(), positions).map { $0 - $1 }
                #expect(gaps.max()! - gaps.min()! <= 1, "\(gaps)")
            }
        }
    }

    @Test func theDocumentNamesItsPointsInSecondsAndWhichWereReplayed() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("restore-notifying.btsnoop"))
        let app = try #require(ReferenceApps.named("restoring"))
        let sweep = await KillPointSweep.run(cassette, app: app)
        let data = try ReportJSON.encode(
            JSONSweep(sweep, capture: "restore-notifying.btsnoop", app: "restoring", kind: "terminate"), pretty: false)
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(document["version"] as? Int == ReportJSON.version)
        #expect(document["replayed"] as? Int == sweep.replayed)
        let points = try #require(document["points"] as? [[String: Any]])
        #expect(points.count == sweep.points.count)
        #expect(points.filter { $0["same_as_s"] != nil }.count == sweep.points.count - sweep.replayed)
        for (point, value) in zip(points, sweep.points) {
            #expect(point["at_s"] as? Double == (value.seconds * 1_000_000).rounded() / 1_000_000)
        }
    }
}
