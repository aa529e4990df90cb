import CoreBluetoothCodes
import Foundation
import HCI
import Lifecycle
import BLETraceCoreBluetooth
import TestSupport
import Testing
import Wire

@testable import Flow
@testable import Replay

let peer = BluetoothAddress("F0:F1:F2:F3:F4:05")!

/// A connection episode, as the lifecycle analyzer would report it (times in seconds).
func episode(
    id: Int, attempt: Double, complete: Double?, status: UInt8 = 0, disconnect: Double? = nil,
    reason: UInt8? = nil, local: Bool = false, cancel: Double? = nil
) -> Connection {
    var connection = Connection(id: id)
    connection.role = .central
    connection.peer = peer
    // (The records are the capture's none: the replay plays episodes by their times.)
    connection.attempt = Connection.Attempt(time: Timestamp(microseconds: Int64(attempt * 1e6)), record: 0)
    connection.completion = complete.map {
        Connection.Completion(
            time: Timestamp(microseconds: Int64($0 * 1e6)), record: 0, status: HCIStatus(rawValue: status))
    }
    connection.cancelTime = cancel.map { Timestamp(microseconds: Int64($0 * 1e6)) }
    if status != 0, complete != nil {
        connection.cbError = Mapped(
            value: .cb(CoreBluetoothMapping.connectionFailureError(status: HCIStatus(rawValue: status)).value),
            evidence: .reported)
    }
    if let disconnect, let reason {
        connection.disconnection = Connection.Disconnection(
            time: Timestamp(microseconds: Int64(disconnect * 1e6)), record: 0, reason: HCIStatus(rawValue: reason),
            initiator: local ? .local : .remote)
        connection.cbError = CoreBluetoothMapping.disconnectionError(
            reason: HCIStatus(rawValue: reason), requestedByApp: local)
    }
    return connection
}

func cassette(_ episodes: [Connection], end: Double = 100) -> Cassette {
    Cassette(
        report: LifecycleReport(
            connections: episodes, firstTime: Timestamp(microseconds: 0),
            lastTime: Timestamp(microseconds: Int64(end * 1e6)), records: 0))
}

func signatures(_ flow: Flow) -> [String] { flow.events.map(\.signature) }

/// Connects once and never reconnects.
final class OneShotApp: NSObject, BluetoothApp, CBCentralManagerDelegate {
    var central: CBCentralManager?
    var known: [UUID] = []
    /// Kept, as an iOS app must keep it (iOS ends the connection of a peripheral the app lets go of).
    var target: CBPeripheral?
    let cancelAfterConnect: Bool
    init(cancelAfterConnect: Bool = false) { self.cancelAfterConnect = cancelAfterConnect }
    func didFinishLaunching(_ launch: Launch) {
        known = launch.knownPeripherals
        central = CBCentralManager(delegate: self, queue: nil)
    }
    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        target = central.retrievePeripherals(withIdentifiers: known).first
        if let target { central.connect(target) }
    }
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        if cancelAfterConnect { central.cancelPeripheralConnection(peripheral) }
    }
}

