import BLETraceCoreBluetooth
import BLETraceTesting
import Flow
import Foundation
import Replay
import TestSupport
import Testing

/// Apps written with Swift concurrency, replayed in capture time (Formats/replay.md, "Swift
/// concurrency"): their tasks run to their next suspension before the replay plays the next event.
@Suite struct ConcurrencyReplayTests {
    static let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
    static let sensor = "F0:F1:F2:F3:F4:05"

    /// The flow events without their times.
    static func lines(_ flow: Flow) -> [String] { flow.events.map(\.signature) }

    @Test func anAppAwaitingCheckedContinuationsGetsEveryAnswer() async throws {
        let capture = try ReplayCapture(Self.capture)
        let replay = await capture.replay(ContinuationApp.self)
        let lines = Self.lines(replay.flow)
        #expect(
            lines == [
                "system launch app=continuations",
                "central didUpdateState state=poweredOn",
                "app connect peripheral=\(Self.sensor)",
                "central didConnect peripheral=\(Self.sensor)",
                "app discoverServices peripheral=\(Self.sensor) services=180D",
                "peripheral didDiscoverServices peripheral=\(Self.sensor) services=180D error=nil",
                "app discoverCharacteristics peripheral=\(Self.sensor) service=180D characteristics=2A37,2A38",
                "peripheral didDiscoverCharacteristicsFor peripheral=\(Self.sensor) service=180D characteristics=2A37,2A38 error=nil",
                "app readValue peripheral=\(Self.sensor) characteristic=2A38",
                "peripheral didUpdateValueFor peripheral=\(Self.sensor) characteristic=2A38 value=01 error=nil",
                // The task's last step after the read: it asks for nothing more than the capture gives.
                "app stopScan",
                "central didDisconnectPeripheral peripheral=\(Self.sensor) error=CBError.connectionTimeout",
            ], "\(replay.text)")
    }

    @Test(arguments: ["main", "serial"])
    func delegateCallbacksOnTheQueueGivenResumeTheTasksInCaptureTime(_ queue: String) async throws {
        let capture = try ReplayCapture(Self.capture)
        let onNil = await capture.replay(ContinuationApp.self)
        let replay = await capture.replay(name: ContinuationApp.appName) {
            ContinuationApp(queue: queue == "main" ? .main : DispatchQueue(label: "bluetooth"))
        }
        #expect(replay.text == onNil.text)
    }

    @Test func aMainActorDelegateAssumesItsIsolationInTheCallbacks() async throws {
        let capture = try ReplayCapture(Self.capture)
        let replay = await capture.replay(MainActorDelegateApp.self)
        let lines = Self.lines(replay.flow)
        #expect(lines.contains("app discoverServices peripheral=\(Self.sensor) services=180D"), "\(replay.text)")
        // The connection's callback reached the model through `MainActor.assumeIsolated`, and the
        // model's main-actor task asked for the services.
        #expect(
            lines.firstIndex(of: "central didConnect peripheral=\(Self.sensor)").map { lines[$0 + 1] }
                == "app discoverServices peripheral=\(Self.sensor) services=180D")
    }

    @Test func aMainActorModelOnAnAsyncStreamReconnectsAfterTheDrop() async throws {
        let capture = try ReplayCapture(Self.capture)
        let holder = StreamModelApp.Holder()
        let replay = await capture.replay(name: StreamModelApp.appName) { StreamModelApp(holder: holder) }
        let lines = Self.lines(replay.flow)
        let connect = "app connect peripheral=\(Self.sensor)"
        let notification = { (value: String) in
            "peripheral didUpdateValueFor peripheral=\(Self.sensor) characteristic=2A37 value=\(value) error=nil"
        }
        #expect(lines.filter { $0 == connect }.count == 2, "\(replay.text)")
        #expect(
            lines.filter { $0.hasPrefix("peripheral didUpdateValueFor") && $0.contains("2A37") } == [
                notification("0048"), notification("0049"), notification("004a"), notification("0050"),
            ])
        #expect(replay.surfaced(CBError.Code.connectionTimeout))
        #expect(replay.reconnectedAfterUnexpectedDisconnection())
        #expect(replay.finalState.subscribed == ["\(Self.sensor) 2A37"])
        // The model, on the main actor, saw each beat and the drop, in order.
        let model = try #require(holder.model)
        let seen = await MainActor.run { model.log }
        #expect(
            seen == [
                "connected", "notifying", "72", "73", "74", "lost: connectionTimeout", "connected", "notifying", "80",
            ])
    }

    @Test(arguments: ["continuations", "stream-model", "structured"])
    func theSameRunTwiceGivesTheSameFlow(_ app: String) async throws {
        let capture = try ReplayCapture(Self.capture)
        var texts: Set<String> = []
        for _ in 0..<5 {
            let replay: ReplayResult
            switch app {
            case "continuations": replay = await capture.replay(ContinuationApp.self)
            case "stream-model": replay = await capture.replay(StreamModelApp.self)
            default: replay = await capture.replay(StructuredApp.self)
            }
            texts.insert(replay.text)
        }
        #expect(texts.count == 1)
        #expect((texts.first?.split(separator: "\n").count ?? 0) > 8)
    }

    @Test func asyncLetAndTaskGroupsRunBetweenTheCapturesEvents() async throws {
        let capture = try ReplayCapture(Self.capture)
        let replay = await capture.replay(StructuredApp.self)
        let lines = Self.lines(replay.flow)
        // Both children of `async let` and the group's three children asked, before the capture
        // moved on to the next event after the connection.
        let connected = try #require(lines.firstIndex(of: "central didConnect peripheral=\(Self.sensor)"))
        #expect(
            Array(lines[(connected + 1)...].prefix(2)) == [
                "app discoverServices peripheral=\(Self.sensor) services=180D",
                "peripheral didDiscoverServices peripheral=\(Self.sensor) services=180D error=nil",
            ], "\(replay.text)")
        let markers = replay.flow.events.filter { $0.name == "stopScan" }
        #expect(markers.count == 2)
        // async let of two sleeps (0.01 s and 0.02 s) then a group of three (0.03 s each, in
        // parallel): the markers are at 0.02 s and 0.05 s after the services were discovered.
        let discovered = try #require(replay.flow.events.first { $0.name == "didDiscoverServices" }?.time)
        #expect(markers.compactMap(\.time).map { (($0 - discovered) * 1000).rounded() } == [20, 50])
    }

    @Test func sleepsOnTheLaunchClockInterleaveWithTheCapturesEventsAtTheirTimes() async throws {
        let capture = try ReplayCapture(Self.capture)
        let replay = await capture.replay(TickerApp.self)
        // A tick every 0.25 s of capture time from launch (stopScan), among the capture's
        // connection (0.264946) and notifications (0.377792, 0.478991, 0.579948), its drop (0.680858).
        let timed = replay.flow.events.compactMap { event in
            event.time.map { (($0 * 1000).rounded() / 1000, event.name) }
        }
        let ticks = timed.filter { $0.1 == "stopScan" }.map(\.0)
        #expect(ticks == [0.25, 0.5, 0.75, 1.0], "\(replay.text)")
        let order = timed.filter {
            ["stopScan", "didConnect", "didUpdateValueFor", "didDisconnectPeripheral"].contains($0.1)
        }
        #expect(
            order.map(\.1) == [
                "stopScan", "didConnect", "didUpdateValueFor", "didUpdateValueFor", "stopScan", "didUpdateValueFor",
                "didDisconnectPeripheral", "stopScan", "stopScan",
            ], "\(replay.text)")
    }

    @Test func theKillPointSweepRunsAnAsyncApp() async throws {
        let capture = try ReplayCapture(Self.capture)
        let sweep = await capture.sweep(StreamModelApp.self)
        #expect(!sweep.points.isEmpty)
        #expect(sweep.reference.subscribed == ["\(Self.sensor) 2A37"])
        // Without a restore identifier, a kill while connected loses the connection.
        #expect(!sweep.survived)
        let again = await capture.sweep(StreamModelApp.self)
        #expect(again.points == sweep.points)
    }

    /// The stream model's consumer task waits for ever once the capture ends, holding the app and
    /// its central manager (and the test holds the model): the engine and its cassette are still
    /// freed, and the manager's later requests go nowhere.
    @Test func tasksLeftWaitingAtTheEndDoNotKeepTheReplayAlive() async throws {
        let (cassette, _) = try Cassette.load(path: Self.capture)
        let holder = StreamModelApp.Holder()
        weak var released: ReplayEngine?
        do {
            let engine = ReplayEngine(cassette: cassette)
            released = engine
            let flow = await engine.run(name: StreamModelApp.appName) { StreamModelApp(holder: holder) }
            #expect(flow.events.contains { $0.name == "didUpdateValueFor" })
        }
        #expect(released == nil)
        let model = try #require(holder.model)
        let (detached, misuses) = await MainActor.run {
            let central: CBCentralManager = model.bridge.central
            // A request after the end reaches no replay (nor traps).
            central.cancelPeripheralConnection(model.sensor)
            return (!(central.system is ReplayEngine), central.apiMisuses)
        }
        #expect(detached)
        #expect(misuses.isEmpty)
    }

    @Test func tasksOfAProcessTheSystemTerminatedNeverRunAgain() async throws {
        let capture = try ReplayCapture(Self.capture)
        // Killed at 0.3 s, while the ticker sleeps: its ticks stop; the relaunched process ticks anew.
        let replay = await capture.replay(TickerApp.self, options: .terminate(at: 0.3))
        let ticks = replay.flow.events.filter { $0.name == "stopScan" }.compactMap(\.time)
        #expect(ticks.map { ($0 * 1000).rounded() } == [250], "\(replay.text)")
        // Nothing of the app happens after the kill (no Bluetooth event relaunches an app
        // without a restore identifier).
        let kill = try #require(replay.flow.events.firstIndex { $0.name == "terminate" })
        #expect(!replay.flow.events[kill...].contains { $0.actor == "app" })
    }

    /// Real time: the app's tasks run on Swift's own executors, its clock follows wall time.
    @Test func realTimeRunsAnAsyncApp() async {
        await #expect(processExitsWith: .success) {
            let (cassette, _) = try! Cassette.load(path: ConcurrencyReplayTests.capture)
            let flow = await ReplayEngine(cassette: cassette, pacing: .realtime).run(
                ContinuationApp(), name: "continuations")
            let lines = ConcurrencyReplayTests.lines(flow)
            let read =
                "peripheral didUpdateValueFor peripheral=F0:F1:F2:F3:F4:05 characteristic=2A38 value=01 error=nil"
            if !lines.contains(read) || !lines.contains("app stopScan") { exit(1) }
        }
    }
}

