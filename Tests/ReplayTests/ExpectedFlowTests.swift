import Foundation
import TestSupport
import Testing

@testable import Replay

/// Every expected flow in Captures/, named `CAPTURE.APP.flow`: replaying CAPTURE.btsnoop to APP
/// gives that flow.
@Suite struct ExpectedFlowTests {
    static let flows = ((try? FileManager.default.contentsOfDirectory(atPath: Fixtures.packageRoot.appendingPathComponent("Captures").path)) ?? [])
        .filter { $0.hasSuffix(".flow") }.sorted()

    @Test func thereIsOneForEachReferenceAppAndForAtLeastSixCaptures() {
        let apps = Set(Self.flows.map { $0.split(separator: ".").dropLast().last.map(String.init) ?? "" })
        #expect(Set(ReferenceApps.all.map(\.name)).isSubset(of: apps))
        #expect(Set(Self.flows.map { $0.split(separator: ".")[0] }).count >= 5)
    }

    @Test(arguments: flows)
    func theReplayGivesTheExpectedFlow(_ name: String) async throws {
        let parts = name.split(separator: ".")
        let capture = Fixtures.capture(parts.dropLast(2).joined(separator: ".") + ".btsnoop")
        let app = try #require(ReferenceApps.named(String(parts[parts.count - 2])))
        let (cassette, fault) = try Cassette.load(path: capture)
        #expect(fault == nil)
        let actual = await ReplayEngine(cassette: cassette).run(app.make(for: cassette), name: app.name)
        let expected = try Flow(parsing: String(contentsOfFile: Fixtures.capture(name), encoding: .utf8), source: name)
        let diff = FlowDiff(expected: expected, actual: actual)
        #expect(diff.isEqual, "\(diff.report(expectedName: name, actualName: "replay"))")
    }
}