@Suite struct ReplayEngineTests {
    @Test func theReconnectingAppReconnectsAfterASupervisionTimeout() async {
        let flow = await ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: 1.2, disconnect: 5, reason: 0x08),
                episode(id: 1, attempt: 6, complete: 6.3, disconnect: 9, reason: 0x16, local: true),
            ])
        ).run(ReferenceApps.named("reconnecting")!.make(for: cassette([])), name: "reconnecting")
        #expect(
            signatures(flow) == [
                "system launch app=reconnecting",
                "central didUpdateState state=poweredOn",
                "app connect peripheral=F0:F1:F2:F3:F4:05",
                "central didConnect peripheral=F0:F1:F2:F3:F4:05",
                "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBError.connectionTimeout",
                "app connect peripheral=F0:F1:F2:F3:F4:05",
                "central didConnect peripheral=F0:F1:F2:F3:F4:05",
            ])
        // Events happen at the capture's times.
        #expect(flow.events.compactMap(\.time) == [0, 0, 0, 1.2, 5, 5, 6.3])
        // The captured app's own local disconnection (0x16) is not played back: this app's link stays up.
        #expect(
            flow.comments == [
                "F0:F1:F2:F3:F4:05: the capture's app disconnected at +9.000000 and never connected again; this app's link stays up",
                "at the end of the capture: F0:F1:F2:F3:F4:05 is connected",
            ])
    }

    @Test func anAppThatDoesNotReconnectStaysDisconnected() async {
        let flow = await ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: 1.2, disconnect: 5, reason: 0x08),
                episode(id: 1, attempt: 6, complete: 6.3),
            ])
        ).run(OneShotApp(), name: "one-shot")
        #expect(
            signatures(flow).suffix(2) == [
                "central didConnect peripheral=F0:F1:F2:F3:F4:05",
                "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBError.connectionTimeout",
            ])
    }

    @Test func aCancelGivesDidDisconnectWithNoErrorAndDropsThePeersLaterDisconnection() async {
        let flow = await ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: 1.2, disconnect: 5, reason: 0x08)
            ])
        ).run(OneShotApp(cancelAfterConnect: true), name: "one-shot")
        #expect(
            signatures(flow).suffix(3) == [
                "central didConnect peripheral=F0:F1:F2:F3:F4:05",
                "app cancelPeripheralConnection peripheral=F0:F1:F2:F3:F4:05",
                "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=nil",
            ])
        #expect(flow.events.last?.time == 1.2)
    }

    @Test func aFailedAttemptIsRetriedAndTheRetryMatchesTheNextCapturedConnection() async {
        // The app's own retry, under the reading where iOS reports the failure (by default it
        // retries by itself: SplitEvidenceTests).
        let engine = ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: 1.5, status: 0x3E),
                episode(id: 1, attempt: 2, complete: 2.5),
            ]))
        engine.platform = Platform(establishmentFailure: .fail)
        let flow = await engine.run(ReferenceApps.named("reconnecting")!.make(for: cassette([])), name: "reconnecting")
        #expect(
            signatures(flow).suffix(4) == [
                "app connect peripheral=F0:F1:F2:F3:F4:05",
                "central didFailToConnect peripheral=F0:F1:F2:F3:F4:05 error=CBError.connectionFailed",
                "app connect peripheral=F0:F1:F2:F3:F4:05",
                "central didConnect peripheral=F0:F1:F2:F3:F4:05",
            ])
        #expect(flow.events.last?.time == 2.5)
    }

    @Test func attemptsTheCapturedAppCancelledDoNotEndThisAppsAttempt() async {
        // The captured app gave up once; this app's attempt goes on to the later connection.
        let flow = await ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: nil, cancel: 3),
                episode(id: 1, attempt: 4, complete: 4.5),
            ])
        ).run(OneShotApp(), name: "one-shot")
        #expect(signatures(flow).last == "central didConnect peripheral=F0:F1:F2:F3:F4:05")
        #expect(flow.events.last?.time == 4.5)
    }

    @Test func aLateConnectGetsAConnectionThatIsStillUpAtOnceButNotOneThatIsOver() async {
        /// Connects from a timer, 5 s after launch.
        final class LateApp: NSObject, BluetoothApp, CBCentralManagerDelegate {
            var central: CBCentralManager?
            var target: CBPeripheral?
            func didFinishLaunching(_ launch: Launch) {
                let central = CBCentralManager(delegate: self, queue: nil)
                self.central = central
                launch.asyncAfter(5) { [self] in
                    target = central.retrievePeripherals(withIdentifiers: launch.knownPeripherals)[0]
                    central.connect(target!)
                }
            }
            func centralManagerDidUpdateState(_ central: CBCentralManager) {}
        }
        // The first connection is over at 2 s; the second came up at 3.2 s and lasts to 9 s.
        let flow = await ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: 1.2, disconnect: 2, reason: 0x08),
                episode(id: 1, attempt: 3, complete: 3.2, disconnect: 9, reason: 0x13),
            ])
        ).run(LateApp(), name: "late")
        #expect(
            signatures(flow).suffix(3) == [
                "app connect peripheral=F0:F1:F2:F3:F4:05",
                "central didConnect peripheral=F0:F1:F2:F3:F4:05",
                "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBError.peripheralDisconnected",
            ])
        #expect(flow.events.suffix(3).map(\.time) == [5, 5, 9])
    }

    @Test func anAttemptWithNothingToMatchStaysPendingForever() async {
        let flow = await ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: nil)
            ])
        ).run(OneShotApp(), name: "one-shot")
        #expect(signatures(flow).last == "app connect peripheral=F0:F1:F2:F3:F4:05")
        #expect(flow.comments == ["at the end of the capture: F0:F1:F2:F3:F4:05 is connecting"])
    }

    @Test func theBundledCaptureReplaysToItsExpectedFlow() async throws {
        let (cassette, fault) = try Cassette.load(path: Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        #expect(fault == nil)
        let actual = await ReplayEngine(cassette: cassette).run(
            ReferenceApps.named("reconnecting")!.make(for: cassette), name: "reconnecting")
        let text = try String(
            contentsOfFile: Fixtures.capture("reconnect-supervision-timeout.reconnecting.flow"), encoding: .utf8)
        let diff = FlowDiff(expected: try Flow(parsing: text), actual: actual)
        #expect(diff.isEqual, "\(diff.report(expectedName: "expected", actualName: "actual"))")
    }
}

