import BLETraceCoreBluetooth
import Flow
import Wire

/// What a part of the replay with its own state and logic needs of the engine that runs it, and
/// all it may use of it: the capture and where the replay is in it, the queue, the flow, the
/// app's managers by name, the policy for what the capture cannot answer, and whether the app
/// runs. ``ReplayEngine`` conforms; a part (`ServerPlayback`, `ScanPlayback`) keeps an unowned
/// reference to it, typed as this protocol or one that refines it, so that what it can reach of
/// the engine is written here. The GATT client's playback (`ClientPlayback`), the replay's hot
/// path, takes the engine as a generic parameter constrained to `ClientContext`: the same
/// bounds, with direct calls.
protocol ReplayContext: AnyObject {
    var cassette: Cassette { get }
    /// Where the replay is in capture time (``ReplayEngine/now``).
    var now: Timestamp { get }
    /// Schedules an action of the app's running process: a termination withdraws it.
    func schedule(at time: Timestamp, _ action: @escaping () -> Void)
    /// Schedules something the system plays whatever becomes of the app's process.
    func scheduleSystem(at time: Timestamp, _ action: @escaping () -> Void)
    /// Writes an event to the flow.
    func record(_ event: FlowRecord.Event, _ arguments: [FlowRecord.Argument])
    /// Writes a comment to the flow: what the replay noted for people.
    func comment(_ text: String)
    /// The number of `manager` among the app's managers of its kind (`central2`: 2).
    func number(_ manager: CBManager) -> Int
    /// What the replay does with a request the capture cannot answer.
    var unmatched: UnmatchedPolicy { get }
    /// Whether the replay stopped (``UnmatchedPolicy/fail``, a crash).
    var failed: Bool { get }
    /// Stops the replay: nothing more happens.
    func stop()
    /// Whether the app has a process now.
    var appIsRunning: Bool { get }
    /// A remote central's request to a service of `manager` while the app is not running:
    /// whether it relaunched the app (``AppProcess/relaunch(forRequestTo:reason:central:)``).
    func relaunch(forRequestTo manager: CBPeripheralManager, reason: String, central: String) -> Bool
    /// Whether the app's services refuse remote centrals now: it is in the background without
    /// `bluetooth-peripheral` (``AppProcess/servicesDisabled``).
    var servicesDisabled: Bool { get }
}

/// What the app's process (`AppProcess`) needs of the engine besides `ReplayContext`: the
/// effects the app's life has on the rest of the replay. The process ends: the queue drops what
/// the process was owed and its timers; the app's connections end, are made again, or are kept
/// for it; its peripherals are given to a relaunched app or forgotten; its scan starts again.
protocol LifecycleContext: ReplayContext {
    /// The time of the event running (a real-time replay's ``now`` is a little later).
    var eventTime: Timestamp { get }
    /// The clock the app is given.
    var clock: ReplayClock { get }
    /// Schedules an action of the app's running process for `peripheral`, held weakly.
    func schedule(at time: Timestamp, for peripheral: CBPeripheral, _ action: @escaping (CBPeripheral) -> Void)
    /// `central`, `central2`, … and `peripheralManager`, … as the flow names the manager.
    func label(_ manager: CBManager) -> String
    /// The event of `manager`: `central` for a central manager, `peripheralManager` for the other.
    func managerEvent(
        _ manager: CBManager, _ central: FlowRecord.Central, _ peripheralManager: FlowRecord.PeripheralManager
    ) -> FlowRecord.Event
    /// The app's process ended: what the queue held for it is withdrawn, and its tasks' sleeps on
    /// the clock never end.
    func endProcessEvents()
    /// The peripheral objects the app was given and still holds, by address.
    var given: GivenPeripherals { get }
    /// `peripheral` is the app's again (a restored manager adopted it).
    func give(_ peripheral: CBPeripheral, _ address: BluetoothAddress)
    /// The app no longer holds the peripheral at `address`.
    func forget(_ address: BluetoothAddress)
    /// The app no longer holds `central`'s peripherals (Bluetooth reset: every object is invalid).
    func forgetPeripherals(of central: CBCentralManager)
    /// The system ends `peripheral`'s connection or connection attempt with no callback: what its
    /// link had to play and the answers owed on it are dropped.
    func endConnection(of peripheral: CBPeripheral, _ address: BluetoothAddress)
    /// A connection attempt to `peripheral` (``Links/startAttempt(_:_:)``).
    func startAttempt(_ peripheral: CBPeripheral, _ address: BluetoothAddress)
    /// An attempt to `address` that will be made again later: the connection that was to complete
    /// it is free again.
    func rewindAttempt(_ address: BluetoothAddress)
    /// A characteristic as the flow names it.
    func characteristicName(_ valueHandle: UInt16, _ address: BluetoothAddress?) -> String
    /// Plays the capture's advertising reports from now to a scan.
    func playScan(_ services: [CBUUID]?, _ options: [String: Any]?)
    /// The app did what iOS answers with an exception (``ReplayEngine/appCrashed(_:_:by:)``).
    func appCrashed(_ rule: String, _ message: String, by manager: CBManager?)
}

/// What the links (`Links`) need of the engine besides `ReplayContext`: the queue's actions for
/// a peripheral, which a link's end withdraws.
protocol LinkContext: ReplayContext {
    /// Schedules an action of the app's running process for `peripheral`, held weakly.
    func schedule(at time: Timestamp, for peripheral: CBPeripheral, _ action: @escaping (CBPeripheral) -> Void)
    /// Schedules something the system plays for `peripheral`, held weakly.
    func scheduleSystem(at time: Timestamp, for peripheral: CBPeripheral, _ action: @escaping (CBPeripheral) -> Void)
    /// The queue drops what it holds for `peripheral`: what its link had to play, the answers
    /// owed on it.
    func withdraw(_ peripheral: CBPeripheral)
    /// The faults' part, when the replay injects faults or logs requests.
    var injector: FaultInjector? { get }
}

/// What the GATT client's playback (`ClientPlayback`) needs of the engine besides what the links
/// do (`LinkContext`, the queue's actions for a peripheral): what a notification's playback uses,
/// the flow's writer, the running action's next step played at once, and which process the
/// queue's actions are for.
protocol ClientContext: LinkContext {
    /// Where events are written as they happen, for long replays (``ReplayEngine/writer``).
    var writer: FlowWriter? { get }
    /// Whether the running action plays its next step, due at `time`, at once
    /// (``ReplayEngine/continues(at:for:)``).
    func continues(at time: Timestamp, for peripheral: CBPeripheral) -> Bool
    /// The app's process the queue's actions are for now: a termination changes it.
    var liveProcess: Int { get }
    /// Logs the app's request just recorded, and gives the faults that hit it
    /// (``ReplayEngine/faultsHitting(_:on:)``).
    func faultsHitting(_ request: GATTRequest, on peripheral: CBPeripheral) -> [Fault]
}