// MARK: The apps

/// Turns delegate callbacks into resumed continuations and stream elements: the common shape of
/// an async wrapper over CoreBluetooth.
final class AsyncBridge: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate, @unchecked Sendable {
    enum Event: Sendable { case connected, lost(CBError.Code?), notifying, value(Data) }
    var central: CBCentralManager!
    var poweredOn: [CheckedContinuation<Void, Never>] = []
    var connecting: CheckedContinuation<Void, any Error>?
    var discovering: CheckedContinuation<Void, any Error>?
    var reading: CheckedContinuation<Data, any Error>?
    /// The peripherals it was asked to connect, kept as an iOS app must keep them (iOS ends the
    /// connection of a peripheral the app lets go of).
    var peripherals: [CBPeripheral] = []
    let events: AsyncStream<Event>
    let sink: AsyncStream<Event>.Continuation

    init(queue: DispatchQueue? = nil) {
        (events, sink) = AsyncStream.makeStream()
        super.init()
        central = CBCentralManager(delegate: self, queue: queue)
    }

    nonisolated(nonsending) func waitPoweredOn() async {
        if central.state == .poweredOn { return }
        await withCheckedContinuation { poweredOn.append($0) }
    }
    /// The first peripheral the app knew, once Bluetooth is on.
    nonisolated(nonsending) func knownSensor(_ known: [UUID]) async -> CBPeripheral? {
        await waitPoweredOn()
        return central.retrievePeripherals(withIdentifiers: known).first
    }
    /// Discovers 180D and its 2A37, and subscribes to it.
    nonisolated(nonsending) func subscribeToMeasurements(on sensor: CBPeripheral) async throws {
        try await discoverServices([CBUUID(string: "180D")], on: sensor)
        guard let service = sensor.services?.first else { return }
        try await discoverCharacteristics([CBUUID(string: "2A37")], of: service, on: sensor)
        if let measurement = service.characteristics?.first { sensor.setNotifyValue(true, for: measurement) }
    }
    nonisolated(nonsending) func connect(_ peripheral: CBPeripheral) async throws {
        if !peripherals.contains(peripheral) { peripherals.append(peripheral) }
        try await withCheckedThrowingContinuation {
            connecting = $0; central.connect(peripheral)
        }
    }
    nonisolated(nonsending) func discoverServices(_ uuids: [CBUUID], on peripheral: CBPeripheral) async throws {
        try await withCheckedThrowingContinuation {
            discovering = $0; peripheral.discoverServices(uuids)
        }
    }
    nonisolated(nonsending) func discoverCharacteristics(
        _ uuids: [CBUUID], of service: CBService, on peripheral: CBPeripheral
    ) async throws {
        try await withCheckedThrowingContinuation {
            discovering = $0; peripheral.discoverCharacteristics(uuids, for: service)
        }
    }
    nonisolated(nonsending) func read(_ characteristic: CBCharacteristic, on peripheral: CBPeripheral) async throws
        -> Data
    {
        try await withCheckedThrowingContinuation {
            reading = $0; peripheral.readValue(for: characteristic)
        }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        let waiting = poweredOn
        poweredOn = []
        for continuation in waiting { continuation.resume() }
    }
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        connecting?.resume(); connecting = nil
        sink.yield(.connected)
    }
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        connecting?.resume(throwing: error ?? CBError(.unknown)); connecting = nil
    }
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {
        sink.yield(.lost((error as? CBError)?.code))
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        if let error { discovering?.resume(throwing: error) } else { discovering?.resume() }
        discovering = nil
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        if let error { discovering?.resume(throwing: error) } else { discovering?.resume() }
        discovering = nil
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        if let reading {
            self.reading = nil
            if let error {
                reading.resume(throwing: error)
            } else {
                reading.resume(returning: characteristic.value ?? Data())
            }
        } else if let value = characteristic.value {
            sink.yield(.value(value))
        }
    }
    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        if characteristic.isNotifying { sink.yield(.notifying) }
    }
}

