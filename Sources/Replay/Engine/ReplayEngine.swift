import CoreBluetoothCodes
import Flow
import Foundation
import HCI
import Lifecycle
import BLETraceCoreBluetooth
import Wire

/// Plays a cassette to an app: what the peers did comes from the capture, what the app asks for
/// is matched against it, and both are written to a `Flow`.
///
/// Time is the capture's clock. Events wait in a queue ordered by time (ties in the order they
/// were scheduled); the engine runs until the queue is empty. Connections follow CoreBluetooth's
/// rules (`Links`), GATT requests are answered as the capture's peer answered them
/// (`ClientPlayback`), scans get the capture's advertising reports (`ScanPlayback`), and a
/// capture taken on a peripheral host plays its remote centrals to the app's peripheral managers
/// (`ServerPlayback`); Formats/flow.md says how.
///
/// The engine is the coordinator: it runs the event loop on the capture's clock, owns the queue
/// of what happens next (`EventQueue`), the app's executor and the flow recorded, and wires its
/// parts, split where its state splits. Each part is a type with its own state and logic: the
/// app's process and its life, launch, termination, relaunch, restoration, Bluetooth power and
/// which scan plays (`AppProcess`); the app's links to its peripherals, the objects it was
/// given, its connection attempts and how each link ends (`Links`); the GATT client's playback,
/// the answers to the app's requests and what each link plays (`ClientPlayback`); the scans'
/// reports (`ScanPlayback`); and the remote centrals' playback for the app's peripheral managers
/// (`ServerPlayback`). The engine's `BluetoothSystem` methods forward to the part they concern.
/// Each part reaches the engine only through a protocol the engine conforms to, which says all it
/// may use: the capture's time, scheduling on the queue, the flow, the managers' names
/// (`ReplayContext`); for the process the effects the app's life has on the app's connections,
/// peripherals and scans (`LifecycleContext`); for the links and the GATT client the queue's
/// actions for a peripheral (`LinkContext`, `ClientContext`). A part holds the engine and the
/// parts it calls unowned (the engine owns its parts). The GATT client's notifications are the
/// replay's hot path, where a call through a protocol, a retain or a closure for each event would
/// cost time: the client takes the engine as a generic parameter, so that its calls are direct,
/// and holds what it uses `unowned(unsafe)`.
public final class ReplayEngine: BluetoothSystem {
    /// How the replay moves through the capture's time.
    public enum Pacing: Sendable {
        /// Capture time, as fast as the app answers: deterministic. App timers run on it through
        /// ``Launch/asyncAfter`` and ``Launch/clock``.
        case virtual
        /// The capture's own pace in wall time, with every callback on the main thread: for app
        /// code that uses `DispatchQueue.main.asyncAfter` or `Timer` directly.
        case realtime
    }

    public let cassette: Cassette
    public let pacing: Pacing
    /// The clock the app is given (``Launch/clock``).
    package let clock = ReplayClock()
    /// Things due later than this after the capture's last record do not happen: the replay ends
    /// (a timer that re-arms itself forever ends with it). The ATT transaction timeout, so that an
    /// app's own request timeouts after the last record still fire.
    public static let horizonSeconds: Int64 = 30
    /// With faults, a minute more: a fault near the capture's end (a pairing or request that
    /// times out after 30 s) leaves the app time to recover, as it would have on a phone.
    public static let faultHorizonSeconds: Int64 = 60
    /// The app's events so far, typed (not with a ``writer``).
    @exclusivity(unchecked) public internal(set) var records: [FlowRecord] = []
    /// The flow's comments so far: what the replay noted for people.
    @exclusivity(unchecked) public internal(set) var comments: [String] = []
    /// The porting warnings written so far: each once.
    private var portingWarnings: Set<String> = []
    /// The flow so far, as text: ``records`` rendered, with the ``comments``.
    public var flow: Flow { Flow(events: records.map(\.rendered), comments: comments) }
    /// When set, events are written to it as they happen instead of kept in ``records`` (the
    /// comments are still kept): for long replays (`FlowWriter`).
    @exclusivity(unchecked) public var writer: FlowWriter?

    /// Where the replay is in capture time.
    public var now: Timestamp {
        // A task woken by the clock acts at the clock's time: the engine moved to it first.
        pacing == .virtual ? eventTime : nowInRealTime()
    }

