import BLETraceCoreBluetooth
import BLETraceTesting
import Flow
import Foundation
import Replay
import TestSupport
import Testing

/// A heart-rate central as a user would write it: connects to the sensor it knew, subscribes to
/// 2A37 and (unless told not to) connects again after a disconnection it did not ask for.
final class SensorApp: NSObject, BluetoothApp, Launchable, CBCentralManagerDelegate, CBPeripheralDelegate {
    static var appName: String { "sensor" }
    var reconnects = true
    var central: CBCentralManager?
    var sensor: CBPeripheral?
    var known: [UUID] = []

    override init() {}

    func didFinishLaunching(_ launch: Launch) {
        known = launch.knownPeripherals
        central = CBCentralManager(
            delegate: self, queue: nil, options: [CBCentralManagerOptionRestoreIdentifierKey: "sensor"])
    }

    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        sensor = (dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral])?.first
        sensor?.delegate = self
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn, sensor == nil else { return }
        sensor = central.retrievePeripherals(withIdentifiers: Array(known.prefix(1))).first
        sensor?.delegate = self
        if let sensor { central.connect(sensor) }
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.discoverServices([CBUUID(string: "180D")])
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        if error != nil, reconnects { central.connect(peripheral) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard let service = peripheral.services?.first else { return }
        peripheral.discoverCharacteristics([CBUUID(string: "2A37")], for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        guard let measurement = service.characteristics?.first, !measurement.isNotifying else { return }
        peripheral.setNotifyValue(true, for: measurement)
    }
}

/// The same app, broken: it never reconnects.
final class BrokenSensorApp: NSObject, BluetoothApp, Launchable {
    static var appName: String { "sensor" }
    let inner = SensorApp()
    override init() { inner.reconnects = false }
    func didFinishLaunching(_ launch: Launch) { inner.didFinishLaunching(launch) }
}

@Suite struct ReplayCaptureTests {
    let supervisionTimeout = Fixtures.capture("reconnect-supervision-timeout.btsnoop")

    @Test func aRelativePathIsTakenFromTheTestFilesFolder() throws {
        let relative = "../../Captures/reconnect-supervision-timeout.btsnoop"
        let capture = try ReplayCapture(relative)
        #expect(capture.path == URL(fileURLWithPath: supervisionTimeout).standardizedFileURL.path)
        #expect(capture.fault == nil)
        #expect(throws: (any Error).self) { try ReplayCapture("no-such-capture.btsnoop") }
    }