/// Starts a `Task` at launch that awaits each step: powered on, connect, discover, read.
final class ContinuationApp: BluetoothApp, Launchable, @unchecked Sendable {
    static var appName: String { "continuations" }
    var bridge: AsyncBridge?
    var task: Task<Void, any Error>?
    /// Where the delegate is called (`queue:` of the central manager).
    let queue: DispatchQueue?
    init() { queue = nil }
    init(queue: DispatchQueue?) { self.queue = queue }

    func didFinishLaunching(_ launch: Launch) {
        let bridge = AsyncBridge(queue: queue)
        self.bridge = bridge
        let known = launch.knownPeripherals
        task = Task {
            guard let sensor = await bridge.knownSensor(known) else { return }
            try await bridge.connect(sensor)
            try await bridge.discoverServices([CBUUID(string: "180D")], on: sensor)
            guard let service = sensor.services?.first else { return }
            try await bridge.discoverCharacteristics(
                [CBUUID(string: "2A37"), CBUUID(string: "2A38")], of: service, on: sensor)
            guard let location = service.characteristics?.first(where: { $0.uuid == CBUUID(string: "2A38") }) else {
                return
            }
            let value = try await bridge.read(location, on: sensor)
            if value == Data([1]) { bridge.central.stopScan() }
        }
    }
}

