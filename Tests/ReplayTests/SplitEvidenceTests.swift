import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Dispatch
import Foundation
import TestSupport
import Testing

@testable import Replay

/// Where what iOS does is thin or split evidence, the replay's default and the other reading
/// (Formats/corebluetooth.md, "What iOS does on its own"): a connection that fails to be
/// established (0x3E), and a pairing cancelled on the phone.
@Suite struct SplitEvidenceTests {
    // MARK: A failed connection establishment (0x3E)

    /// Two captured attempts: the first fails to be established (0x3E), the second connects.
    static let failedThenConnected = cassette([
        episode(id: 0, attempt: 1, complete: 1.5, status: 0x3E),
        episode(id: 1, attempt: 2, complete: 2.5),
    ])

    @Test func aFailedEstablishmentIsRetriedByIOSWithNoCallback() async {
        let flow = await ReplayEngine(cassette: Self.failedThenConnected).run(OneShotApp(), name: "one-shot")
        #expect(!flow.events.contains { $0.name == "didFailToConnect" })
        #expect(signatures(flow).filter { $0.hasPrefix("app connect") }.count == 1)
        #expect(signatures(flow).last == "central didConnect peripheral=F0:F1:F2:F3:F4:05")
        #expect(flow.events.last?.time == 2.5)
        #expect(
            flow.comments.contains {
                $0.contains("failed to be established (0x3E) at +1.500000; iOS tries again by itself")
            })
    }

    @Test func aLinkThatDropsWith0x3EBeforeItIsUsedIsAFailedEstablishmentToo() async {
        // The controller completed the connection, then lost it within six connection events.
        let flow = await ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: 1.2, disconnect: 1.3, reason: 0x3E),
                episode(id: 1, attempt: 2, complete: 2.5),
            ])
        ).run(OneShotApp(), name: "one-shot")
        #expect(!flow.events.contains { $0.name == "didDisconnectPeripheral" })
        #expect(flow.events.filter { $0.name == "didConnect" }.map(\.time) == [2.5])
    }

    @Test func theOtherReadingReportsTheFailureAsBefore() async {
        let engine = ReplayEngine(cassette: Self.failedThenConnected)
        engine.platform = Platform(establishmentFailure: .fail)
        let flow = await engine.run(OneShotApp(), name: "one-shot")
        #expect(
            signatures(flow).last
                == "central didFailToConnect peripheral=F0:F1:F2:F3:F4:05 error=CBError.connectionFailed")
        #expect(flow.events.last?.time == 1.5)
    }

    @Test func underTheOtherReadingALinkLostWith0x3EEndsWithConnectionFailed() async {
        let engine = ReplayEngine(
            cassette: cassette([episode(id: 0, attempt: 1, complete: 1.2, disconnect: 1.3, reason: 0x3E)]))
        engine.platform = Platform(establishmentFailure: .fail)
        let flow = await engine.run(OneShotApp(), name: "one-shot")
        #expect(
            signatures(flow).last
                == "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBError.connectionFailed")
    }

    /// The replay and the reports read one type, with one default.
    @Test func theReplaysReadingIsTheReportsOne() {
        #expect(Platform().establishmentFailure == EstablishmentFailure.default)
        #expect(Platform.EstablishmentFailure.self == EstablishmentFailure.self)
    }

    // MARK: A pairing cancelled on the phone

    @Test func underTheOtherReadingACancelledPairingFailsTheRequestAndKeepsTheLink() async throws {
        let cassette = PairingOutcomeTests.refusedThenPairingFails(failedBy: .sent)
        let engine = ReplayEngine(cassette: cassette)
        engine.platform = Platform(pairingCancel: .failsRequest)
        let flow = await engine.run(MirrorApp(cassette: cassette), name: "mirror")
        let read = try #require(flow.events.first { $0.name == "didUpdateValueFor" })
        #expect(read.argument("error") == "CBInternalError.pairingCancelled")
        #expect(read.time == 1.4)
        // The link ends only when the capture's does, by the captured app's own choice: not played.
        #expect(!flow.events.contains { $0.name == "didDisconnectPeripheral" && $0.time == 1.4 })
        #expect(flow.comments.contains { $0.contains("the request gets the error, the link stays") })
    }
}
