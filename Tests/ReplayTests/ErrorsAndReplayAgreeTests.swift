import ATT
import Foundation
import Lifecycle
import TestSupport
import Testing

@testable import Replay

/// `bletrace errors` and `bletrace replay` tell one story: every ATT error the analysis places in
/// an app callback is in the mirror's flow, in that callback with that error, and every error
/// callback of the mirror's flow is one the analysis lists, on every bundled and public capture.
@Suite struct ErrorsAndReplayAgreeTests {
    static let captures = (try? Fixtures.allReadableCaptures()) ?? []

    /// The flow event name of a `peripheral(_:didXxx…)` callback, nil for anything else (no
    /// callback, or one of another delegate).
    static func event(of callback: String) -> String? {
        guard callback.hasPrefix("peripheral(_:") else { return nil }
        return callback.dropFirst("peripheral(_:".count).split(separator: ":").first.map(String.init)
    }

    @Test(arguments: captures)
    func everyErrorTheAppGetsIsInBoth(_ path: String) async throws {
        Fixtures.noteSharedSkipped("ErrorsAndReplayAgreeTests.everyErrorTheAppGetsIsInBoth")
        try await Self.agree(path)
    }

    /// The same on the field captures (real logs nobody here recorded: Android, iPhone, btmon,
    /// pcap and over-the-air), where the two once told different stories.
    @Test(.sharedCaptures, arguments: Fixtures.sharedCaptures("field"))
    func everyErrorTheAppGetsIsInBothOnFieldLogs(_ path: String) async throws {
        try await Self.agree(path)
    }

    static func agree(_ path: String) async throws {
        let analysis = try TraceAnalysis(path: path)
        var listed: [String: Int] = [:]
        for error in analysis.errors where error.layer == .att && !error.expected {
            guard let cb = error.coreBluetooth, let event = Self.event(of: cb.callback) else { continue }
            // The server that refused was the peer's: this host's own refusals reach no app callback.
            #expect(error.server != .local, "frame \(error.record + 1)")
            listed["\(event) CBATTError.\(cb.name ?? "Code(\(cb.code))")", default: 0] += 1
        }
        let (cassette, _) = try Cassette.load(path: path)
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        var played: [String: Int] = [:]
        for event in flow.events where event.actor == "peripheral" {
            guard let error = event.argument("error"), error.hasPrefix("CBATTError.") else { continue }
            played["\(event.name) \(error)", default: 0] += 1
        }
        #expect(listed == played, "errors: \(listed), the mirror's flow: \(played)")
    }

    /// A connection that fails to be established (0x3E): `errors` and `lifecycle` say what the
    /// replay plays by default, no callback (iOS tries again by itself), where they once said
    /// didFailToConnect or didDisconnectPeripheral with CBError.connectionFailed; the other
    /// reading is named in the words.
    @Test(.sharedCaptures) func aFailedEstablishmentIsUnheardInBoth() async throws {
        let path = Fixtures.publicCapture("mchwalisz-lightsapp.btsnoop")
        let analysis = try TraceAnalysis(path: path)
        let failed = analysis.errors.filter { $0.layer == .hci && $0.code == 0x3E }
        #expect(!failed.isEmpty)
        for error in failed {
            let cb = try #require(error.coreBluetooth)
            #expect(cb.callback.hasPrefix("no callback: iOS tries again by itself"), "\(cb.callback)")
            #expect(cb.callback.contains("--establishment-failure fail"))
            #expect(cb.code == 10 && cb.evidence == .hypothesis, "the other reading's error, as it was graded")
        }
        #expect(
            analysis.lifecycle.connections.filter { $0.failedEstablishment != nil }.allSatisfy { $0.cbError == nil })
        let (cassette, _) = try Cassette.load(path: path)
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        #expect(!flow.events.contains { $0.argument("error") == "CBError.connectionFailed" })
        #expect(flow.comments.contains { $0.contains("iOS tries again by itself and tells the app nothing") })
    }

    @Test func theInvariantCoversCapturesWithErrorsInAppCallbacks() throws {
        // Not a vacuous check: several captures have errors that reach the app.
        var withErrors = 0
        for path in Self.captures {
            let errors = try TraceAnalysis(path: path).errors
            if errors.contains(where: {
                !$0.expected && $0.coreBluetooth.flatMap { Self.event(of: $0.callback) } != nil
            }) {
                withErrors += 1
            }
        }
        #expect(withErrors >= 3)
    }
}