/// A `@MainActor` view model fed by an `AsyncStream` of the bridge's events: subscribes after
/// each connection, keeps the beats, connects again after a drop.
@MainActor final class HeartModel {
    var log: [String] = []
    let bridge: AsyncBridge
    let sensor: CBPeripheral

    init(bridge: AsyncBridge, sensor: CBPeripheral) {
        self.bridge = bridge
        self.sensor = sensor
    }

    func run() async {
        bridge.central.connect(sensor)
        for await event in bridge.events {
            switch event {
            case .connected:
                log.append("connected")
                try? await bridge.subscribeToMeasurements(on: sensor)
            case .notifying:
                log.append("notifying")
            case .value(let data):
                if data.count >= 2 { log.append("\(data[1])") }
            case .lost(let code):
                log.append("lost: \(code.map { "\($0)" } ?? "nil")")
                if code != nil { bridge.central.connect(sensor) }
            }
        }
    }
}

final class StreamModelApp: BluetoothApp, Launchable, @unchecked Sendable {
    /// Where a test finds the model its replay made (tests replay this app in parallel, so a
    /// static would give one test another's model).
    final class Holder: @unchecked Sendable { var model: HeartModel? }

    static var appName: String { "stream-model" }
    let holder: Holder
    var bridge: AsyncBridge?
    init() { holder = Holder() }
    init(holder: Holder) { self.holder = holder }