/// An app that keeps a link the captured app closed hears of the peer again: the peer's next
/// connection in the capture continues the link (Formats/flow.md, "Links and peers").
@Suite struct LinkContinuationTests {
    @Test func thePeersNextConnectionContinuesALinkTheCapturedAppClosed() async {
        let flow = await ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: 1.2, disconnect: 5, reason: 0x16, local: true),
                episode(id: 1, attempt: 6, complete: 6.3, disconnect: 9, reason: 0x08),
            ])
        ).run(OneShotApp(), name: "one-shot")
        #expect(
            signatures(flow).suffix(2) == [
                "central didConnect peripheral=F0:F1:F2:F3:F4:05",
                "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBError.connectionTimeout",
            ])
        #expect(flow.events.last?.time == 9)
        #expect(flow.comments.contains { $0.contains("continues as the capture's next connection, from +6.300000") })
    }

    @Test func withNoLaterConnectionTheLinkStaysUp() async {
        let flow = await ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: 1.2, disconnect: 5, reason: 0x16, local: true)
            ])
        ).run(OneShotApp(), name: "one-shot")
        #expect(flow.events.last?.name == "didConnect")
        #expect(flow.comments.contains("at the end of the capture: F0:F1:F2:F3:F4:05 is connected"))
    }

    @Test(.sharedCaptures) func aRealSupervisionTimeoutAfterTheCapturedAppsOwnDisconnectionReachesTheApp() async throws
    {
        let path = Fixtures.publicCapture("joelarula-darkelf-2.btsnoop")
        let (cassette, _) = try Cassette.load(path: path)
        let peer = cassette.peers[0]
        // The capture's first supervision timeout (0x08) of that peer, after a disconnection of its own.
        let timeout = try #require(
            cassette.episodes[peer]?.first { $0.disconnection?.reason.rawValue == 0x08 }?.disconnection?.time)
        let flow = await ReplayEngine(cassette: cassette).run(
            ReferenceApps.named("reconnecting")!.make(for: cassette), name: "reconnecting")
        let lost = try #require(flow.events.first { $0.name == "didDisconnectPeripheral" })
        #expect(lost.argument("error") == "CBError.connectionTimeout")
        #expect(lost.time == timeout.seconds(since: cassette.start))
    }
}
