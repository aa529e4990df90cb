import BLETraceCoreBluetooth
import Foundation
import TestSupport
import Testing
import Wire

@testable import Flow
@testable import Replay

/// The app in the background (issue 41 item 9, review §4.1): `--background-at`,
/// `--foreground-at` and the background modes the app declares (`Platform.backgroundModes`).
@Suite struct BackgroundTests {
    /// Scans at `.poweredOn` (with `services`, duplicates allowed as asked) and keeps the
    /// peripherals it discovers.
    final class Scanner: NSObject, BluetoothApp, CBCentralManagerDelegate {
        let services: [CBUUID]?
        let allowDuplicates: Bool
        var central: CBCentralManager?
        var discovered: [CBPeripheral] = []
        init(services: [CBUUID]?, allowDuplicates: Bool) {
            self.services = services
            self.allowDuplicates = allowDuplicates
        }
        func didFinishLaunching(_ launch: Launch) { central = CBCentralManager(delegate: self, queue: nil) }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn else { return }
            central.scanForPeripherals(
                withServices: services, options: [CBCentralManagerScanOptionAllowDuplicatesKey: allowDuplicates])
        }
        func centralManager(
            _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
            rssi RSSI: NSNumber
        ) {
            discovered.append(peripheral)
        }
    }

    /// The service UUIDs the peer of `scan.btsnoop` advertises.
    static func advertisedServices(_ cassette: Cassette) -> [CBUUID] {
        let reports = cassette.discoveries(services: nil, allowDuplicates: true, from: cassette.start)
        let uuids = reports.compactMap { cassette.peer($0.peer)?.advertisement(of: $0.report).serviceUUIDs }.flatMap {
            $0
        }
        return Array(Set(uuids)).map(CBUUID.init(bluetoothUUID:))
    }

    func scan(_ app: Scanner, events: [SystemEvent], modes: Platform.BackgroundModes = .both) async throws -> Flow {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("scan.btsnoop"))
        let engine = ReplayEngine(cassette: cassette)
        engine.events = events
        engine.platform.backgroundModes = modes
        return await engine.run(app, name: "scanner")
    }

    func discoveries(_ flow: Flow) -> [Double] {
        flow.events.filter { $0.actor == "central" && $0.name == "didDiscover" }.compactMap(\.time)
    }

    @Test func aScanWithoutServicesDiscoversNothingInTheBackground() async throws {
        let foreground = try await scan(Scanner(services: nil, allowDuplicates: true), events: [])
        #expect(discoveries(foreground).count > 2, "the capture advertises every 160 ms")
        let flow = try await scan(
            Scanner(services: nil, allowDuplicates: true), events: [SystemEvent(.background, at: 0)])
        #expect(flow.events.contains { $0.actor == "system" && $0.name == "background" })
        #expect(discoveries(flow).isEmpty)
        #expect(
            flow.comments.contains { $0.contains("in the background a scan without service UUIDs discovers nothing") })
    }

    @Test func duplicatesAreCoalescedInTheBackgroundAndComeBackInTheForeground() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("scan.btsnoop"))
        let services = Self.advertisedServices(cassette)
        try #require(!services.isEmpty, "scan.btsnoop's peer advertises a service UUID")
        let all = discoveries(try await scan(Scanner(services: services, allowDuplicates: true), events: []))
        #expect(all.count > 2)
        let app = Scanner(services: services, allowDuplicates: true)
        let flow = try await scan(app, events: [SystemEvent(.background, at: 0), SystemEvent(.foreground, at: 0.5)])
        let times = discoveries(flow)
        // One discovery in the background whatever AllowDuplicates says, then every report again.
        #expect(times.filter { $0 < 0.5 }.count == 1)
        #expect(times.filter { $0 >= 0.5 }.count == all.filter { $0 >= 0.5 }.count)
        #expect(flow.events.contains { $0.actor == "system" && $0.name == "foreground" })
    }

    /// The `reconnecting` app on `reconnect-supervision-timeout.btsnoop`, sent to the background
    /// at +0.05 and back at +3.
    func reconnecting(modes: Platform.BackgroundModes, foreground: Double? = 3) async throws -> Flow {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        let app = try #require(ReferenceApps.named("reconnecting"))
        let engine = ReplayEngine(cassette: cassette)
        engine.events =
            [SystemEvent(.background, at: 0.05)] + (foreground.map { [SystemEvent(.foreground, at: $0)] } ?? [])
        engine.platform.backgroundModes = modes
        return await engine.run(name: app.name) { app.make(for: cassette) }
    }

    func appEvents(_ flow: Flow) -> [FlowEvent] {
        flow.events.filter { $0.actor != "system" && $0.actor != "app" }
    }

    @Test func withBluetoothCentralTheAppRunsOnInTheBackground() async throws {
        let flow = try await reconnecting(modes: .central)
        #expect(appEvents(flow).contains { ($0.time ?? 0) > 0.05 && ($0.time ?? 0) < 3 })
    }

    @Test func withoutBluetoothCentralTheAppIsSuspendedAndGetsWhatWasQueuedInTheForeground() async throws {
        let running = try await reconnecting(modes: .both)
        let flow = try await reconnecting(modes: .peripheral)
        let held = appEvents(running).filter { ($0.time ?? 0) > 0.05 && ($0.time ?? 0) < 3 }
        try #require(!held.isEmpty, "the capture's link drops and comes back between +0.05 and +3")
        #expect(
            !appEvents(flow).contains { ($0.time ?? 0) > 0.05 && ($0.time ?? 0) < 3 }, "\(flow.events.map(\.signature))"
        )
        #expect(flow.comments.contains { $0.contains("iOS suspends it") })
        // At the foreground the app gets what iOS queued, in order: the connection and the
        // link's loss. Its connect again, made only now, comes after the capture's peer
        // reconnected: the second didConnect of the running app never comes.
        #expect(held.map(\.name) == ["didConnect", "didDisconnectPeripheral", "didConnect"])
        let foreground = try #require(flow.events.firstIndex { $0.actor == "system" && $0.name == "foreground" })
        let after = flow.events[(foreground + 1)...].filter { $0.actor != "system" && $0.actor != "app" }
        #expect(after.map(\.name) == ["didConnect", "didDisconnectPeripheral"])
        #expect(after.allSatisfy { $0.time == 3 })
    }

    /// The app of ``ReplayTimeTests`` (a sleep of `budget` on the launch clock after connecting,
    /// then a cancel) with no background mode, sent to the background at +1.5 and back at +4,
    /// with `events` besides; the capture's link completes at +1.2.
    func suspendedClockApp(budget: Duration, _ events: [SystemEvent] = []) async -> Flow {
        let engine = ReplayEngine(
            cassette: cassette([episode(id: 0, attempt: 1, complete: 1.2, disconnect: 8, reason: 0x08)]))
        engine.events = [SystemEvent(.background, at: 1.5), SystemEvent(.foreground, at: 4)] + events
        engine.platform.backgroundModes = []
        return await engine.run(ReplayTimeTests.ClockTimeoutApp(budget: budget), name: "timeout")
    }

    /// A suspended app runs no code: its sleep on the launch clock, due at +2.2, ends at the
    /// foreground (+4), where it once ended at +2.2 while the app was suspended.
    @Test func aSleepOnTheLaunchClockEndsOnlyOnceTheAppIsBack() async throws {
        let flow = await suspendedClockApp(budget: .seconds(1))
        let foreground = try #require(flow.events.firstIndex { $0.signature == "system foreground" })
        let cancel = try #require(flow.events.firstIndex { $0.name == "cancelPeripheralConnection" })
        #expect(cancel > foreground, "\(flow.events.map(\.signature))")
        #expect(flow.events[cancel].time == 4)
    }

    /// Bluetooth turned off while the app is suspended: `.poweredOff` comes at the foreground,
    /// with what else iOS queued, where it once came at once.
    @Test func aPowerChangeWhileSuspendedComesAtTheForeground() async throws {
        let flow = await suspendedClockApp(budget: .seconds(100), [SystemEvent(.powerOff, at: 2)])
        let off = try #require(flow.events.firstIndex { $0.signature == "system powerOff" })
        let foreground = try #require(flow.events.firstIndex { $0.signature == "system foreground" })
        let told = try #require(flow.events.firstIndex { $0.signature == "central didUpdateState state=poweredOff" })
        #expect(off < foreground && foreground < told, "\(flow.events.map(\.signature))")
        #expect(flow.events[told].time == 4)
        // Running in the background (bluetooth-central), it hears of it at once.
        let engine = ReplayEngine(
            cassette: cassette([episode(id: 0, attempt: 1, complete: 1.2, disconnect: 8, reason: 0x08)]))
        engine.events = [SystemEvent(.background, at: 1.5), SystemEvent(.powerOff, at: 2)]
        engine.platform.backgroundModes = .central
        let running = await engine.run(ReplayTimeTests.ClockTimeoutApp(budget: .seconds(100)), name: "timeout")
        #expect(running.events.first { $0.signature == "central didUpdateState state=poweredOff" }?.time == 2)
    }

    @Test func aSuspendedAppThatNeverComesBackHearsNothingMore() async throws {
        let flow = try await reconnecting(modes: [], foreground: nil)
        #expect(!appEvents(flow).contains { ($0.time ?? 0) > 0.05 })
        #expect(flow.comments.contains { $0.contains("it never does in this replay") })
    }

    @Test func aSuspendedAppTerminatedAndOpenedAgainRunsNormally() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("restore-notifying.btsnoop"))
        let app = try #require(ReferenceApps.named("forgetful"))
        let engine = ReplayEngine(cassette: cassette)
        engine.events = [
            SystemEvent(.background, at: 0.2), SystemEvent(.terminate, at: 0.5), SystemEvent(.launch, at: 1),
        ]
        engine.platform.backgroundModes = []
        let flow = await engine.run(name: app.name) { app.make(for: cassette) }
        let relaunch = try #require(flow.events.firstIndex { $0.signature == "system relaunch reason=user" })
        #expect(
            flow.events[(relaunch + 1)...].contains { $0.signature == "central didUpdateState state=poweredOn" },
            "\(flow.events.map(\.signature))")
        #expect(!flow.events.contains { $0.name == "foreground" })
    }

    /// The sensor-server app on `peripheral-server.btsnoop`, in the background from +0.01.
    func server(modes: Platform.BackgroundModes) async throws -> Flow {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("peripheral-server.btsnoop"))
        let app = try #require(ReferenceApps.named("sensor-server"))
        let engine = ReplayEngine(cassette: cassette)
        engine.events = [SystemEvent(.background, at: 0.01)]
        engine.platform.backgroundModes = modes
        return await engine.run(name: app.name) { app.make(for: cassette) }
    }

    @Test func withoutBluetoothPeripheralTheServicesRefuseRemoteCentrals() async throws {
        func requests(_ flow: Flow) -> Int {
            flow.events.filter {
                $0.actor.hasPrefix("peripheralManager") && ["didReceiveRead", "didReceiveWrite"].contains($0.name)
            }.count
        }
        let declared = try await server(modes: .both)
        #expect(requests(declared) > 0)
        #expect(declared.comments.contains { $0.contains("carries no local name") && $0.contains("overflow area") })
        let flow = try await server(modes: .central)
        #expect(requests(flow) == 0)
        #expect(flow.comments.contains { $0.contains("without bluetooth-peripheral: refused") })
        #expect(flow.comments.contains { $0.contains("its advertising stops") })
    }

    @Test func aRestoreIdentifierWithoutItsBackgroundModeCrashesTheApp() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("restore-connected.btsnoop"))
        let app = try #require(ReferenceApps.named("restoring"))
        for (modes, crashes) in [(Platform.BackgroundModes.both, false), (.peripheral, true), (.central, false)] {
            let engine = ReplayEngine(cassette: cassette)
            engine.platform.backgroundModes = modes
            let flow = await engine.run(name: app.name) { app.make(for: cassette) }
            #expect((engine.crashReason == "restoreWithoutBackgroundMode") == crashes, "\(modes)")
            #expect(
                flow.events.contains { $0.signature == "system crash reason=restoreWithoutBackgroundMode" } == crashes)
            if crashes {
                #expect(
                    flow.comments.contains {
                        $0.contains(
                            "only allowed for applications that have specified the \"bluetooth-central\" background mode"
                        )
                    })
            }
        }
    }
}