    @Test func theAppTypeIsReplayedAndTheFlowCanBeQueried() async throws {
        let replay = try await ReplayCapture(supervisionTimeout).replay(SensorApp.self)
        #expect(replay.flow.events.first?.signature == "system launch app=sensor")
        let connects = replay.events(.central(.didConnect))
        #expect(connects.count == 2)
        #expect(replay.events(of: .app).allSatisfy { $0.actor == "app" })
        #expect(replay.events(of: .central).allSatisfy { $0.actor.hasPrefix("central") })
        #expect(
            replay.events().filter { $0.name == "didUpdateNotificationStateFor" }.count
                == replay.events(.peripheral(.didUpdateNotificationStateFor)).count)
        #expect(!replay.events(.peripheral(.didUpdateNotificationStateFor)).isEmpty)
        #expect(replay.finalState.connected == ["F0:F1:F2:F3:F4:05"])
        #expect(replay.text.hasPrefix("# bletrace flow 2\n"))
    }

    /// The app's background life and its declared modes reach a test through `ReplayOptions`
    /// (issue 41 item 9): suspended without `bluetooth-central`, it reconnects too late.
    @Test func theBackgroundAndItsModesAreReplayOptions() async throws {
        let capture = try ReplayCapture(supervisionTimeout)
        var options = ReplayOptions().with(.background, at: 0.05).with(.foreground, at: 3)
        let declared = await capture.replay(SensorApp.self, options: options)
        #expect(declared.events(.system(.background)).count == 1 && declared.events(.system(.foreground)).count == 1)
        #expect(declared.events(.central(.didConnect)).count == 2)
        options.platform.backgroundModes = []
        // SensorApp has a restore identifier: without bluetooth-central iOS stops it at once.
        let crashed = await capture.replay(SensorApp.self, options: options)
        #expect(crashed.crashReason == "restoreWithoutBackgroundMode")
        // An app without one is suspended: the first connection and the link's loss reach it at
        // the foreground; its connect then comes after the capture's peer reconnected.
        let reconnecting = try #require(ReferenceApps.named("reconnecting"))
        let suspended = await capture.replay(name: "reconnecting", options: options) {
            reconnecting.make(for: capture.cassette)
        }
        #expect(suspended.events(.central(.didConnect)).count == 1, "\(suspended)")
        #expect(suspended.events(.central(.didConnect)).allSatisfy { $0.time == 3 })
    }

    @Test func theCommonAssertionsTellAReconnectingAppFromABrokenOne() async throws {
        let capture = try ReplayCapture(supervisionTimeout)
        let good = await capture.replay(SensorApp.self)
        let broken = await capture.replay(BrokenSensorApp.self)
        #expect(good.reconnectedAfterUnexpectedDisconnection())
        #expect(!broken.reconnectedAfterUnexpectedDisconnection())
        #expect(good.surfaced(CBError.Code.connectionTimeout))
        #expect(!good.surfaced(CBATTError.Code.insufficientAuthentication))
    }

    /// An app that connects without keeping its peripheral loses the attempt, as on iOS, and the
    /// result says which peripheral.
    @Test func aPeripheralTheAppDidNotKeepIsNamed() async throws {
        final class ForgetfulApp: NSObject, BluetoothApp, Launchable, CBCentralManagerDelegate {
            static var appName: String { "forgetful-connect" }
            var central: CBCentralManager?
            var known: [UUID] = []
            override init() {}
            func didFinishLaunching(_ launch: Launch) {
                known = launch.knownPeripherals
                central = CBCentralManager(delegate: self, queue: nil)
            }
            func centralManagerDidUpdateState(_ central: CBCentralManager) {
                guard central.state == .poweredOn else { return }
                // The object is not kept: iOS cancels the attempt when it is freed.
                if let sensor = central.retrievePeripherals(withIdentifiers: Array(known.prefix(1))).first {
                    central.connect(sensor)
                }
            }
        }
        let capture = try ReplayCapture(supervisionTimeout)
        let forgetful = await capture.replay(ForgetfulApp.self)
        #expect(forgetful.unusedPeripherals == ["F0:F1:F2:F3:F4:05"])
        #expect(forgetful.events(.central(.didConnect)).isEmpty)
        #expect(forgetful.description.contains("let go of F0:F1:F2:F3:F4:05 while connecting or connected"))
        let keeping = await capture.replay(SensorApp.self)
        #expect(keeping.unusedPeripherals.isEmpty)
    }

    @Test func theErrorsGivenToTheAppAreListedWithTheirCallbacks() async throws {
        let capture = try ReplayCapture(Fixtures.capture("att-errors.btsnoop"))
        let mirror = try #require(ReferenceApps.named("mirror"))
        let replay = await capture.replay(name: "mirror") { mirror.make(for: capture.cassette) }
        #expect(replay.surfaced(CBATTError.Code.insufficientAuthentication))
        #expect(
            replay.errors.contains {
                $0.event.event == .peripheral(.didWriteValueFor) && $0.error == .att(.insufficientAuthentication)
            })
        #expect(replay.errors.allSatisfy { $0.event.error == $0.error })
        // The flow's text writes the same error.
        #expect(
            replay.text.contains("didWriteValueFor")
                && replay.text.contains("error=CBATTError.insufficientAuthentication"))
    }

    @Test func aGoldenFlowIsRecordedThenMatchedAndABrokenAppFailsWithTheDiff() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bletrace-golden-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let golden = folder.appendingPathComponent("sensor.flow").path
        let capture = try ReplayCapture(supervisionTimeout)
        let good = await capture.replay(SensorApp.self)
        try good.expect(matching: golden, record: true)
        #expect(try String(contentsOfFile: golden, encoding: .utf8) == good.golden)
        try good.expect(matching: golden, record: false)
        let broken = await capture.replay(BrokenSensorApp.self)
        let mismatch = try #require(throws: FlowMismatch.self) { try broken.expect(matching: golden, record: false) }
        #expect(mismatch.description.hasPrefix("flows differ: first difference at expected event"))
        #expect(mismatch.description.contains("\n- app connect peripheral=F0:F1:F2:F3:F4:05\n"))
        #expect(throws: FlowMismatch.self) {
            try good.expect(matching: folder.appendingPathComponent("missing.flow").path, record: false)
        }
    }

    @Test func eachRelaunchIsANewInstanceAndTheSweepSaysWhetherTheAppSurvives() async throws {
        let capture = try ReplayCapture(Fixtures.capture("restore-notifying.btsnoop"))
        var instances: [SensorApp] = []
        let replay = await capture.replay(name: "sensor", options: .terminate(at: 0.5)) {
            let app = SensorApp()
            instances.append(app)
            return app
        }
        #expect(instances.count == 2 && instances[0] !== instances[1])
        #expect(replay.events(.system(.relaunch)).count == 1)
        // The app does not go on with a discovery a kill interrupted: killed there, it never
        // subscribes. The sweep finds exactly those kill points.
        let sweep = await capture.sweep(SensorApp.self)
        #expect(!sweep.losses.isEmpty)
        #expect(
            sweep.losses.allSatisfy {
                $0.lost == ["subscribed F0:F1:F2:F3:F4:05 2A37"] && $0.after.hasPrefix("app discover")
            })
    }
}