    func didFinishLaunching(_ launch: Launch) {
        let bridge = AsyncBridge()
        self.bridge = bridge
        let known = launch.knownPeripherals
        Task { @MainActor in
            guard let sensor = await bridge.knownSensor(known) else { return }
            let model = HeartModel(bridge: bridge, sensor: sensor)
            self.holder.model = model
            await model.run()
        }
    }
}

/// An app whose tasks use the bridge and the launch clock: subclasses start them.
class ClockApp: BluetoothApp, @unchecked Sendable {
    var bridge: AsyncBridge?
    required init() {}

    func didFinishLaunching(_ launch: Launch) {
        let bridge = AsyncBridge()
        self.bridge = bridge
        start(bridge, known: launch.knownPeripherals, clock: launch.clock)
    }

    func start(_ bridge: AsyncBridge, known: [UUID], clock: any Clock<Duration>) {}
}

/// `async let` and a task group on the launch clock after discovery.
final class StructuredApp: ClockApp, Launchable, @unchecked Sendable {
    static var appName: String { "structured" }

    override func start(_ bridge: AsyncBridge, known: [UUID], clock: any Clock<Duration>) {
        Task {
            guard let sensor = await bridge.knownSensor(known) else { return }
            try await bridge.connect(sensor)
            try await bridge.discoverServices([CBUUID(string: "180D")], on: sensor)
            async let short: Void = clock.sleep(for: .milliseconds(10))
            async let long: Void = clock.sleep(for: .milliseconds(20))
            _ = try await (short, long)
            bridge.central.stopScan()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 { group.addTask { try await clock.sleep(for: .milliseconds(30)) } }
                try await group.waitForAll()
            }
            bridge.central.stopScan()
        }
    }
}

/// Ticks every 0.25 s of capture time on the launch clock (a `stopScan` marks each tick), four
/// times, while it connects in another task.
final class TickerApp: ClockApp, Launchable, @unchecked Sendable {
    static var appName: String { "ticker" }

    override func start(_ bridge: AsyncBridge, known: [UUID], clock: any Clock<Duration>) {
        Task {
            await bridge.waitPoweredOn()
            for _ in 0..<4 {
                try await clock.sleep(for: .milliseconds(250))
                bridge.central.stopScan()
            }
        }
        Task {
            guard let sensor = await bridge.knownSensor(known) else { return }
            try await bridge.connect(sensor)
            try await bridge.subscribeToMeasurements(on: sensor)
        }
    }
}

/// A `@MainActor` delegate, as apps written for Swift 6 declare it: its callbacks are
/// `nonisolated` and enter the main actor with `MainActor.assumeIsolated` (CoreBluetooth calls
/// them on the main queue, `queue: nil`), then start a main-actor task.
@MainActor final class MainActorDelegate: NSObject, CBCentralManagerDelegate {
    var central: CBCentralManager?
    var known: [UUID] = []
    var sensor: CBPeripheral?
    var connected: [CBPeripheral] = []

    nonisolated func centralManagerDidUpdateState(_ central: CBCentralManager) {
        nonisolated(unsafe) let central = central
        MainActor.assumeIsolated {
            if central.state == .poweredOn, let sensor = central.retrievePeripherals(withIdentifiers: known).first {
                self.sensor = sensor
                central.connect(sensor)
            }
        }
    }

    nonisolated func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        nonisolated(unsafe) let peripheral = peripheral
        MainActor.assumeIsolated {
            connected.append(peripheral)
            Task { @MainActor in self.connected.last?.discoverServices([CBUUID(string: "180D")]) }
        }
    }
}

final class MainActorDelegateApp: BluetoothApp, Launchable, @unchecked Sendable {
    static var appName: String { "main-actor-delegate" }
    var delegate: MainActorDelegate?
    init() {}

    func didFinishLaunching(_ launch: Launch) {
        let known = launch.knownPeripherals
        Task { @MainActor in
            let delegate = MainActorDelegate()
            delegate.known = known
            delegate.central = CBCentralManager(delegate: delegate, queue: nil)
            self.delegate = delegate
        }
    }
}