    /// ``now`` in a real-time replay: out of line, so that the virtual replay's, read for most
    /// events, is one load.
    @inline(never) private func nowInRealTime() -> Timestamp {
        guard let wallStart else { return eventTime }
        let elapsed = ContinuousClock.now - wallStart
        return max(eventTime, cassette.start.adding(microseconds: microseconds(elapsed)))
    }

    // The properties marked `@exclusivity(unchecked)` are read or changed for most events. Only
    // the replay's thread touches them, and no access to one overlaps another (none is passed
    // `inout` to code that could reach it again), so the runtime's check of each access, about a
    // tenth of the replay's time, is left out (Benchmarks/results.md).

    /// The time of the event running, or last run.
    @exclusivity(unchecked) private(set) var eventTime: Timestamp
    /// While the queue plays in virtual time: how far (``continues(at:for:)``).
    @exclusivity(unchecked) private var inlineHorizon: Timestamp?
    /// Where the app's Swift concurrency runs in a virtual replay (`ReplayExecutor`).
    @exclusivity(unchecked) private var executor: ReplayExecutor?
    /// This engine as the system of the app's code (managers it creates, tasks it starts), until
    /// the run finishes.
    private var binding: BluetoothSystemContext.Binding!
    /// How many jobs of the app's tasks a virtual replay ran, known at its end.
    private(set) var appJobsRun = 0
    private var wallStart: ContinuousClock.Instant?

    @exclusivity(unchecked) var queue = EventQueue()
    /// The app as iOS runs it: its process, its managers, what the system keeps for it, and what
    /// changes them.
    let process: AppProcess
    /// The app's links to its peripherals: the objects it was given, its connection attempts, the
    /// capture's connection each link plays, and their ends.
    let links: Links
    /// The GATT client's playback: the answers to the app's requests, and what each link plays.
    let client: ClientPlayback<ReplayEngine>
    /// The capture's advertising reports to the app's scans.
    let scan: ScanPlayback
    /// The system's events to play (termination, power), from the command line or a test.
    public var events: [SystemEvent] {
        get { process.events }
        set { process.events = newValue }
    }
    /// Bluetooth's state when the app launches: `.poweredOn`, or `.poweredOff` / `.unauthorized`
    /// to replay an app launched with Bluetooth off or not allowed.
    public var launchState: CBManagerState {
        get { process.launchState }
        set { process.launchState = newValue }
    }
    /// The iOS release and the app's use of AccessorySetupKit: which system events iOS relaunches
    /// the app after (``Platform/relaunches(after:)``).
    public var platform: Platform {
        get { process.platform }
        set { process.platform = newValue }
    }
    /// Called after each event the flow records (not with a ``writer``): the kill-point sweep
    /// reads what the app holds there.
    var afterEvent: (() -> Void)?
    /// What the app held at the end of the run (``run(name:launching:)``): for the kill-point
    /// sweep.
    public internal(set) var finalState = AppState()
    /// Each peripheral object the app was given, by address, and its state at the end of the run.
    public internal(set) var finalPeripheralStates: [String: CBPeripheralState] = [:]
    /// What the replay does with a request the capture cannot answer.
    public var unmatched: UnmatchedPolicy = .pend
    /// Failures the capture did not have, injected at their points (``Fault``; Formats/faults.md).
    public var faults: [Fault] = []
    /// Keep each GATT request the app makes (`requestLog`): a fault sweep places its faults
    /// on the requests of its run without a fault.
    public var logsRequests = false
    /// The faults' part, when there are faults or requests to log (``FaultInjector``).
    @exclusivity(unchecked) var injector: FaultInjector?
    /// Set when a request could not be matched under ``UnmatchedPolicy/fail``: the replay stopped.
    public private(set) var failed = false
    /// The rule the app broke that crashes an iOS app (`appCrashed(_:by:)`), if it did.
    public private(set) var crashReason: String?
    /// The remote centrals' playback, for the app's peripheral managers.
    let server: ServerPlayback