@Suite struct GoldenPatternTests {
    @Test func aGoldenFlowWrittenByHandNeedsOnlyWhatTheTestCaresAbout() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bletrace-pattern-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pattern = folder.appendingPathComponent("reconnect.flow").path
        try """
        # bletrace flow 2
        ...
        central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=*
        app connect peripheral=F0:F1:F2:F3:F4:05
        ...
        """.write(toFile: pattern, atomically: true, encoding: .utf8)
        let capture = try ReplayCapture(Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        try await capture.replay(SensorApp.self).expect(matching: pattern, record: false)
        let broken = await capture.replay(BrokenSensorApp.self)
        #expect(throws: FlowMismatch.self) { try broken.expect(matching: pattern, record: false) }
    }
}

@Suite struct FlowEventFieldTests {
    @Test func theArgumentsReadAsTypedFields() async throws {
        let capture = try ReplayCapture(Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        let replay = await capture.replay(SensorApp.self)
        let notification = try #require(replay.events(.peripheral(.didUpdateValueFor)).first)
        #expect(notification.peripheral == "F0:F1:F2:F3:F4:05")
        #expect(notification.characteristic == "2A37")
        #expect(notification.value == Data([0x00, 0x48]))
        #expect(notification.error == nil)
        let disconnection = try #require(replay.events(.central(.didDisconnectPeripheral)).first)
        #expect(disconnection.error == .cb(.connectionTimeout))
        #expect(replay.surfaced(CBError.Code.connectionTimeout))
        #expect(replay.events(.app(.setNotifyValue)).allSatisfy { $0.isNotifying == true })
        #expect(replay.peripheralStates == ["F0:F1:F2:F3:F4:05": .connected])
        let odd = FlowRecord(time: 0, .peripheral(.didUpdateValueFor), [.init(.value, "0g")])
        #expect(odd.value == nil && odd.service == nil)
    }
}

/// `ReplayOptions.pacing`: a wall-clock timer of the app (Dispatch's `asyncAfter` with a `qos:`,
/// which no replay can move) fires between the capture's events only in real time, as with
/// `bletrace replay --realtime`.
@Suite struct RealTimeOptionTests {
    /// Cancels its connection 50 ms of wall time after it comes up.
    final class WallClockTimeoutApp: NSObject, BluetoothApp, Launchable, CBCentralManagerDelegate {
        var central: CBCentralManager?
        var known: [UUID] = []
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
            DispatchQueue.main.asyncAfter(deadline: .now() + 0.05, qos: .userInitiated) {
                central.cancelPeripheralConnection(peripheral)
            }
        }
    }

    /// Whether the app cancelled before the peer's disconnection (+0.5 s), replayed with `options`.
    static func cancels(_ options: ReplayOptions) async -> Bool {
        guard let capture = try? ReplayCapture(Fixtures.capture("peer-disconnect.btsnoop")) else { return false }
        let replay = await capture.replay(WallClockTimeoutApp.self, options: options)
        return replay.flow.events.contains { $0.name == "cancelPeripheralConnection" }
    }

    @Test func inCaptureTimeTheWallClockTimerNeverFiresWithinTheReplay() async {
        #expect(ReplayOptions().pacing == .virtual)
        #expect(await !Self.cancels(ReplayOptions()))
    }

    /// Real time needs the main thread free: a process of its own (an exit test).
    @Test func inRealTimeItFiresBetweenTheCapturesEvents() async {
        await #expect(processExitsWith: .success) {
            if await !RealTimeOptionTests.cancels(ReplayOptions(pacing: .realtime)) { exit(1) }
        }
    }
}
