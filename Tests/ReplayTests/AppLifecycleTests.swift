import BLETraceCoreBluetooth
import Foundation
import TestSupport
import Testing

@testable import Flow
@testable import Replay

/// What the probe apps of one replay saw: each instance's number and the callbacks it got.
final class ProcessLog {
    var instances = 0
    /// `N: what` — the instance number, then the callback.
    var lines: [String] = []
    var launchOptions: [[Launch.OptionsKey: Any]?] = []
    var restored: [[String: Any]] = []
    var defaults: [String?] = []
    func note(_ instance: Int, _ line: String) { lines.append("\(instance): \(line)") }
}

/// A configurable central: connects to the first known peripheral (or scans), discovers 180D and
/// subscribes to 2A37; takes back restored peripherals; writes every callback to the log.
final class LifecycleProbeApp: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
    struct Options {
        var restoreIdentifier: String? = "probe"
        /// Scan for these services instead of connecting (nil: connect to the first known peer).
        var scan: [CBUUID]?
        var subscribe = true
        /// Create the central with this identifier after a relaunch instead (nil: the same).
        var relaunchIdentifier: String??
    }

    let log: ProcessLog
    let options: Options
    let instance: Int
    var central: CBCentralManager?
    var peripheral: CBPeripheral?
    var timerFired = false

    init(log: ProcessLog, options: Options) {
        log.instances += 1
        self.log = log
        self.options = options
        self.instance = log.instances
    }

    func didFinishLaunching(_ launch: Launch) {
        log.launchOptions.append(launch.options)
        log.defaults.append(launch.defaults.string(forKey: "note"))
        launch.defaults.set("kept by instance \(instance)", forKey: "note")
        let identifier =
            launch.options == nil
            ? options.restoreIdentifier : (options.relaunchIdentifier ?? options.restoreIdentifier)
        central = CBCentralManager(
            delegate: self, queue: nil, options: identifier.map { [CBCentralManagerOptionRestoreIdentifierKey: $0] })
        // A timer far in the future: a terminated process's timers never fire.
        let instance = instance
        launch.asyncAfter(0.2) { [log] in log.note(instance, "timer") }
    }

    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        log.note(instance, "willRestoreState")
        log.restored.append(dict)
        if let restored = (dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral])?.first {
            peripheral = restored
            restored.delegate = self
        }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        log.note(instance, "didUpdateState \(central.state)")
        guard central.state == .poweredOn, peripheral == nil, log.instances == 1 || options.restoreIdentifier == nil
        else { return }
        if let scan = options.scan {
            central.scanForPeripherals(withServices: scan)
        } else if let known = central.retrievePeripherals(withIdentifiers: [CBPeer.identifier(for: peer)]).first {
            peripheral = known
            known.delegate = self
            central.connect(known)
        }
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber
    ) {
        log.note(instance, "didDiscover")
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        log.note(instance, "didConnect")
        peripheral.delegate = self
        peripheral.discoverServices([CBUUID(string: "180D")])
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        log.note(instance, "didDisconnect \(error.map { "\($0)" } ?? "nil")")
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard let service = peripheral.services?.first else { return }
        peripheral.discoverCharacteristics([CBUUID(string: "2A37")], for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        guard options.subscribe, let measurement = service.characteristics?.first else { return }
        peripheral.setNotifyValue(true, for: measurement)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        log.note(
            instance, "value \(characteristic.value.map { $0.map { String(format: "%02x", $0) }.joined() } ?? "nil")")
    }
}