    public init(cassette: Cassette, pacing: Pacing = .virtual) {
        self.cassette = cassette
        self.pacing = pacing
        self.eventTime = cassette.start
        server = ServerPlayback(cassette: cassette)
        process = AppProcess(server: server)
        links = Links(cassette: cassette, process: process)
        client = ClientPlayback(cassette: cassette, links: links, process: process)
        scan = ScanPlayback(cassette: cassette, process: process, links: links)
        links.client = client
        server.replay = self
        process.replay = self
        links.replay = self
        client.replay = self
        scan.replay = self
    }

    /// A replay of `cassette` set up as the command line, the testing library and the sweeps set
    /// one up: what it does with a request the capture cannot answer, the system's events,
    /// Bluetooth's state at launch, the iOS it models and the faults it injects.
    public convenience init(
        cassette: Cassette, pacing: Pacing = .virtual, unmatched: UnmatchedPolicy, events: [SystemEvent],
        launchState: CBManagerState,
        platform: Platform, faults: [Fault] = []
    ) {
        self.init(cassette: cassette, pacing: pacing)
        self.unmatched = unmatched
        self.events = events
        self.launchState = launchState
        self.platform = platform
        self.faults = faults
    }

    /// Launches `app` at the capture's start and plays the whole cassette to it. The same object
    /// stays the app throughout: for apps that are never terminated (``run(name:launching:)``
    /// makes a new instance at each relaunch).
    public func run(_ app: any BluetoothApp, name: String) async -> Flow {
        await run(name: name) { app }
    }

    /// Launches an instance of the app `makeApp` makes at the capture's start and plays the whole
    /// cassette to it, with the ``events`` of the system at their times: after a termination the
    /// system makes a new instance when a Bluetooth event relaunches the app.
    public func run(name: String, launching makeApp: @escaping () -> any BluetoothApp) async -> Flow {
        let horizon = cassette.end.adding(
            microseconds: (Self.horizonSeconds + (faults.isEmpty ? 0 : Self.faultHorizonSeconds)) * 1_000_000)
        if let jump = cassette.clockJump {
            let (from, to) = (jump.from.seconds(since: cassette.origin), jump.to.seconds(since: cassette.origin))
            comments.append(
                "the capture's clock jumps at frame \(jump.record + 1), from \(Wording.sinceStart(seconds: from)) to \(Wording.sinceStart(seconds: to)): damaged; the replay ends with the frame before"
            )
        }
        // Peers whose database the capture never discovered: where the replay's came from.
        comments.append(contentsOf: cassette.peerOrder.compactMap(cassette.databaseComment))
        self.process.makeApp = makeApp
        binding = BluetoothSystemContext.Binding(self)
        server.start()
        prepareFaults()
        process.scheduleSystemEvents()
        process.scheduleCapturedPowerOffs()
        switch pacing {
        case .virtual:
            // The whole replay runs on this thread, with the app's tasks on the replay's executor:
            // no suspension of the replay itself, so that nothing but the app's own jobs runs
            // between two events.
            let executor = ReplayExecutor()
            self.executor = executor
            executor.run {
                BluetoothSystemContext.with(binding) {
                    process.launch(options: nil, event: (.launch, [.init(.app, name)]))
                }
                playVirtually(until: horizon, executor)
            }
        case .realtime:
            nonisolated(unsafe) let engine = self
            await engine.playInRealTime(until: horizon) {
                // The capture's start is now, in wall time: when the main thread takes the app.
                engine.wallStart = .now
                engine.clock.followWallTime(from: engine.wallStart!)
                BluetoothSystemContext.with(engine.binding) {
                    engine.process.launch(options: nil, event: (.launch, [.init(.app, name)]))
                }
            }
        }
        if let executor { executor.run { finish() } } else { finish() }
        return flow
    }

    /// The end of the run: what the app holds, and the engine lets go of the app. Tasks the app
    /// leaves suspended stay so; what runs when the app is released runs on the replay's
    /// executor, after the flow's end (it is not written down).
    private func finish() {
        links.endLinks()
        for fault in faultsNotInjected {
            comments.append(
                "fault \(fault) never happened: \(fault.hitsRequest ? "no request of the app took it" : "its moment came after the replay's end")"
            )
        }
        finalState = process.appState()
        finalPeripheralStates = links.finalStates()
        // The app's managers let go of the engine, and the engine of them, so that the engine is
        // freed when the caller drops it, even when the app left tasks waiting for ever (they
        // hold the app, as they would on iOS).
        finished = true
        for manager in process.managers { manager.detachFromSystem() }
        binding.release()
        (links.given, queue) = (GivenPeripherals(), EventQueue())
        process.finish()
        server.finish()
        executor?.drain()
        appJobsRun = executor?.jobsRun ?? 0
        executor = nil
    }

