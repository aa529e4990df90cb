import BLETraceCoreBluetooth
import Dispatch
import Foundation
import TestSupport
import Testing

@testable import Replay

/// App timers in a replay: on the capture's clock (virtual), or in wall time (real time).
@Suite struct ReplayTimeTests {
    /// Connects, then gives up 1 s after connecting unless told to wait: the SDK seed's policy of
    /// a 1 s budget, on an injected clock.
    final class ClockTimeoutApp: NSObject, BluetoothApp, CBCentralManagerDelegate {
        var central: CBCentralManager?
        var clock: (any Clock<Duration>)?
        var known: [UUID] = []
        /// Kept, as an iOS app must keep it (iOS ends the connection of a peripheral the app lets go of).
        var target: CBPeripheral?
        let budget: Duration
        init(budget: Duration) { self.budget = budget }

        func didFinishLaunching(_ launch: Launch) {
            known = launch.knownPeripherals
            clock = launch.clock
            central = CBCentralManager(delegate: self, queue: nil)
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            target = central.retrievePeripherals(withIdentifiers: known).first
            if let target { central.connect(target) }
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            nonisolated(unsafe) let (central, peripheral, clock, budget) = (central, peripheral, clock!, budget)
            Task {
                try await clock.sleep(for: budget)
                central.cancelPeripheralConnection(peripheral)
            }
        }
    }

    @Test func aSleepOnTheInjectedClockEndsAtCaptureTime() async {
        let flow = await ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: 1.2, disconnect: 5, reason: 0x08)
            ])
        ).run(ClockTimeoutApp(budget: .seconds(1)), name: "timeout")
        #expect(
            signatures(flow).suffix(3) == [
                "central didConnect peripheral=F0:F1:F2:F3:F4:05",
                "app cancelPeripheralConnection peripheral=F0:F1:F2:F3:F4:05",
                "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=nil",
            ])
        #expect(flow.events.suffix(2).map(\.time) == [2.2, 2.2])
    }

    @Test func theCapturesOwnEventsComeFirstWhenTheyAreEarlier() async {
        // The peer drops the link at 1.7 s, before the 1 s budget ends at 2.2 s.
        let flow = await ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: 1.2, disconnect: 1.7, reason: 0x08)
            ])
        ).run(ClockTimeoutApp(budget: .seconds(1)), name: "timeout")
        #expect(
            signatures(flow).suffix(3) == [
                "central didConnect peripheral=F0:F1:F2:F3:F4:05",
                "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBError.connectionTimeout",
                "app cancelPeripheralConnection peripheral=F0:F1:F2:F3:F4:05",
            ])
        #expect(flow.events.last?.time == 2.2)
    }

    @Test func aTimerPastTheCapturesEndStillFiresWithinTheHorizonButNotBeyond() async {
        let near = await ReplayEngine(
            cassette: cassette(
                [
                    episode(id: 0, attempt: 1, complete: 1.2)
                ], end: 1.5)
        ).run(ClockTimeoutApp(budget: .seconds(10)), name: "timeout")
        #expect(near.events.last?.name == "didDisconnectPeripheral")
        #expect(near.events.last?.time == 11.2)
        let far = await ReplayEngine(
            cassette: cassette(
                [
                    episode(id: 0, attempt: 1, complete: 1.2)
                ], end: 1.5)
        ).run(ClockTimeoutApp(budget: .seconds(60)), name: "timeout")
        #expect(far.events.last?.name == "didConnect")
    }

    /// Gives up through DispatchQueue.main.asyncAfter, as much iOS code does.
    final class DispatchTimeoutApp: NSObject, BluetoothApp, CBCentralManagerDelegate {
        var central: CBCentralManager?
        var known: [UUID] = []
        /// Kept, as an iOS app must keep it (iOS ends the connection of a peripheral the app lets go of).
        var target: CBPeripheral?
        func didFinishLaunching(_ launch: Launch) {
            known = launch.knownPeripherals
            central = CBCentralManager(delegate: self, queue: nil)
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            target = central.retrievePeripherals(withIdentifiers: known).first
            if let target { central.connect(target) }
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            nonisolated(unsafe) let (central, peripheral) = (central, peripheral)
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.1) {
                central.cancelPeripheralConnection(peripheral)
            }
        }
    }

    /// Real time needs the main thread free, as in the command-line tool: other tests of this
    /// process may hold it for long, so the replay runs in a process of its own (an exit test).
    @Test func realTimeRunsDispatchTimersBetweenTheCapturesEvents() async {
        await #expect(processExitsWith: .success) {
            if await !RealTimeProbe.dispatchTimerCancelsBeforeThePeer() { exit(1) }
        }
    }

    /// The mirror's steps keep the capture's times in real time too: its cancel comes with the
    /// captured app's, not after the capture's end of the link (which said the link stayed up).
    @Test func theMirrorInRealTimeCancelsWhereTheCapturedAppDid() async {
        await #expect(processExitsWith: .success) {
            if await !RealTimeProbe.mirrorCancelsWithTheCapturedApp() { exit(1) }
        }
    }
}

enum RealTimeProbe {
    static func mirrorCancelsWithTheCapturedApp() async -> Bool {
        guard let (cassette, _) = try? Cassette.load(path: Fixtures.capture("att-errors.btsnoop")),
            let mirror = ReferenceApps.named("mirror")
        else { return false }
        let flow = await ReplayEngine(cassette: cassette, pacing: .realtime).run(
            mirror.make(for: cassette), name: mirror.name)
        return !flow.comments.contains { $0.contains("never connected again") }
            && flow.comments.contains { $0.hasSuffix("is disconnected") }
            && signatures(flow).suffix(2) == [
                "app cancelPeripheralConnection peripheral=F0:F1:F2:F3:F4:05",
                "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=nil",
            ]
    }

    /// The peer would drop the link at 3 s; the app's own 0.1 s DispatchQueue timer ends it first.
    static func dispatchTimerCancelsBeforeThePeer() async -> Bool {
        let flow = await ReplayEngine(
            cassette: cassette(
                [
                    episode(id: 0, attempt: 0.05, complete: 0.1, disconnect: 3, reason: 0x08)
                ], end: 3), pacing: .realtime
        ).run(ReplayTimeTests.DispatchTimeoutApp(), name: "dispatch")
        let times = flow.events.suffix(3).compactMap(\.time)
        return signatures(flow).suffix(3) == [
            "central didConnect peripheral=F0:F1:F2:F3:F4:05",
            "app cancelPeripheralConnection peripheral=F0:F1:F2:F3:F4:05",
            "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=nil",
        ] && times.count == 3 && times[1] >= times[0] + 0.1
    }
}

@Suite struct SDKTimeoutTests {
    @Test func theSDKsOneSecondWatchdogFiresOneCaptureSecondAfterTheRequest() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("att-errors.btsnoop"))
        let app = try #require(ReferenceApps.named("sdk-timeout"))
        let flow = await ReplayEngine(cassette: cassette).run(app.make(for: cassette), name: app.name)
        let read = try #require(flow.events.last { $0.name == "readValue" }?.time)
        let cancel = try #require(flow.events.first { $0.name == "cancelPeripheralConnection" }?.time)
        #expect(abs(cancel - read - SDKTimeoutApp.timeout) < 1e-6)
    }
}