/// The app's life in a replay (Formats/corebluetooth.md, "The app's life in a replay"): each test
/// names the seed or document its rule follows. Captures: the five state-restoration scenarios.
@Suite struct AppLifecycleTests {
    func replay(
        _ capture: String, _ events: [SystemEvent], launchState: CBManagerState = .poweredOn,
        options: LifecycleProbeApp.Options = .init()
    ) async throws -> (Flow, ProcessLog, ReplayEngine) {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture(capture + ".btsnoop"))
        let engine = ReplayEngine(cassette: cassette)
        engine.events = events
        engine.launchState = launchState
        let log = ProcessLog()
        let flow = await engine.run(name: "probe") { LifecycleProbeApp(log: log, options: options) }
        return (flow, log, engine)
    }

    func lines(_ flow: Flow) -> [String] { flow.events.map(\.signature) }

    // MARK: Termination and relaunch (state-restoration seed; background seed)

    @Test func aTerminationIsInTheFlowAndEndsTheProcessTimersAndAnswers() async throws {
        // restore-notifying: the subscription is answered at +0.339; terminated at +0.1, the
        // process's 0.2 s timer and its requests' answers are gone with it.
        let (flow, log, _) = try await replay("restore-notifying", [SystemEvent(.terminate, at: 0.1)])
        #expect(lines(flow).contains("system terminate reason=memory"))
        #expect(!log.lines.contains("1: timer"))
        #expect(!log.lines.contains { $0.hasPrefix("1: value") })
    }

    @Test func aPendingConnectStaysWithTheSystemAndItsCompletionRelaunchesTheApp() async throws {
        // Seed: "pending connect requests stay pending … the connection completing later relaunches
        // the app". restore-pending-connection completes at +1.611.
        let (flow, log, _) = try await replay("restore-pending-connection", [SystemEvent(.terminate, at: 0.8)])
        #expect(log.instances == 2)
        let events = lines(flow)
        let relaunch = try #require(
            events.firstIndex(of: "system relaunch reason=didConnect peripheral=F0:F1:F2:F3:F4:05"))
        #expect(events[relaunch + 1].hasPrefix("central willRestoreState"))
        #expect(events[relaunch + 2] == "central didUpdateState state=poweredOn")
        #expect(events[relaunch + 3] == "central didConnect peripheral=F0:F1:F2:F3:F4:05")
        #expect(
            log.lines.suffix(from: log.lines.firstIndex(of: "2: willRestoreState")!).prefix(3) == [
                "2: willRestoreState", "2: didUpdateState poweredOn", "2: didConnect",
            ])
        let restored = try #require(log.restored.first?[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral])
        #expect(restored.map(\.address) == [peer])
    }

    @Test func aNotificationOnASubscribedCharacteristicRelaunchesTheAppWhichGetsItAfterRestoring() async throws {
        let (flow, log, _) = try await replay("restore-notifying", [SystemEvent(.terminate, at: 0.5)])
        #expect(lines(flow).contains("system relaunch reason=didUpdateValueFor peripheral=F0:F1:F2:F3:F4:05"))
        // The restored peripheral comes with its services, characteristics and notifying flag.
        let restored = try #require(
            (log.restored.first?[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral])?.first)
        #expect(restored.state == .connected)
        let measurement = try #require(restored.services?.first?.characteristics?.first)
        #expect(measurement.uuid == CBUUID(string: "2A37") && measurement.isNotifying)
        #expect(log.lines.contains("2: value 0065"))
        #expect(!log.lines.contains("2: value 0064"))  // delivered to instance 1 before the kill
    }

    @Test func aNotificationOnACharacteristicNotSubscribedWakesNothing() async throws {
        var options = LifecycleProbeApp.Options()
        options.subscribe = false
        let (flow, log, _) = try await replay("restore-notifying", [SystemEvent(.terminate, at: 0.5)], options: options)
        #expect(log.instances == 1)
        #expect(!lines(flow).contains { $0.hasPrefix("system relaunch") })
    }

    @Test func aDisconnectionRelaunchesTheAppWithItsError() async throws {
        // restore-out-of-range: supervision timeout at +0.590.
        let (flow, log, _) = try await replay("restore-out-of-range", [SystemEvent(.terminate, at: 0.5)])
        #expect(lines(flow).contains("system relaunch reason=didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05"))
        #expect(log.lines.contains("2: didDisconnect CBError.connectionTimeout"))
    }

    @Test func aDiscoveryMatchingAScanWithServicesRelaunchesTheAppWithTheScanRestored() async throws {
        var options = LifecycleProbeApp.Options()
        options.scan = [CBUUID(string: "180D")]
        let (flow, log, _) = try await replay("restore-scanning", [SystemEvent(.terminate, at: 0.3)], options: options)
        #expect(lines(flow).contains("system relaunch reason=didDiscover peripheral=F0:F1:F2:F3:F4:05"))
        #expect(
            log.restored.first?[CBCentralManagerRestoredStateScanServicesKey] as? [CBUUID] == [CBUUID(string: "180D")])
        #expect(log.lines.contains("2: didDiscover"))
    }

    @Test func aScanWithoutServicesDoesNotSurviveInTheBackground() async throws {
        // Background seed: scans without service UUIDs do not run in the background.
        var options = LifecycleProbeApp.Options()
        options.scan = []
        let (flow, log, _) = try await replay("restore-scanning", [SystemEvent(.terminate, at: 0.3)], options: options)
        #expect(log.instances == 1)
        #expect(flow.comments.contains { $0.contains("its scan had no service UUIDs") })
    }

    @Test func launchOptionsNameTheRestoreIdentifiersAndOnlyTheDefaultsSurvive() async throws {
        let (_, log, _) = try await replay("restore-notifying", [SystemEvent(.terminate, at: 0.5)])
        #expect(log.launchOptions.count == 2)
        #expect(log.launchOptions[0] == nil)
        #expect(log.launchOptions[1]?[.bluetoothCentrals] as? [String] == ["probe"])
        #expect(log.defaults == [nil, "kept by instance 1"])
    }

    @Test func aManagerCreatedWithoutTheRestoreIdentifierRestoresNothingAndTheFlowSaysSo() async throws {
        var options = LifecycleProbeApp.Options()
        options.relaunchIdentifier = .some(nil)
        let (flow, log, _) = try await replay("restore-notifying", [SystemEvent(.terminate, at: 0.5)], options: options)
        #expect(log.restored.isEmpty)
        #expect(flow.comments.contains { $0.contains("created without a restore identifier") })
        #expect(flow.comments.contains { $0.contains("created no central manager with restore identifier probe") })
        #expect(!log.lines.contains { $0.hasPrefix("2: value") })
    }

    @Test func withoutARestoreIdentifierTheTerminationEndsTheConnectionAndNothingRelaunches() async throws {
        var options = LifecycleProbeApp.Options()
        options.restoreIdentifier = nil
        let (flow, log, engine) = try await replay(
            "restore-notifying", [SystemEvent(.terminate, at: 0.5)], options: options)
        #expect(log.instances == 1)
        #expect(flow.comments.contains { $0.contains("the system ends the app's connection") })
        #expect(engine.finalState == AppState())
    }

    @Test func aForceQuitKeepsNothingAndCancelsThePendingConnect() async throws {
        // State-restoration seed: a force quit by the user gets no relaunch.
        let (flow, log, engine) = try await replay("restore-pending-connection", [SystemEvent(.forceQuit, at: 0.8)])
        #expect(lines(flow).contains("system forceQuit"))
        #expect(log.instances == 1)
        #expect(flow.comments.contains { $0.contains("pending connect (force quit)") })
        #expect(engine.finalState.pending.isEmpty)
    }

    @Test func theUserOpeningTheAppRestoresWithoutLaunchOptions() async throws {
        // restore-connected: nothing after +0.34 would wake the app.
        let (flow, log, _) = try await replay(
            "restore-connected", [SystemEvent(.terminate, at: 0.5), SystemEvent(.launch, at: 1.0)])
        #expect(lines(flow).contains("system relaunch reason=user"))
        #expect(log.launchOptions.last! == nil)
        #expect((log.restored.first?[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral])?.count == 1)
    }

    @Test func aSubscriptionInFlightAtTheTerminationStillTakesEffect() async throws {
        // Decided: the peer's answer to the CCCD write arrives whatever became of the app.
        // restore-notifying: discovery ends at +0.3377 (the capture's), the app's setNotifyValue
        // then; answered at +0.3392.
        let (flow, log, _) = try await replay("restore-notifying", [SystemEvent(.terminate, at: 0.338)])
        #expect(lines(flow).contains("system relaunch reason=didUpdateValueFor peripheral=F0:F1:F2:F3:F4:05"))
        #expect(log.lines.contains("2: value 0064"))
    }

    // MARK: Bluetooth power (CBCentralManager documentation; the managers' rules)

    @Test func powerOffEndsTheConnectionWithOnlyTheStateUpdateAndPowerOnReturns() async throws {
        let (flow, log, engine) = try await replay(
            "restore-notifying", [SystemEvent(.powerOff, at: 0.5), SystemEvent(.powerOn, at: 0.7)])
        let events = lines(flow)
        let off = try #require(events.firstIndex(of: "system powerOff"))
        #expect(events[off + 1] == "central didUpdateState state=poweredOff")
        // iOS calls only centralManagerDidUpdateState (Formats/corebluetooth.md, "Bluetooth power").
        #expect(!events.contains { $0.hasPrefix("central didDisconnectPeripheral") })
        #expect(events.contains("central didUpdateState state=poweredOn"))
        #expect(!log.lines.contains { $0.contains("didDisconnect") })
        #expect(!log.lines.contains("1: value 0066"))  // nothing of the ended link reaches the app
        #expect(engine.finalState.connected.isEmpty)
    }

    @Test func aResetGoesThroughResettingAndInvalidatesThePeripheralObjects() async throws {
        let (flow, log, _) = try await replay("restore-notifying", [SystemEvent(.reset, at: 0.5)])
        let events = lines(flow)
        let reset = try #require(events.firstIndex(of: "system reset"))
        #expect(events[reset + 1] == "central didUpdateState state=resetting")
        #expect(events[reset + 2] == "central didUpdateState state=poweredOn")
        #expect(log.lines.contains("1: didUpdateState resetting"))
    }

    @Test(arguments: [CBManagerState.poweredOff, .unauthorized])
    func bluetoothOffOrNotAllowedAtLaunchIsTheFirstState(_ state: CBManagerState) async throws {
        let (flow, log, engine) = try await replay("restore-notifying", [], launchState: state)
        #expect(lines(flow).prefix(2) == ["system launch app=probe", "central didUpdateState state=\(state)"])
        #expect(log.lines.filter { $0 != "1: timer" } == ["1: didUpdateState \(state)"])
        #expect((engine.authorization == .denied) == (state == .unauthorized))
    }

    // MARK: Peripheral managers (state-restoration seed, the talk's slides)

    @Test func aCentralsRequestRelaunchesAPeripheralManagerAppWithItsServicesRestored() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("peripheral-server.btsnoop"))
        let engine = ReplayEngine(cassette: cassette)
        // Terminated before the first central's first request.
        let first = try #require(cassette.links.first { $0.hostRole == .peripheral }?.exchanges.first?.time)
        engine.events = [SystemEvent(.terminate, at: first.seconds(since: cassette.start) - 0.0001)]
        var apps: [TestServerApp] = []
        let flow = await engine.run(name: "server") {
            let app = TestServerApp(services: serverServices(cassette))
            app.restoreIdentifier = "server"
            apps.append(app)
            return app
        }
        let events = lines(flow)
        let relaunch = try #require(events.firstIndex { $0.hasPrefix("system relaunch reason=did") })
        #expect(events[relaunch].contains("central="))
        #expect(events[relaunch + 1].hasPrefix("peripheralManager willRestoreState restoreIdentifier=server services="))
        #expect(events[relaunch + 1].hasSuffix("advertising=true"))
        #expect(events[relaunch + 2] == "peripheralManager didUpdateState state=poweredOn")
        #expect(
            events[(relaunch + 3)...].contains {
                $0.hasPrefix("peripheralManager didReceive") || $0.hasPrefix("peripheralManager didSubscribeTo")
            })
        #expect(apps.count == 2)
        #expect(apps[1].manager?.isAdvertising == true)
        #expect(apps[1].manager?.publishedServices.count == apps[0].published.count)
    }
}