    /// The run is over: nothing more is written to the flow.
    @exclusivity(unchecked) private var finished = false

    /// Runs the queue in time order, on the calling thread. Before each event the app's jobs run
    /// until every task of the app is suspended (`ReplayExecutor`); the sleeps on the app's
    /// clock wake between the events at their moments, each followed by the jobs it woke. An app
    /// that starts no task and takes no clock pays one test per event.
    private func playVirtually(until horizon: Timestamp, _ executor: ReplayExecutor) {
        executor.drain()
        while true {
            let nextEvent = queue.nextTime()
            // A suspended app runs no code: its sleeps end, late, once it is in the foreground
            // again (Formats/corebluetooth.md, "In the background").
            if clock.isInUse, !process.suspended, let deadline = clock.earliestDeadline {
                let at = cassette.start.adding(microseconds: microseconds(deadline.offset))
                if at <= horizon, nextEvent.map({ at <= $0 }) ?? true {
                    eventTime = max(eventTime, at)
                    clock.wake(at: deadline)
                    executor.drain()
                    continue
                }
            }
            guard let nextEvent, nextEvent <= horizon, let next = queue.popNext(notAfter: nextEvent) else { return }
            // Never back: what a suspended app was owed plays at its foreground, after its time.
            eventTime = max(eventTime, nextEvent)
            if clock.isInUse {
                clock.move(
                    to: ReplayClock.Instant(offset: .microseconds(eventTime.microseconds - cassette.start.microseconds))
                )
            }
            BluetoothSystemContext.with(binding) {
                inlineHorizon = horizon
                defer { inlineHorizon = nil }
                run(next)
                // While the app takes no clock, nothing waits between events but the app's jobs:
                // they run, then the next events run in the same context (binding it costs more
                // than most events). The jobs carry their own tasks' context.
                while true {
                    if executor.hasWork {
                        inlineHorizon = nil
                        executor.drain()
                        inlineHorizon = horizon
                    }
                    guard !clock.isInUse, let due = queue.popNext(notAfter: horizon) else { break }
                    eventTime = max(eventTime, due.time)
                    run(due)
                }
            }
        }
    }

    /// The running action's next step, due at `time`: true when the action plays it at once (the
    /// replay's time moves there), false when the step was scheduled instead, or dropped because
    /// the action was withdrawn meanwhile (its link ended). It plays at once in virtual time
    /// without the app's clock, within the horizon, when nothing else is due before it: the queue
    /// would have run it next. The app's ready jobs run first, as they would before a scheduled
    /// step; the step's place in the queue is taken before they run, so that what they schedule
    /// for the same time comes after it (an async app's notification stream then costs no trip
    /// through the queue per value).
    func continues(at time: Timestamp, for peripheral: CBPeripheral) -> Bool {
        guard !queue.isRunningWithdrawn else { return false }
        guard let horizon = inlineHorizon, time <= horizon, !clock.isInUse, queue.isRunningAction, !process.suspended
        else {
            queue.scheduleRunningAgain(at: time, for: peripheral)
            return false
        }
        var place: Int?
        if let executor, executor.hasWork {
            place = queue.reserve(1).lowerBound
            inlineHorizon = nil
            executor.drain()
            inlineHorizon = horizon
            guard !queue.isRunningWithdrawn else { return false }
        }
        if clock.isInUse || queue.hasAction(before: time, sequence: place) {
            queue.scheduleRunningAgain(at: time, sequence: place, for: peripheral)
            return false
        }
        eventTime = max(eventTime, time)
        return true
    }

