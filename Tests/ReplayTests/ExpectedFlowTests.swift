import Foundation
import TestSupport
import Testing

@testable import Flow
@testable import Replay

/// Every expected flow in Captures/, named `CAPTURE.APP.flow`: replaying CAPTURE.btsnoop to APP
/// gives that flow. A comment `# replay: --terminate-at 0.5 …` gives the system events of the
/// replay, as on the command line.
@Suite struct ExpectedFlowTests {
    static let flows =
        ((try? FileManager.default.contentsOfDirectory(
            atPath: Fixtures.packageRoot.appendingPathComponent("Captures").path)) ?? [])
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
        let expected = try Flow(parsing: String(contentsOfFile: Fixtures.capture(name), encoding: .utf8), source: name)
        let engine = ReplayEngine(cassette: cassette)
        engine.events = try Self.events(expected.comments.first { $0.hasPrefix("replay:") } ?? "")
        let actual = await engine.run(name: app.name) { app.make(for: cassette) }
        let diff = FlowDiff(expected: expected, actual: actual)
        #expect(diff.isEqual, "\(diff.report(expectedName: name, actualName: "replay"))")
    }

    /// `replay: --terminate-at 0.5 --launch-at 1.0` → the system events.
    static func events(_ comment: String) throws -> [SystemEvent] {
        let kinds: [String: SystemEvent.Kind] = [
            "--terminate-at": .terminate, "--force-quit-at": .forceQuit, "--power-off-at": .powerOff,
            "--power-on-at": .powerOn,
            "--reset-at": .reset, "--launch-at": .launch,
        ]
        let words = comment.split(separator: " ").dropFirst().map(String.init)
        return try stride(from: 0, to: words.count, by: 2).map { index in
            let kind = try #require(kinds[words[index]], "unknown option \(words[index])")
            let seconds = try #require(
                index + 1 < words.count ? Double(words[index + 1]) : nil, "no time after \(words[index])")
            return SystemEvent(kind, at: seconds)
        }
    }
}
