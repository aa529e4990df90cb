import BLETraceCoreBluetooth
import Foundation
import TestSupport
import Testing
import Wire

@testable import Flow
@testable import Replay

/// Apple's relaunch table (TN3115, QA1962) and the iOS releases: crash, force quit, restart with
/// and without a passcode, and the three ways of turning Bluetooth off, each against the rule the
/// table gives (Formats/corebluetooth.md, "Apple's relaunch table").
@Suite struct RelaunchRulesTests {
    func replay(
        _ capture: String, _ events: [SystemEvent], platform: Platform = Platform()
    ) async throws -> (events: [String], flow: Flow, log: ProcessLog, engine: ReplayEngine) {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture(capture + ".btsnoop"))
        let engine = ReplayEngine(cassette: cassette)
        engine.events = events
        engine.platform = platform
        let log = ProcessLog()
        let flow = await engine.run(name: "probe") { LifecycleProbeApp(log: log, options: .init()) }
        return (flow.events.map(\.signature), flow, log, engine)
    }

    static let relaunchOnConnect = "system relaunch reason=didConnect peripheral=F0:F1:F2:F3:F4:05"

    @Test func aCrashIsATerminationIOSRelaunchesTheAppAfter() async throws {
        let (events, _, log, _) = try await replay("restore-notifying", [SystemEvent(.crash, at: 0.5)])
        #expect(events.contains("system terminate reason=crash"))
        #expect(events.contains("system relaunch reason=didUpdateValueFor peripheral=F0:F1:F2:F3:F4:05"))
        #expect(log.instances == 2)
    }

    /// restore-pending-connection: the connect completes at +1.611; the force quit is at +0.8.
    @Test(arguments: [
        (Platform(release: .iOS17, accessorySetupKit: true), false),
        (Platform(release: .iOS18, accessorySetupKit: true), false),
        (Platform(release: .iOS26, accessorySetupKit: false), false),
        (Platform(release: .iOS26, accessorySetupKit: true), true),
    ])
    func aForceQuitAppIsRelaunchedOnlyOnIOS26WithAccessorySetupKit(platform: Platform, relaunched: Bool) async throws {
        let (events, _, log, engine) = try await replay(
            "restore-pending-connection", [SystemEvent(.forceQuit, at: 0.8)], platform: platform)
        #expect(events.contains("system forceQuit"))
        #expect(events.contains(Self.relaunchOnConnect) == relaunched)
        #expect(log.instances == (relaunched ? 2 : 1))
        #expect(engine.finalState.connected.isEmpty == !relaunched)
    }

    @Test func afterARestartThePendingConnectRelaunchesTheApp() async throws {
        let (events, _, log, _) = try await replay("restore-pending-connection", [SystemEvent(.reboot, at: 0.8)])
        let reboot = try #require(events.firstIndex(of: "system reboot"))
        let relaunch = try #require(events.firstIndex(of: Self.relaunchOnConnect))
        #expect(reboot < relaunch)
        #expect(events.dropFirst(relaunch + 3).first == "central didConnect peripheral=F0:F1:F2:F3:F4:05")
        #expect(log.lines.contains("2: didConnect"))
    }

    @Test func withAPasscodeNothingRelaunchesTheAppBeforeTheFirstUnlock() async throws {
        // The connect completes at +1.611, the device is unlocked at +2.5: the relaunch waits.
        let (events, flow, log, _) = try await replay(
            "restore-pending-connection", [SystemEvent(.reboot, at: 0.8), SystemEvent(.unlock, at: 2.5)])
        let unlock = try #require(events.firstIndex(of: "system unlock"))
        #expect(events.dropFirst(unlock + 1).first == Self.relaunchOnConnect)
        #expect(flow.events.dropFirst(unlock + 1).first?.time == 2.5)
        #expect(flow.comments.contains { $0.contains("before the first unlock after the restart") })
        #expect(log.lines.contains("2: didConnect"))
        // Unlocked before the connection completes: relaunched at the completion.
        let (early, earlyFlow, _, _) = try await replay(
            "restore-pending-connection", [SystemEvent(.reboot, at: 0.8), SystemEvent(.unlock, at: 1.0)])
        let at = try #require(early.firstIndex(of: Self.relaunchOnConnect))
        #expect((earlyFlow.events[at].time ?? 0) > 1.6)
    }

    @Test func aRestartEndsTheLinkAndTheSystemKeepsAConnectionRequest() async throws {
        // restore-notifying: connected and subscribed at +0.5; the capture never connects again.
        let (events, flow, log, engine) = try await replay("restore-notifying", [SystemEvent(.reboot, at: 0.5)])
        #expect(!events.contains { $0.hasPrefix("system relaunch") })
        #expect(
            flow.comments.contains {
                $0.contains("the device restarts; the system keeps the connection request of probe")
            })
        #expect(!log.lines.contains("1: value 0065"))
        #expect(engine.finalState.pending == ["F0:F1:F2:F3:F4:05"])
        #expect(engine.finalState.connected.isEmpty)
    }

    /// The app terminated at +0.5 (its connect pending), Bluetooth off at +0.6 and on at +0.7;
    /// the connect completes at +1.611.
    @Test(arguments: [
        (SystemEvent.Kind.powerOff, Platform(release: .iOS18), false),
        (.airplaneMode, Platform(release: .iOS18), false),
        (.controlCenter, Platform(release: .iOS18), true),
        (.controlCenter, Platform(release: .iOS26), false),
        (.controlCenter, Platform(release: .iOS26, accessorySetupKit: true), true),
        (.airplaneMode, Platform(release: .iOS26, accessorySetupKit: true), false),
    ])
    func whatTheSystemKeptSurvivesOnlyTheBluetoothTogglesTN3115Allows(
        kind: SystemEvent.Kind, platform: Platform, relaunched: Bool
    ) async throws {
        let (events, flow, log, _) = try await replay(
            "restore-pending-connection",
            [SystemEvent(.terminate, at: 0.5), SystemEvent(kind, at: 0.6), SystemEvent(.powerOn, at: 0.7)],
            platform: platform)
        #expect(events.contains(kind == .powerOff ? "system powerOff" : "system powerOff via=\(kind.rawValue)"))
        #expect(events.contains(Self.relaunchOnConnect) == relaunched)
        #expect(log.instances == (relaunched ? 2 : 1))
        #expect(flow.comments.contains { $0.contains("iOS relaunches the app for nothing") } == !relaunched)
    }

    @Test(arguments: [SystemEvent.Kind.powerOff, .controlCenter, .airplaneMode])
    func aRunningAppSeesOnlyPoweredOffWhicheverWayBluetoothGoesOff(kind: SystemEvent.Kind) async throws {
        let (events, _, log, _) = try await replay("restore-notifying", [SystemEvent(kind, at: 0.5)])
        let off = try #require(events.firstIndex { $0.hasPrefix("system powerOff") })
        #expect(events.dropFirst(off + 1).first == "central didUpdateState state=poweredOff")
        #expect(!events.contains { $0.hasPrefix("central didDisconnectPeripheral") })
        #expect(!log.lines.contains { $0.contains("didDisconnect") })
    }

    /// A central with a restore identifier whose delegate lacks `willRestoreState`.
    final class NoRestoreApp: NSObject, BluetoothApp, CBCentralManagerDelegate {
        var central: CBCentralManager?
        var known: CBPeripheral?
        func didFinishLaunching(_ launch: Launch) {
            central = CBCentralManager(
                delegate: self, queue: nil, options: [CBCentralManagerOptionRestoreIdentifierKey: "forgot"])
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn, central.retrieveConnectedPeripherals(withServices: []).isEmpty,
                let known = central.retrievePeripherals(withIdentifiers: [
                    CBPeer.identifier(for: BluetoothAddress("F0:F1:F2:F3:F4:05")!)
                ]).first
            else { return }
            self.known = known
            central.connect(known)
        }
    }

    @Test func aRestoreIdentifierWithoutWillRestoreStateCrashesTheAppWhenItIsRestored() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("restore-pending-connection.btsnoop"))
        let engine = ReplayEngine(cassette: cassette)
        engine.events = [SystemEvent(.terminate, at: 0.8)]
        let flow = await engine.run(name: "forgot") { NoRestoreApp() }
        let events = flow.events.map(\.signature)
        #expect(engine.crashReason == "restoreWithoutWillRestoreState")
        let crash = try #require(
            events.firstIndex { $0.hasPrefix("system crash reason=restoreWithoutWillRestoreState") })
        // The relaunch's restoration event is written down before the callbacks run; the crash
        // comes in willRestoreState, before the app hears anything else.
        #expect(
            Array(events[(crash - 3)..<crash]) == [
                Self.relaunchOnConnect,
                "central willRestoreState restoreIdentifier=forgot peripherals=F0:F1:F2:F3:F4:05",
                "central didUpdateState state=poweredOn",
            ])
        #expect(events.count == crash + 1)  // nothing of the app after the crash
        // Without a termination nothing is restored, and iOS's assertion at creation is not seen.
        let plain = ReplayEngine(cassette: cassette)
        _ = await plain.run(name: "forgot") { NoRestoreApp() }
        #expect(plain.crashReason == nil)
    }

    @Test func theTableItself() {
        let ios18 = Platform(release: .iOS18)
        let ios26 = Platform(release: .iOS26)
        let ask = Platform(release: .iOS26, accessorySetupKit: true)
        for platform in [ios18, ios26, ask] {
            #expect(
                platform.relaunches(after: .terminate) && platform.relaunches(after: .crash)
                    && platform.relaunches(after: .reboot))
            #expect(!platform.relaunches(after: .powerOff) && !platform.relaunches(after: .airplaneMode))
        }
        #expect(
            !ios18.relaunches(after: .forceQuit) && !ios26.relaunches(after: .forceQuit)
                && ask.relaunches(after: .forceQuit))
        #expect(
            ios18.relaunches(after: .controlCenter) && !ios26.relaunches(after: .controlCenter)
                && ask.relaunches(after: .controlCenter))
    }

    @Test func everyKindSweepsAndTheReleaseChangesTheAnswer() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("restore-pending-connection.btsnoop"))
        let app = try #require(ReferenceApps.named("restoring"))
        /// Per kind: how many kill points lose something, and how many a Bluetooth event relaunched.
        func sweep(_ platform: Platform) async -> [SystemEvent.Kind: (losing: Int, woken: Int)] {
            var result: [SystemEvent.Kind: (Int, Int)] = [:]
            for kind in KillPointSweep.kinds {
                let sweep = await KillPointSweep.run(cassette, app: app, kind: kind, platform: platform)
                #expect(!sweep.points.isEmpty)
                result[kind] = (
                    sweep.losses.count, sweep.points.filter { $0.relaunch != nil && $0.relaunch != "user" }.count
                )
            }
            return result
        }
        let ios18 = await sweep(Platform(release: .iOS18))
        let ask = await sweep(Platform(release: .iOS26, accessorySetupKit: true))
        #expect(ios18[.terminate]?.losing == 0 && ios18[.crash]?.losing == 0)
        #expect(ios18[.terminate]!.woken > 0 && ios18[.reboot]!.woken > 0)
        #expect(ios18[.forceQuit]!.losing > 0 && ask[.forceQuit]?.losing == 0)
        // After a Settings or Airplane Mode toggle nothing wakes the app. After Control Center
        // what the system kept stays, but Bluetooth stays off until 5 AM, after the capture's
        // end: nothing wakes the app within it either (the user opens it at the end of every run).
        #expect(ios18[.powerOff]?.woken == 0 && ios18[.airplaneMode]?.woken == 0)
        #expect(ios18[.controlCenter]!.woken == 0)
        #expect(ios18[.controlCenter]!.losing > 0)
        #expect(await sweep(Platform(release: .iOS26))[.controlCenter]?.woken == 0)
    }
}