    /// Runs each event at its capture time in wall time, on the main thread, where the app's own
    /// `DispatchQueue.main` timers run between them. The whole loop stays on the main actor (its
    /// sleeps wake there too), so that busy worker threads cannot hold the replay back.
    /// The app's tasks run on the main actor too (``ReplayExecutor/inRealTime(_:)``), after
    /// `launch`, which starts the app.
    @MainActor
    private func playInRealTime(until horizon: Timestamp, launch: () -> Void) async {
        await ReplayExecutor.inRealTime {
            launch()
            await playQueueInRealTime(until: horizon)
        }
    }

    @MainActor
    private func playQueueInRealTime(until horizon: Timestamp) async {
        while let next = await nextInRealTime(), next <= horizon {
            try? await Task.sleep(
                until: wallStart! + .microseconds(next.microseconds - cassette.start.microseconds), clock: .continuous)
            BluetoothSystemContext.with(binding) {
                while let due = queue.popNext(notAfter: now) {
                    eventTime = max(eventTime, due.time)
                    run(due)
                }
            }
        }
    }

    /// The time of the next event; when none is due, the app's tasks (on the main actor with the
    /// replay) first run: the main queue is yielded to until they have scheduled something or
    /// are all asleep on the clock, whose next wake-up is then waited for. Real time cannot know
    /// when the app's tasks are all suspended, as the virtual replay does: it yields a bounded
    /// number of times (Formats/flow.md, "Swift concurrency in a virtual replay").
    @MainActor
    private func nextInRealTime() async -> Timestamp? {
        while true {
            if let next = queue.nextTime() { return next }
            for _ in 0..<Self.realTimeYields where queue.nextTime() == nil { await Task.yield() }
            if let next = queue.nextTime() { return next }
            guard let wake = clock.earliestDeadline, !queue.closed else { return nil }
            try? await Task.sleep(until: wallStart! + wake.offset, clock: .continuous)
            // The woken task runs once the sleep's own wake-up has reached the main actor.
            for _ in 0..<Self.realTimeYields where clock.earliestDeadline == wake { await Task.yield() }
        }
    }

    /// How many times a real-time replay yields to the app's tasks before it takes the queue for
    /// empty.
    static let realTimeYields = 100

    /// Whole microseconds of a delay in seconds: never negative, and at most what a Timestamp
    /// holds (a delay of a billion years is past any capture's horizon anyway).
    static func microseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return seconds >= 9.2e12 ? Int64.max : Int64((seconds * 1e6).rounded())
    }

    private func microseconds(_ duration: Swift.Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000).partialValue &+ attoseconds / 1_000_000_000_000
    }

    // MARK: BluetoothSystem: managers

    public var authorization: CBManagerAuthorization { launchState == .unauthorized ? .denied : .allowedAlways }

    /// The capture's controller: extended scanning and connecting when the capture shows it
    /// (``Cassette/extendedScanAndConnect``).
    public var supportedFeatures: CBCentralManager.Feature {
        cassette.extendedScanAndConnect ? .extendedScanAndConnect : []
    }

    /// A manager of the running process (`AppProcess.managerCreated(_:)`).
    public func managerDidInit(_ manager: CBManager) {
        process.managerCreated(manager)
    }

    public func apiMisuse(_ message: String, by manager: CBManager) {
        comments.append(message)
    }

    /// Written as a flow comment, once per message.
    public func portingWarning(_ message: String, by manager: CBManager) {
        guard portingWarnings.insert(message).inserted else { return }
        comments.append("porting: \(message)")
    }

    /// The app did what CoreBluetooth answers with an exception: on iOS the app would crash there.
    /// The flow ends with `system crash reason=…` and the replay fails (`bletrace replay` exits 1).
    public func appCrashed(_ rule: String, _ message: String, by manager: CBManager?) {
        guard crashReason == nil else { return }
        comments.append("the app crashes here on iOS: \(message) (an exception CoreBluetooth raises)")
        record(.system(.crash), [.init(.reason, rule)])
        crashReason = rule
        stop()
    }

    /// In a virtual replay the replay's thread is the app's main queue (`ReplayExecutor`).
    public var standsForMainQueue: Bool { executor != nil }

    public func later(_ action: @escaping () -> Void) {
        schedule(at: now, action)
    }

    /// The app's `queue.asyncAfter(deadline:execute:)` in a virtual replay, called on the
    /// replay's thread: a timer of the running process at capture time (a termination ends it),
    /// run on the replay's thread for the main queue, with `queue.sync` for another, as the
    /// managers call delegates. Real time, or another thread: the wall clock's (false).
    public func asyncAfter(_ seconds: Double, on queue: DispatchQueue, isMain: Bool, _ work: @escaping () -> Void)
        -> Bool
    {
        guard let executor, ReplayExecutor.current === executor, !finished else { return false }
        guard seconds.isFinite else { return true }
        schedule(at: now.adding(microseconds: Self.microseconds(seconds))) {
            if isMain { work() } else { queue.sync(execute: work) }
        }
        return true
    }

    // MARK: BluetoothSystem: GATT server

    // The peripheral managers' calls: the GATT server's playback (``ServerPlayback``) answers them.

    public func add(_ service: CBMutableService, for manager: CBPeripheralManager) {
        server.add(service, for: manager)
    }

    public func remove(_ service: CBMutableService, for manager: CBPeripheralManager) {
        server.remove(service, for: manager)
    }

    public func removeAllServices(for manager: CBPeripheralManager) {
        server.removeAllServices(for: manager)
    }

    public func startAdvertising(_ advertisementData: [String: Any]?, for manager: CBPeripheralManager) {
        server.startAdvertising(advertisementData, for: manager)
    }

    public func stopAdvertising(for manager: CBPeripheralManager) {
        server.stopAdvertising(for: manager)
    }

    public func respond(to request: CBATTRequest, withResult result: CBATTError.Code, for manager: CBPeripheralManager)
    {
        server.respond(to: request, withResult: result, for: manager)
    }

    public func updateValue(
        _ value: Data, for characteristic: CBMutableCharacteristic, onSubscribedCentrals centrals: [CBCentral]?,
        for manager: CBPeripheralManager
    ) -> Bool {
        server.updateValue(value, for: characteristic, onSubscribedCentrals: centrals, for: manager)
    }

    public func setDesiredConnectionLatency(
        _ latency: CBPeripheralManagerConnectionLatency, for central: CBCentral, manager: CBPeripheralManager
    ) {
        server.setDesiredConnectionLatency(latency, for: central, manager: manager)
    }

    public func publishL2CAPChannel(withEncryption encryptionRequired: Bool, for manager: CBPeripheralManager) {
        server.publishL2CAPChannel(withEncryption: encryptionRequired, for: manager)
    }

    public func unpublishL2CAPChannel(_ psm: CBL2CAPPSM, for manager: CBPeripheralManager) {
        server.unpublishL2CAPChannel(psm, for: manager)
    }

    // MARK: BluetoothSystem: central

    // The app's connections: the links (``Links``) play them.

    public func retrievePeripherals(withIdentifiers identifiers: [UUID], for central: CBCentralManager)
        -> [CBPeripheral]
    {
        links.retrievePeripherals(withIdentifiers: identifiers, for: central)
    }

    public func retrieveConnectedPeripherals(withServices services: [CBUUID], for central: CBCentralManager)
        -> [CBPeripheral]
    {
        links.retrieveConnectedPeripherals(withServices: services, for: central)
    }

    public func registerForConnectionEvents(
        options: [CBConnectionEventMatchingOption: Any]?, for central: CBCentralManager
    ) {
        record(.app(.registerForConnectionEvents))
    }

    public func connect(_ peripheral: CBPeripheral, options: [String: Any]?, for central: CBCentralManager) {
        links.connect(peripheral, options: options)
    }

    public func cancelPeripheralConnection(_ peripheral: CBPeripheral, for central: CBCentralManager) {
        links.cancelConnection(peripheral, for: central)
    }

    public func connectRefused(
        _ peripheral: CBPeripheral, options: [String: Any]?, error: any Error, for central: CBCentralManager
    ) {
        links.connectRefused(peripheral, error: error, for: central)
    }

    /// The app let go of a peripheral object: the queue forgets it, and one that was connected or
    /// connecting loses its connection or attempt with no callback, as on iOS
    /// (`Links.released(_:_:)`). Called from the object's deinit, so nothing here calls the app.
    public func peripheralReleased(_ peripheral: ReleasedPeripheral, by central: CBCentralManager) {
        queue.forget(peripheral.object)
        guard peripheral.state == .connected || peripheral.state == .connecting, !finished, process.isRunning,
            process.centrals.contains(where: { $0 === central }), let address = peripheral.address
        else { return }
        links.released(peripheral, address)
    }

    // MARK: BluetoothSystem: scan

    // The capture's advertising reports: the scan's playback (``ScanPlayback``) plays them.

    public func scanForPeripherals(
        withServices services: [CBUUID]?, options: [String: Any]?, for central: CBCentralManager
    ) {
        scan.scanForPeripherals(withServices: services, options: options, for: central)
    }

    public func stopScan(for central: CBCentralManager) {
        scan.stopScan(for: central)
    }

    // MARK: BluetoothSystem: GATT client

    // The app's requests to its peripherals: the GATT client's playback (``ClientPlayback``)
    // answers them.

    public func perform(_ request: GATTRequest, on peripheral: CBPeripheral) {
        client.perform(request, on: peripheral)
    }

    public func writeWithoutResponse(_ value: Data, for characteristic: CBCharacteristic, on peripheral: CBPeripheral)
        -> Bool
    {
        client.writeWithoutResponse(value, for: characteristic, on: peripheral)
    }

    public func readRSSI(of peripheral: CBPeripheral) {
        client.readRSSI(of: peripheral)
    }

    public func openL2CAPChannel(_ psm: CBL2CAPPSM, on peripheral: CBPeripheral) {
        client.openL2CAPChannel(psm, on: peripheral)
    }

    public func peripheral(_ peripheral: CBPeripheral, didFail request: GATTRequest, error: any Error) {
        client.peripheral(peripheral, didFail: request, error: error)
    }

    // MARK: Scheduling

    /// Schedules an action of the app's running process (an answer to its request, its timer, a
    /// callback its manager owes it): a termination withdraws it.
    func schedule(at time: Timestamp, _ action: @escaping () -> Void) {
        queue.schedule(at: time, for: nil, process: queue.liveProcess, action)
    }

    /// Schedules an action of the app's running process for `peripheral` (an answer to its
    /// request): a termination or the link's end withdraws it. The peripheral is held weakly, as
    /// iOS holds the app's objects: if the app lets go of it first, nothing happens.
    func schedule(at time: Timestamp, for peripheral: CBPeripheral, _ action: @escaping (CBPeripheral) -> Void) {
        queue.schedule(at: time, for: peripheral, process: queue.liveProcess, action)
    }

    /// Schedules something the system plays whatever becomes of the app's process (a connection
    /// completing, a peer's notification or disconnection): it reaches the app through
    /// ``process.reach(_:waking:_:)``.
    func scheduleSystem(at time: Timestamp, _ action: @escaping () -> Void) {
        queue.schedule(at: time, for: nil, process: EventQueue.control, action)
    }

    /// Schedules something the system plays for `peripheral`, held weakly (a peripheral the app
    /// let go of has no connection left: ``peripheralReleased(_:by:)``).
    func scheduleSystem(at time: Timestamp, for peripheral: CBPeripheral, _ action: @escaping (CBPeripheral) -> Void) {
        queue.schedule(at: time, for: peripheral, process: 0, action)
    }

    /// Runs an action the queue gave: one for a peripheral with the peripheral, unless the app
    /// let go of it meanwhile.
    private func run(_ scheduled: EventQueue.Scheduled) {
        // A suspended app gets nothing until it comes to the foreground: what would reach it
        // waits there, in order (Formats/corebluetooth.md, "In the background").
        if process.suspended, scheduled.process != EventQueue.control {
            if let foreground = process.nextForeground { queue.defer(scheduled, to: foreground) }
            return
        }
        switch scheduled.action {
        case .plain(let action): action()
        case .peripheral(let action):
            if let peripheral = queue.peripheral(inSlot: scheduled.slot) { action(peripheral) }
        }
    }

    /// `central`, `central2`, … and `peripheralManager`, `peripheralManager2`, … in creation order.
    func label(_ manager: CBManager) -> String {
        managerEvent(manager, .didUpdateState, .didUpdateState).actor
    }

    /// The number of `manager` among the app's managers of its kind, in creation order (1 for
    /// the first: `central`, 2 for `central2`).
    func number(_ manager: CBManager) -> Int {
        let same = process.managers.filter { ($0 is CBCentralManager) == (manager is CBCentralManager) }
        return (same.firstIndex { $0 === manager } ?? 0) + 1
    }

    /// The event of `manager`: `central` for a central manager, `peripheralManager` for the other.
    func managerEvent(
        _ manager: CBManager, _ central: FlowRecord.Central, _ peripheralManager: FlowRecord.PeripheralManager
    ) -> FlowRecord.Event {
        manager is CBCentralManager
            ? .central(central, manager: number(manager))
            : .peripheralManager(peripheralManager, manager: number(manager))
    }

    func record(_ event: FlowRecord.Event, _ arguments: [FlowRecord.Argument] = []) {
        // After a crash the app's process is gone: what its code went on to call never happened.
        guard crashReason == nil, !finished else { return }
        let record = FlowRecord(time: now.seconds(since: cassette.origin), event, arguments)
        if let writer { return writer.append(record) }
        records.append(record)
        afterEvent?()
    }

    /// Stops the replay: nothing more happens (``UnmatchedPolicy/fail``, a crash).
    func stop() {
        failed = true
        queue.close()
    }
}

// What the engine's parts use of it (``ReplayContext``, ``LifecycleContext``, ``LinkContext``,
// ``ClientContext``), where the engine's own methods do not already say it.
extension ReplayEngine: LifecycleContext, LinkContext, ClientContext {
    func comment(_ text: String) {
        comments.append(text)
    }

    var appIsRunning: Bool { process.isRunning }

    var servicesDisabled: Bool { process.servicesDisabled }

    func relaunch(forRequestTo manager: CBPeripheralManager, reason: String, central: String) -> Bool {
        process.relaunch(forRequestTo: manager, reason: reason, central: central)
    }

    func endProcessEvents() {
        queue.endProcess()
        // The process's tasks never run again: their sleeps on its clock do not end.
        clock.abandonSleeps()
    }

    var given: GivenPeripherals { links.given }

    func give(_ peripheral: CBPeripheral, _ address: BluetoothAddress) {
        links.given[address] = peripheral
    }

    func forget(_ address: BluetoothAddress) {
        links.given[address] = nil
    }

    func forgetPeripherals(of central: CBCentralManager) {
        links.given.removeAll { $0.centralManager === central }
    }

    func endConnection(of peripheral: CBPeripheral, _ address: BluetoothAddress) {
        links.endConnection(of: peripheral, address)
    }

    func startAttempt(_ peripheral: CBPeripheral, _ address: BluetoothAddress) {
        links.startAttempt(peripheral, address)
    }

    func rewindAttempt(_ address: BluetoothAddress) {
        links.rewindAttempt(address)
    }

    func characteristicName(_ valueHandle: UInt16, _ address: BluetoothAddress?) -> String {
        client.characteristicName(valueHandle, address)
    }

    func playScan(_ services: [CBUUID]?, _ options: [String: Any]?) {
        scan.play(services, options)
    }

    func withdraw(_ peripheral: CBPeripheral) {
        queue.withdraw(peripheral)
    }

    var liveProcess: Int { queue.liveProcess }
}

/// The peripheral objects the app was given, by address, held as weakly as by `weak`
/// (``BackReference``): iOS holds the app's objects so, and ends the connection of one the app
/// lets go of (``ReplayEngine/peripheralReleased(_:by:)``). As a sequence: the objects still
/// alive, with their addresses.
struct GivenPeripherals: Sequence {
    private var entries: [BluetoothAddress: BackReference<CBPeripheral>] = [:]

    subscript(address: BluetoothAddress) -> CBPeripheral? {
        get { entries[address]?.object }
        set { entries[address] = newValue?.backReference }
    }

    /// The objects still alive.
    var values: [CBPeripheral] { entries.values.compactMap(\.object) }

    mutating func removeAll(where shouldRemove: (CBPeripheral) -> Bool) {
        entries = entries.filter { $0.value.object.map { !shouldRemove($0) } ?? false }
    }

    func makeIterator() -> IndexingIterator<[(key: BluetoothAddress, value: CBPeripheral)]> {
        entries.compactMap { entry in entry.value.object.map { (key: entry.key, value: $0) } }.makeIterator()
    }
}
