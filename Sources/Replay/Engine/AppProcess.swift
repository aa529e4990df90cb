import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Flow
import Foundation
import Wire

/// Something the system does to the app or to Bluetooth during a replay, at a time in seconds
/// after the capture's start (`--terminate-at`, `--power-off-at`, …). Whether iOS relaunches the
/// app for a Bluetooth event after each is Apple's TN3115 table (``Platform/relaunches(after:)``).
public struct SystemEvent: Hashable, Sendable {
    /// What happens to the app or the system.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// iOS ends the app for memory: what it kept for the app's restore identifiers stays with
        /// the system, and a Bluetooth event for it relaunches the app.
        case terminate
        /// The app crashes: as a termination for memory (TN3115: relaunched).
        case crash
        /// The user swipes the app away: nothing is kept, nothing relaunches it (iOS 26: unless
        /// the app uses AccessorySetupKit).
        case forceQuit
        /// The device restarts: the process and every link end; what the restore identifiers
        /// kept stays, connections becoming pending connects; relaunched (after the first unlock
        /// when a ``unlock`` follows: the device has a passcode).
        case reboot
        /// The first unlock after a restart, on a device with a passcode: from now on the app can
        /// be relaunched.
        case unlock
        /// Bluetooth turned off in Settings: connections and scans end; a terminated app is not
        /// relaunched any more.
        case powerOff
        /// Bluetooth turned off with Control Center's button: the app's managers see
        /// `.poweredOff` and its connections end as for Settings, but what the system kept for a
        /// terminated app stays (TN3115: relaunched; iOS 26: AccessorySetupKit apps only).
        case controlCenter
        /// Airplane Mode turned on, taking Bluetooth off with it (iOS's default): as Settings.
        case airplaneMode
        /// Bluetooth on again.
        case powerOn
        /// The Bluetooth daemon restarts: `.resetting`, then `.poweredOn`; every peripheral object
        /// is invalid.
        case reset
        /// The user opens the app, if it is not running (after a termination or a force quit): no
        /// launch options, but a manager created with a restore identifier the system kept state
        /// for is restored all the same.
        case launch
        /// The app moves to the background (the user leaves it): what iOS restricts there
        /// depends on the background modes it declares (``Platform/backgroundModes``).
        case background
        /// The app comes back to the foreground: a suspended app gets the Bluetooth events iOS
        /// queued for it.
        case foreground
    }

    public var kind: Kind
    public var seconds: Double

    public init(_ kind: Kind, at seconds: Double) {
        self.kind = kind
        self.seconds = seconds
    }
}

/// The iOS a replay models: its release and whether the app sets its accessories up with
/// AccessorySetupKit; together they decide which system events iOS relaunches the app after
/// (Apple's TN3115, Formats/corebluetooth.md "iOS versions").
public struct Platform: Hashable, Sendable {
    /// The iOS releases whose rules differ.
    public enum Release: Int, Hashable, Sendable, CaseIterable, Comparable {
        case iOS17 = 17, iOS18 = 18, iOS26 = 26
        public static func < (a: Release, b: Release) -> Bool { a.rawValue < b.rawValue }
    }

    /// Default: the current release, iOS 26.
    public var release: Release
    /// The app uses AccessorySetupKit (iOS 26: only such apps are relaunched after a force quit,
    /// a Control Center toggle or Airplane Mode).
    public var accessorySetupKit: Bool
    /// What `didDisconnectPeripheral` carries when ATT's transaction timeout ends a link: by
    /// default none, the one observation found (`CoreBluetoothMapping.attTimeoutError`);
    /// `CBError(.connectionTimeout)` to test an app against the other reading.
    public var attTimeoutError: CBError?
    /// The ATT MTU iOS asks for itself when it connects (its Client Rx MTU): 185 by default, the
    /// value reported since iOS 10; 527 is seen too, from an iPhone 7 on iOS 15.4
    /// (Formats/corebluetooth.md, "The MTU"). A link's MTU is the smaller of this and what the
    /// capture shows the peer taking.
    public var mtu: Int
    /// What iOS tells the app when a connection fails to be established (HCI 0x3E): by default
    /// nothing, it tries again by itself (`EstablishmentFailure`, Formats/corebluetooth.md).
    public var establishmentFailure: EstablishmentFailure
    /// What a pairing cancelled on the phone does: by default it ends the link (``PairingCancel``).
    public var pairingCancel: PairingCancel

    // MARK: Background and AccessorySetupKit's grants (issue 41 items 9 and 10)

    /// The Core Bluetooth background modes the app declares in its Info.plist
    /// (`UIBackgroundModes`): `bluetooth-central`, `bluetooth-peripheral`.
    public struct BackgroundModes: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `bluetooth-central`.
        public static let central = BackgroundModes(rawValue: 1 << 0)
        /// `bluetooth-peripheral`.
        public static let peripheral = BackgroundModes(rawValue: 1 << 1)
        /// Both: the default.
        public static let both: BackgroundModes = [.central, .peripheral]
    }

    /// The background modes the app declares (default both): in the background a central
    /// without `bluetooth-central` is suspended, and a peripheral manager without
    /// `bluetooth-peripheral` stops advertising and its services refuse; a manager created with
    /// a restore identifier without its mode crashes the app (Formats/corebluetooth.md, "In the
    /// background").
    public var backgroundModes: BackgroundModes = .both
    /// With ``accessorySetupKit``: the accessories the user set up for the app with
    /// AccessorySetupKit's picker, before the capture (they are set up when the app launches);
    /// nil, the default, for the capture's peers (the devices its host connected to). The app's
    /// central managers are `.poweredOff` while it has none, and see only these in scans and
    /// retrievals (Formats/corebluetooth.md, "AccessorySetupKit").
    public var accessories: [BluetoothAddress]?

    public init(
        release: Release = .iOS26, accessorySetupKit: Bool = false, mtu: Int = 185,
        attTimeoutError: CBError? = CoreBluetoothMapping.attTimeoutError.value,
        establishmentFailure: EstablishmentFailure = .default, pairingCancel: PairingCancel = .endsLink
    ) {
        self.release = release
        self.accessorySetupKit = accessorySetupKit
        self.mtu = mtu
        self.attTimeoutError = attTimeoutError
        self.establishmentFailure = establishmentFailure
        self.pairingCancel = pairingCancel
    }

    /// TN3115's table: whether a Bluetooth event after `kind` can still relaunch the app (what the
    /// system kept for its restore identifiers survives `kind`). Events that are not in the table
    /// (power on, reset, a user launch, unlock) change nothing: true.
    public func relaunches(after kind: SystemEvent.Kind) -> Bool {
        // Note 5: from iOS 26, only apps that use AccessorySetupKit.
        let notRestricted = release < .iOS26 || accessorySetupKit
        switch kind {
        case .terminate, .crash, .reboot: return true
        // Never before iOS 26 (QA1962, TN3115); from iOS 26 for AccessorySetupKit apps (note 5).
        case .forceQuit: return release >= .iOS26 && accessorySetupKit
        // "Bluetooth power toggled: No"; Airplane Mode that takes Bluetooth with it is such a toggle (note 3).
        case .powerOff, .airplaneMode: return false
        case .controlCenter: return notRestricted
        case .unlock, .powerOn, .reset, .launch, .background, .foreground: return true
        }
    }
}

/// What the app holds at a moment: the peripherals it is connected to, the characteristics it
/// is subscribed to, and the connections it has asked for that are pending. A terminated app
/// holds what the system keeps for its restore identifiers (the next relaunch gives it back).
/// A connected peripheral counts when the app has it: the object has a delegate (a restored
/// peripheral that the app never takes back is of no use to it).
public struct AppState: Hashable, Sendable, Codable {
    /// Addresses.
    public var connected: Set<String> = []
    /// `ADDRESS CHARACTERISTIC` (the characteristic as the flow names it).
    public var subscribed: Set<String> = []
    /// Addresses with a pending `connect`.
    public var pending: Set<String> = []
    /// A central manager of the running app is scanning (looking for peripherals again).
    public var scanning = false

    public init(connected: Set<String> = [], subscribed: Set<String> = [], pending: Set<String> = []) {
        self.connected = connected
        self.subscribed = subscribed
        self.pending = pending
    }

    /// What `self` has that `other` lacks, as phrases (`connected F0:…`, `subscribed F0:… 2A37`,
    /// `pending F0:…`), in that order, sorted.
    public func lost(comparedWith other: AppState) -> [String] {
        connected.subtracting(other.connected).sorted().map { "connected \($0)" }
            + subscribed.subtracting(other.subscribed).sorted().map { "subscribed \($0)" }
            + pending.subtracting(other.pending).sorted().map { "pending \($0)" }
    }
}

/// What the system keeps of a peripheral manager of a terminated app: its published services
/// (with their subscribed centrals) and its advertising.
struct PreservedServer {
    var manager: CBPeripheralManager
    var services: [CBMutableService]
    var advertisementData: [String: Any]?
}

/// What the system keeps of a central manager of a terminated app (its restore identifier's
/// state): the peripherals connected or connecting, with their services and notifying flags, and
/// the scan if it had service UUIDs.
struct Preserved {
    var peripherals: [CBPeripheral]
    var scan: (services: [CBUUID], options: [String: Any]?)?
}

/// The app as iOS runs it (Formats/corebluetooth.md, "The app's life"): the running process with
/// its managers and its scan in progress, what the system keeps for the app across processes, and
/// Bluetooth's state; and what changes them: launch, termination, relaunch and restoration, force
/// quit, restarts and Bluetooth power (Formats/corebluetooth.md, "The app's life in a replay"),
/// and the app's scans (`ScanPlayback` plays their reports). A part of the
/// engine (``ReplayEngine``) with its own state and logic: what it needs of the rest of the
/// replay is `LifecycleContext`, and of the GATT server's playback the services the app's
/// peripheral managers published.
final class AppProcess {
    /// The engine running the replay: all this part uses of it. Unowned: the engine owns its
    /// parts and outlives them; set once, as the engine finishes its own initialization.
    unowned var replay: (any LifecycleContext)!
    /// The remote centrals' playback: what a peripheral manager published and advertises.
    private let server: ServerPlayback

    // `isRunning` and `centrals` are read for every notification the replay plays. Only the
    // replay's thread touches them, and no access to one overlaps another, so the runtime's
    // check of each access is left out, as for the engine's own state.

    /// The managers of the app's running process, in creation order.
    private(set) var managers: [CBManager] = []
    @exclusivity(unchecked) private(set) var centrals: [CBCentralManager] = [] {
        didSet { centralsVersion &+= 1 }
    }
    /// Counts the changes of ``centrals``: what a link's notifications found there stays true
    /// while it is the same.
    @exclusivity(unchecked) private(set) var centralsVersion = 0
    /// What makes an instance of the app, at launch and at each relaunch.
    var makeApp: (() -> any BluetoothApp)?
    /// The running process's app; nil while the app is not running.
    private(set) var app: (any BluetoothApp)? {
        didSet {
            isRunning = app != nil
            updateSuspension()
        }
    }
    /// Whether the app has a process now (a flag: the hot path asks for every notification).
    @exclusivity(unchecked) private(set) var isRunning = false
    /// The app's `UserDefaults`, kept across its processes.
    let defaults = AppDefaults()
    /// What the system keeps for a terminated app, by restore identifier (Formats/corebluetooth.md,
    /// "The app's life").
    private(set) var preserved: [String: Preserved] = [:]
    private var preservedServers: [String: PreservedServer] = [:]
    /// The central manager whose scan plays (a restored scan moves to the new process's manager).
    private var scanOwner: CBCentralManager?
    /// The app was ended in a way iOS does not relaunch it after (a force quit; Bluetooth turned
    /// off while it was not running): the system relaunches it for nothing until the user opens it.
    private var relaunchBlocked = false
    /// The device restarted and has not been unlocked since: nothing relaunches the app.
    private var locked = false
    /// Bluetooth events that would have relaunched the app while the device was locked, in order.
    private var heldWakes: [(peripheral: CBPeripheral, waking: String, deliver: (CBCentralManager) -> Void)] = []
    /// The scan in progress, if any: a new scan or a stop ends the old one's discoveries.
    private var scanGeneration = 0
    /// When the running process was launched.
    private(set) var launchedAt = Timestamp(rawValue: 0)
    /// The system's events to play (``ReplayEngine/events``).
    var events: [SystemEvent] = []
    /// Bluetooth's state when the app launches (``ReplayEngine/launchState``).
    var launchState: CBManagerState = .poweredOn
    /// The system's Bluetooth state now.
    private(set) var bluetoothState: CBManagerState = .poweredOn
    /// The iOS the replay models (``ReplayEngine/platform``).
    var platform = Platform()

    // The app in the background (issue 41 item 9; Formats/corebluetooth.md, "In the background").

    /// The running process is in the background (``SystemEvent/Kind/background``).
    private(set) var inBackground = false
    /// The app's central role is suspended: in the background without `bluetooth-central`. The
    /// engine holds what would reach the app until the next foreground (a flag: the engine asks
    /// for every event it runs).
    @exclusivity(unchecked) private(set) var suspended = false
    /// The times of the ``SystemEvent/Kind/foreground`` events, in order.
    private var foregrounds: [Timestamp] = []
    /// The peripheral managers whose advertising iOS stopped for the background.
    private var stoppedAdvertising = false
    /// Flow comments made once per replay.
    private var noted: Set<String> = []

    init(server: ServerPlayback) {
        self.server = server
    }

    // MARK: Scan

    /// A scan starts: `central`'s new one, or, with none, the one the system kept starting again
    /// (`ScanPlayback`). The scan before ends. Returns the scan's number, for ``isScanning(_:)``.
    func startScan(of central: CBCentralManager?) -> Int {
        if let central { scanOwner = central }
        scanGeneration += 1
        return scanGeneration
    }

    /// The scan in progress ends: the app stopped it, or the process or Bluetooth ended it.
    func endScan() {
        scanGeneration += 1
    }

    /// Whether the scan ``startScan(of:)`` numbered `scan` is still in progress.
    func isScanning(_ scan: Int) -> Bool { scan == scanGeneration }

    /// The central manager the scan's reports reach: the scan's, while the running process has it.
    var scanningCentral: CBCentralManager? {
        guard let central = scanOwner, centrals.contains(where: { $0 === central }) else { return nil }
        return central
    }

    // MARK: Launch

    /// Starts a process of the app: a new instance, its `didFinishLaunching`.
    func launch(options: [Launch.OptionsKey: Any]?, event: (name: FlowRecord.System, arguments: [FlowRecord.Argument]))
    {
        guard let makeApp else { return }
        let launch = Launch(
            knownPeripherals: replay.cassette.peers.map(CBPeer.identifier(for:)),
            asyncAfter: { [unowned self] seconds, action in
                replay.schedule(at: replay.now.adding(microseconds: ReplayEngine.microseconds(seconds)), action)
            },
            clock: replay.clock, options: options, defaults: defaults)
        replay.record(.system(event.name), event.arguments)
        // The capture time of the event that launched it, without the few milliseconds of wall
        // time a real-time replay takes to get there.
        launchedAt = replay.eventTime
        // The user's launch opens the app; iOS relaunches it for a Bluetooth event in the
        // background.
        inBackground = event.name == .relaunch && options != nil
        updateSuspension()
        let app = makeApp()
        self.app = app
        app.didFinishLaunching(launch)
    }

    /// A manager of the running process: it gets Bluetooth's state, after the restoration
    /// dictionary when the system kept state for its restore identifier.
    func managerCreated(_ manager: CBManager) {
        if let identifier = manager.restoreIdentifier, !declaresMode(for: manager) {
            let (kind, mode) =
                manager is CBCentralManager
                ? ("CBCentralManager", "bluetooth-central") : ("CBPeripheralManager", "bluetooth-peripheral")
            return replay.appCrashed(
                "restoreWithoutBackgroundMode",
                "State restoration of \(kind) is only allowed for applications that have specified the \"\(mode)\" background mode (restore identifier \(identifier))",
                by: manager)
        }
        managers.append(manager)
        var restored: (dictionary: [String: Any], arguments: [FlowRecord.Argument])?
        switch manager {
        case let central as CBCentralManager:
            centrals.append(central)
            central.coalescesDuplicates = inBackground
            restored = restoration(for: central)
        case let peripheralManager as CBPeripheralManager:
            restored = restoration(for: peripheralManager)
        default: break
        }
        replay.schedule(at: replay.now) { [unowned self] in
            let state = state(for: manager)
            if let restored {
                replay.record(replay.managerEvent(manager, .willRestoreState, .willRestoreState), restored.arguments)
            }
            replay.record(replay.managerEvent(manager, .didUpdateState, .didUpdateState), [.init(.state, "\(state)")])
            switch manager {
            case let central as CBCentralManager:
                central.deliver(.stateUpdated(state, restoredState: restored?.dictionary))
            case let peripheralManager as CBPeripheralManager:
                peripheralManager.deliver(.stateUpdated(state, restoredState: restored?.dictionary))
            default: break
            }
        }
    }

    /// The run is over: the process lets go of the app and its managers, and the system of what
    /// it kept.
    func finish() {
        for ended in endedManagers { ended.manager?.detachFromSystem() }
        endedManagers = []
        (managers, centrals, app, preserved, preservedServers, scanOwner, makeApp) = ([], [], nil, [:], [:], nil, nil)
    }

    /// The managers of the processes that ended, while the app still holds them.
    private var endedManagers: [WeakManager] = []

    struct WeakManager {
        weak var manager: CBManager?
        init(_ manager: CBManager) { self.manager = manager }
    }

    // MARK: System events

    func scheduleSystemEvents() {
        bluetoothState = launchState
        let sorted = events.sorted(by: { $0.seconds < $1.seconds })
        foregrounds = sorted.filter { $0.kind == .foreground }.map {
            replay.cassette.origin.adding(microseconds: ReplayEngine.microseconds($0.seconds))
        }
        for (index, event) in sorted.enumerated() {
            let at = replay.cassette.origin.adding(microseconds: ReplayEngine.microseconds(event.seconds))
            // A restart followed by a first unlock: the device has a passcode, nothing relaunches
            // the app until then.
            let passcode = event.kind == .reboot && sorted[(index + 1)...].contains { $0.kind == .unlock }
            replay.scheduleSystem(at: at) { [unowned self] in play(event.kind, passcode: passcode) }
        }
    }

    /// The system event `kind` happens now (`passcode`: a restart on a device with a passcode).
    func play(_ kind: SystemEvent.Kind, passcode: Bool = false) {
        switch kind {
        case .terminate, .crash, .forceQuit: terminate(kind)
        case .reboot: reboot(passcode: passcode)
        case .unlock: unlock()
        case .powerOff, .controlCenter, .airplaneMode: changeBluetooth(to: .poweredOff, event: kind)
        case .powerOn: changeBluetooth(to: .poweredOn, event: .powerOn)
        case .reset:
            changeBluetooth(to: .resetting, event: .reset)
            changeBluetooth(to: .poweredOn, event: nil)
        case .launch:
            // The user opens the app: a new process if it is not running, else it comes to the
            // foreground.
            if !isRunning { relaunch(reason: "user") } else { moveToForeground() }
        case .background: moveToBackground()
        case .foreground: moveToForeground()
        }
    }

    /// Bluetooth going off on the captured host: a link this host ended with reason 0x15 (Remote
    /// Device Terminated Connection due to Power Off, what a host sends as its own Bluetooth goes
    /// off). The replay turns Bluetooth off there, as `--power-off-at` does, and on again when the
    /// capture's host next connects or scans.
    func scheduleCapturedPowerOffs() {
        let offs = Set(
            replay.cassette.connections.compactMap(\.disconnection).compactMap { disconnection in
                disconnection.initiator == .local && disconnection.reason == .remoteDeviceTerminatedPowerOff
                    ? disconnection.time : nil
            }
        ).sorted()
        guard !offs.isEmpty else { return }
        let activity =
            replay.cassette.connections.compactMap(\.attempt?.time) + replay.cassette.scans.compactMap(\.startTime)
        for off in offs {
            let on = activity.filter { $0 > off }.min()
            replay.scheduleSystem(at: off) { [unowned self] in
                guard bluetoothState == .poweredOn else { return }
                replay.comment(
                    "the capture's host turned Bluetooth off at \(Wording.sinceStart(seconds: off.seconds(since: replay.cassette.origin))) (it ended its links with 0x15, Power Off)"
                        + (on.map {
                            "; on again when it next connects or scans, at \(Wording.sinceStart(seconds: $0.seconds(since: replay.cassette.origin)))"
                        } ?? ""))
                changeBluetooth(to: .poweredOff, event: .powerOff)
            }
            if let on {
                replay.scheduleSystem(at: on) { [unowned self] in
                    if bluetoothState == .poweredOff { changeBluetooth(to: .poweredOn, event: .powerOn) }
                }
            }
        }
    }

    // MARK: Termination

    /// Ends the app's process (`kind`: a termination for memory, a crash, a force quit or a
    /// restart). Where iOS relaunches the app after `kind` (``Platform/relaunches(after:)``), each
    /// central manager with a restore identifier leaves its connected and connecting peripherals
    /// and its scan (with service UUIDs) to the system; everything else of the process ends: its
    /// other connections and pending connects, its timers, the answers to its requests.
    func terminate(_ kind: SystemEvent.Kind) {
        guard isRunning else { return }
        switch kind {
        case .forceQuit: replay.record(.system(.forceQuit), [])
        case .crash: replay.record(.system(.terminate), [.init(.reason, "crash")])
        case .terminate: replay.record(.system(.terminate), [.init(.reason, "memory")])
        default: break  // a restart is written down by reboot(passcode:)
        }
        let keeps = platform.relaunches(after: kind)
        relaunchBlocked = relaunchBlocked || !keeps
        replay.endProcessEvents()
        var kept: Set<ObjectIdentifier> = []
        for central in centrals {
            guard keeps, let identifier = central.restoreIdentifier else {
                if central.scan != nil { endScan() }
                continue
            }
            let peripherals = replay.given.values
                .filter { $0.centralManager === central && ($0.state == .connected || $0.state == .connecting) }
                .sorted { $0.identifier.uuidString < $1.identifier.uuidString }
            var scan: (services: [CBUUID], options: [String: Any]?)?
            if let current = central.scan {
                if let services = current.services, !services.isEmpty {
                    scan = (services, current.options)
                } else {
                    endScan()
                    replay.comment(
                        "\(replay.label(central)): its scan had no service UUIDs; it does not go on in the background, and ends with the app"
                    )
                }
            }
            kept.formUnion(peripherals.map(ObjectIdentifier.init))
            preserved[identifier] = Preserved(peripherals: peripherals, scan: scan)
        }
        for (address, peripheral) in replay.given.sorted(by: { $0.key < $1.key })
        where !kept.contains(ObjectIdentifier(peripheral)) {
            if peripheral.state != .disconnected {
                replay.comment(
                    "\(address): the system ends the app's \(peripheral.state == .connected ? "connection" : "pending connect")"
                        + (!keeps ? " (force quit)" : " (no restore identifier keeps it)"))
            }
            replay.endConnection(of: peripheral, address)
            replay.forget(address)
        }
        for central in centrals { central.delegate = nil }
        for peripheral in replay.given.values { peripheral.delegate = nil }
        terminatePeripheralManagers(keeping: keeps)
        // No object of this process exists in the next: a manager a later launch still reaches
        // (a singleton) talks to no system, and the replay says so when it is used. The replay
        // still forgets its peripheral objects as they go, and detaches it fully at its end.
        for manager in managers { manager.detachFromProcess() }
        endedManagers += managers.map(WeakManager.init)
        // The app's objects go only once the process is gone: a peripheral it held is not one it
        // let go of (``peripheralReleased(_:by:)`` finds no live process).
        let ended = app
        (app, managers, centrals) = (nil, [], [])
        withExtendedLifetime(ended) {}
    }

    /// The device restarts: the app's process ends as for a termination, every link ends with the
    /// device (the peers see them drop), and what the restore identifiers kept stays with the
    /// system, its connections becoming pending connects that the system makes again once
    /// Bluetooth is back (TN3115: relaunched after a restart; which requests survive is our
    /// decision, Formats/corebluetooth.md). With a passcode (`passcode`: a first unlock follows)
    /// nothing relaunches the app before that unlock.
    func reboot(passcode: Bool) {
        replay.record(.system(.reboot), [])
        terminate(.reboot)
        endKeptLinks(because: "the device restarts")
        locked = passcode
    }

    /// The first unlock after a restart: the Bluetooth events that would have relaunched the app
    /// while the device was locked relaunch it now, and are delivered in their order.
    func unlock() {
        replay.record(.system(.unlock), [])
        guard locked else { return }
        locked = false
        let held = heldWakes
        heldWakes = []
        guard let first = held.first, !isRunning else { return }
        relaunch(reason: first.waking, peripheral: first.peripheral.address.map { "\($0)" })
        for wake in held { deliverAfterRelaunch(wake.peripheral, wake.waking, wake.deliver) }
    }

    /// The links of the peripherals the system keeps for a terminated app end (a restart): each
    /// becomes a pending connect the system makes again, as the app's connection request it still
    /// holds. Pending connects go on.
    func endKeptLinks(because cause: String) {
        for (identifier, kept) in preserved.sorted(by: { $0.key < $1.key }) {
            for peripheral in kept.peripherals where peripheral.state == .connected {
                guard let address = peripheral.address else { continue }
                replay.endConnection(of: peripheral, address)
                guard let central = peripheral.centralManager else { continue }
                central.keepConnecting(peripheral)
                replay.comment(
                    "\(address): \(cause); the system keeps the connection request of \(identifier) and connects again")
                replay.startAttempt(peripheral, address)
            }
        }
    }

    // MARK: Relaunch

    /// `peripheral`'s central manager when it is one of the process's; nil for a peripheral of a
    /// process that ended.
    func manager(of peripheral: CBPeripheral) -> CBCentralManager? {
        peripheral.centralManager.flatMap { central in centrals.contains { $0 === central } ? central : nil }
    }

    /// An event of the system for `peripheral` that the app hears in `deliver` (given the
    /// peripheral's central manager). With the app running it is delivered now. With the app
    /// terminated and the peripheral kept for a restore identifier, an event that wakes the app
    /// (`waking`: the delegate method's name) relaunches it, and is delivered after the restored
    /// managers' `willRestoreState` and `didUpdateState`. Otherwise the app never hears of it.
    func reach(_ peripheral: CBPeripheral, waking: String?, _ deliver: @escaping (CBCentralManager) -> Void) {
        if isRunning {
            if let central = manager(of: peripheral) { deliver(central) }
            return
        }
        guard let waking, !relaunchBlocked,
            preserved.values.contains(where: { $0.peripherals.contains { $0 === peripheral } })
        else {
            return
        }
        if locked {
            if heldWakes.isEmpty {
                replay.comment(
                    "\(peripheral.address.map { "\($0)" } ?? "?"): \(waking) before the first unlock after the restart; the app is relaunched at the unlock"
                )
            }
            heldWakes.append((peripheral, waking, deliver))
            return
        }
        relaunch(reason: waking, peripheral: peripheral.address.map { "\($0)" })
        deliverAfterRelaunch(peripheral, waking, deliver)
    }

    /// Delivers an event that relaunched the app, after the restored managers' callbacks.
    private func deliverAfterRelaunch(
        _ peripheral: CBPeripheral, _ waking: String, _ deliver: @escaping (CBCentralManager) -> Void
    ) {
        replay.schedule(at: replay.now, for: peripheral) { [unowned self] peripheral in
            guard let central = manager(of: peripheral) else {
                replay.comment(
                    "\(peripheral.address.map { "\($0)" } ?? "?"): the relaunched app did not restore the manager this peripheral belonged to; \(waking) is lost"
                )
                return
            }
            deliver(central)
        }
    }

    /// An advertising report while the app is not running: it relaunches the app when a kept scan
    /// with service UUIDs matches it.
    func wakesForDiscovery(_ advertisementData: [String: Any], _ address: BluetoothAddress) -> Bool {
        guard !isRunning, !relaunchBlocked, !locked else { return false }
        let advertised =
            ((advertisementData[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID]) ?? [])
            + ((advertisementData[CBAdvertisementDataOverflowServiceUUIDsKey] as? [CBUUID]) ?? [])
        let kept = preserved.values.contains { $0.scan?.services.contains(where: advertised.contains) ?? false }
        guard kept else { return false }
        relaunch(reason: "didDiscover", peripheral: "\(address)")
        return true
    }

    /// Starts a new process of the app, with the restore identifiers the system kept state for in
    /// its launch options (none when the user opens it: `reason` `user`).
    func relaunch(reason: String, peripheral: String? = nil, central: String? = nil) {
        relaunchBlocked = false
        var options: [Launch.OptionsKey: Any] = [:]
        let centralIdentifiers = preserved.keys.sorted()
        if !centralIdentifiers.isEmpty { options[.bluetoothCentrals] = centralIdentifiers }
        let peripheralIdentifiers = preservedServers.keys.sorted()
        if !peripheralIdentifiers.isEmpty { options[.bluetoothPeripherals] = peripheralIdentifiers }
        var arguments: [FlowRecord.Argument] = [.init(.reason, reason)]
        if let peripheral { arguments.append(.init(.peripheral, peripheral)) }
        if let central { arguments.append(.init(.central, central)) }
        launch(options: reason == "user" ? nil : options, event: (.relaunch, arguments))
        // What no manager of the new process claimed during launch is lost.
        for (identifier, kept) in preserved.sorted(by: { $0.key < $1.key }) {
            replay.comment(
                "the relaunched app created no central manager with restore identifier \(identifier): what the system kept for it is lost"
            )
            for peripheral in kept.peripherals {
                guard let address = peripheral.address else { continue }
                replay.endConnection(of: peripheral, address)
                replay.forget(address)
            }
            if kept.scan != nil { endScan() }
        }
        preserved = [:]
        abandonUnclaimedServers()
    }

    /// The restoration dictionary for a manager the app creates: the state the system kept for
    /// its restore identifier, claimed (once) by the first manager created with it.
    func restoration(for central: CBCentralManager) -> (dictionary: [String: Any], arguments: [FlowRecord.Argument])? {
        guard let identifier = central.restoreIdentifier else {
            if !preserved.isEmpty {
                replay.comment(
                    "\(replay.label(central)) was created without a restore identifier: it restores nothing (the system keeps state for \(preserved.keys.sorted().joined(separator: ", ")))"
                )
            }
            return nil
        }
        guard let kept = preserved.removeValue(forKey: identifier) else { return nil }
        var dictionary: [String: Any] = [:]
        var arguments: [FlowRecord.Argument] = [.init(.restoreIdentifier, identifier)]
        for peripheral in kept.peripherals {
            central.adopt(peripheral)
            if let address = peripheral.address { replay.give(peripheral, address) }
        }
        dictionary[CBCentralManagerRestoredStatePeripheralsKey] = kept.peripherals
        arguments.append(
            .init(
                .peripherals, list(kept.peripherals.map { "\($0.address.map { "\($0)" } ?? $0.identifier.uuidString)" })
            ))
        if let scan = kept.scan {
            central.continueScan(withServices: scan.services, options: scan.options)
            scanOwner = central
            dictionary[CBCentralManagerRestoredStateScanServicesKey] = scan.services
            if let options = scan.options { dictionary[CBCentralManagerRestoredStateScanOptionsKey] = options }
            arguments.append(.init(.scanServices, list(scan.services.map(\.uuidString))))
        }
        return (dictionary, arguments)
    }

    // MARK: Peripheral managers

    /// A peripheral manager with a restore identifier leaves its services and its advertising to
    /// the system; the others' services are unpublished and their advertising ends.
    func terminatePeripheralManagers(keeping: Bool) {
        for case let manager as CBPeripheralManager in managers {
            manager.delegate = nil
            if keeping, let identifier = manager.restoreIdentifier {
                preservedServers[identifier] = PreservedServer(
                    manager: manager, services: manager.publishedServices,
                    advertisementData: manager.isAdvertising ? server.advertisementData : nil)
            } else {
                server.withdraw(manager)
            }
        }
    }

    /// The restoration dictionary for a peripheral manager the app creates: its services, now
    /// this manager's, and its advertisement data.
    func restoration(for manager: CBPeripheralManager) -> (dictionary: [String: Any], arguments: [FlowRecord.Argument])?
    {
        guard let identifier = manager.restoreIdentifier else {
            if !preservedServers.isEmpty {
                replay.comment("\(replay.label(manager)) was created without a restore identifier: it restores nothing")
            }
            return nil
        }
        guard let kept = preservedServers.removeValue(forKey: identifier) else { return nil }
        server.transfer(from: kept.manager, to: manager)
        var dictionary: [String: Any] = [CBPeripheralManagerRestoredStateServicesKey: kept.services]
        var arguments: [FlowRecord.Argument] = [
            .init(.restoreIdentifier, identifier), .init(.services, list(kept.services.map(\.uuid.uuidString))),
        ]
        if let advertisement = kept.advertisementData {
            dictionary[CBPeripheralManagerRestoredStateAdvertisementDataKey] = advertisement
            arguments.append(.init(.advertising, "true"))
        }
        return (dictionary, arguments)
    }

    /// Peripheral-manager state no manager of the relaunched app claimed: lost.
    func abandonUnclaimedServers() {
        for (identifier, kept) in preservedServers.sorted(by: { $0.key < $1.key }) {
            replay.comment(
                "the relaunched app created no peripheral manager with restore identifier \(identifier): what the system kept for it is lost"
            )
            server.unpublish { $0.manager === kept.manager }
            if kept.advertisementData != nil { server.advertising = false }
        }
        preservedServers = [:]
    }

    /// A remote central's request to a service of `manager`, while the app is not running: it
    /// relaunches the app (`reason`: the callback it wakes the app for) when `manager` is one the
    /// system kept for restoration and nothing holds relaunches back. Whether it did.
    func relaunch(forRequestTo manager: CBPeripheralManager, reason: String, central: String) -> Bool {
        guard !relaunchBlocked, !locked, preservedServers.values.contains(where: { $0.manager === manager }) else {
            return false
        }
        relaunch(reason: reason, central: central)
        return true
    }

    // MARK: Bluetooth power

    /// Bluetooth changes state (`event`: the system event that changes it, written down). Below
    /// `.poweredOn` every connection, pending connect and scan ends in the system; the running
    /// app's managers get the state, and nothing else (no disconnection callbacks, no answers to
    /// requests in flight). For a terminated app, what the system kept for it ends when iOS does
    /// not relaunch apps after `event` (Settings, Airplane Mode); after a Control Center toggle
    /// it stays: its connections become pending connects and its scan waits, both going on when
    /// Bluetooth is back.
    func changeBluetooth(to state: CBManagerState, event: SystemEvent.Kind?) {
        switch event {
        case .controlCenter?, .airplaneMode?: replay.record(.system(.powerOff), [.init(.via, event!.rawValue)])
        case let event?: replay.record(.system(event.flowEvent), [])
        case nil: break
        }
        bluetoothState = state
        if state != .poweredOn {
            for (address, peripheral) in replay.given.sorted(by: { $0.key < $1.key }) {
                if !isRunning { replay.rewindAttempt(address) }
                replay.endConnection(of: peripheral, address)
            }
            endScan()
            if !isRunning {
                if let event, !platform.relaunches(after: event) {
                    relaunchBlocked = true
                    for (identifier, kept) in preserved.sorted(by: { $0.key < $1.key })
                    where !kept.peripherals.isEmpty || kept.scan != nil {
                        replay.comment(
                            "Bluetooth \(state) (\(event)): what the system kept for \(identifier) ends; iOS relaunches the app for nothing until the user opens it"
                        )
                        for peripheral in kept.peripherals {
                            if let address = peripheral.address { replay.forget(address) }
                        }
                        preserved[identifier]?.peripherals = []
                        preserved[identifier]?.scan = nil
                    }
                } else {
                    for kept in preserved.values {
                        for peripheral in kept.peripherals where peripheral.state != .disconnected {
                            peripheral.centralManager?.keepConnecting(peripheral)
                        }
                    }
                }
                for identifier in preservedServers.keys { preservedServers[identifier]?.advertisementData = nil }
                server.advertising = false
            } else {
                for identifier in preserved.keys { preserved[identifier]?.scan = nil }
            }
        } else if !isRunning {
            // Bluetooth back with the app terminated: the system goes on with what it kept.
            for (_, kept) in preserved.sorted(by: { $0.key < $1.key }) {
                for peripheral in kept.peripherals where peripheral.state == .connecting {
                    if let address = peripheral.address { replay.startAttempt(peripheral, address) }
                }
                if let scan = kept.scan { replay.playScan(scan.services, scan.options) }
            }
        }
        guard isRunning else { return }
        // A suspended app hears of it when it comes to the foreground, in order with what else
        // iOS queued for it ("In the background"): the replay holds the app's actions till then.
        guard !suspended else { return replay.schedule(at: replay.now) { [unowned self] in tellManagers(state) } }
        tellManagers(state)
    }

    /// The running app's managers get Bluetooth's `state`.
    private func tellManagers(_ bluetooth: CBManagerState) {
        for manager in managers {
            switch manager {
            case let central as CBCentralManager:
                // Only the state: the connections are already gone, with no disconnection
                // callback (Formats/corebluetooth.md, "Bluetooth power").
                let state = self.state(for: central, bluetooth: bluetooth)
                replay.record(.central(.didUpdateState, manager: replay.number(central)), [.init(.state, "\(state)")])
                central.deliver(.stateUpdated(state))
                if state != .poweredOn && state != .poweredOff { replay.forgetPeripherals(of: central) }
            case let peripheralManager as CBPeripheralManager:
                replay.record(
                    .peripheralManager(.didUpdateState, manager: replay.number(peripheralManager)),
                    [.init(.state, "\(bluetooth)")])
                peripheralManager.deliver(.stateUpdated(bluetooth))
            default: break
            }
        }
    }

    // MARK: Background and AccessorySetupKit

    /// Whether the app declares the background mode of `manager`'s role.
    private func declaresMode(for manager: CBManager) -> Bool {
        platform.backgroundModes.contains(manager is CBCentralManager ? .central : .peripheral)
    }

    /// The state `manager` is told: Bluetooth's, except that an AccessorySetupKit app's central
    /// managers are `.poweredOff` while no accessory is set up for it (reported: IOS-DFU-Library
    /// 542, "with ASK, state is always off at first").
    func state(for manager: CBManager) -> CBManagerState { state(for: manager, bluetooth: bluetoothState) }

    /// The state `manager` is told when Bluetooth's is `bluetooth`.
    private func state(for manager: CBManager, bluetooth: CBManagerState) -> CBManagerState {
        guard bluetooth == .poweredOn, platform.accessorySetupKit, accessories.isEmpty, manager is CBCentralManager
        else {
            return bluetooth
        }
        if noted.insert("ask").inserted {
            replay.comment(
                "\(replay.label(manager)): the app uses AccessorySetupKit and has no accessory set up (--accessories none, or a capture with no peer): its central managers stay poweredOff"
            )
        }
        return .poweredOff
    }

    /// The accessories AccessorySetupKit set up for the app (``Platform/accessories``; by
    /// default the capture's peers).
    var accessories: [BluetoothAddress] { platform.accessories ?? replay.cassette.peers }

    /// Whether the app may see `address`: any peer, unless it uses AccessorySetupKit, then only
    /// the accessories it was granted.
    func grants(_ address: BluetoothAddress) -> Bool {
        !platform.accessorySetupKit || accessories.contains(address)
    }

    /// The next foreground after now, if any: where what a suspended app is owed waits.
    var nextForeground: Timestamp? { foregrounds.first { $0 > replay.now } }

    private func updateSuspension() {
        suspended = isRunning && inBackground && !platform.backgroundModes.contains(.central)
    }

    /// The user leaves the app: `system background`. Without `bluetooth-central` the app is
    /// suspended (what would reach it waits for the foreground); scans without service UUIDs
    /// discover nothing; without `bluetooth-peripheral` the advertising stops and the services
    /// refuse remote centrals; with it, the advertisement loses its local name.
    func moveToBackground() {
        guard isRunning, !inBackground else { return }
        replay.record(.system(.background), [])
        inBackground = true
        updateSuspension()
        for central in centrals { central.coalescesDuplicates = true }
        if suspended {
            replay.comment(
                "the app declares no bluetooth-central background mode: iOS suspends it; Bluetooth events for it are queued until it comes to the foreground"
                    + (nextForeground == nil ? " (it never does in this replay)" : ""))
        }
        let advertising = managers.contains { ($0 as? CBPeripheralManager)?.isAdvertising == true }
        if !platform.backgroundModes.contains(.peripheral) {
            if managers.contains(where: { $0 is CBPeripheralManager }) {
                replay.comment(
                    "the app declares no bluetooth-peripheral background mode: in the background its advertising stops and its services refuse remote centrals (they get an error; the app hears nothing)"
                )
            }
            if advertising, server.advertising {
                server.advertising = false
                stoppedAdvertising = true
            }
        } else if advertising {
            replay.comment(
                "in the background the app's advertisement carries no local name, and its service UUIDs move to the overflow area (only iOS devices scanning for them find them); the capture's centrals are played as they came"
            )
        }
    }

    /// The user opens the app again: `system foreground`; what a suspended app was owed follows,
    /// in order, and stopped advertising starts again.
    func moveToForeground() {
        guard isRunning, inBackground else { return }
        replay.record(.system(.foreground), [])
        inBackground = false
        updateSuspension()
        for central in centrals { central.coalescesDuplicates = false }
        if stoppedAdvertising {
            server.advertising = true
            stoppedAdvertising = false
        }
    }

    /// Whether a remote central's request to the app's services is refused: the app is in the
    /// background without `bluetooth-peripheral`.
    var servicesDisabled: Bool {
        isRunning && inBackground && !platform.backgroundModes.contains(.peripheral)
    }

    /// Whether a scan's report reaches `central` now: not while the app is suspended, nor in the
    /// background for a scan without service UUIDs, nor for a peer AccessorySetupKit did not
    /// grant the app.
    func discovers(_ address: BluetoothAddress, by central: CBCentralManager) -> Bool {
        guard grants(address) else { return false }
        guard inBackground else { return true }
        if suspended { return false }
        if central.scan?.services?.isEmpty ?? true {
            if noted.insert("background scan").inserted {
                replay.comment(
                    "\(replay.label(central)): in the background a scan without service UUIDs discovers nothing")
            }
            return false
        }
        return true
    }

    // MARK: The app's state

    /// What the app holds now (``AppState``).
    func appState() -> AppState {
        var state = AppState()
        let keptObjects = Set(preserved.values.flatMap(\.peripherals).map(ObjectIdentifier.init))
        for (address, peripheral) in replay.given {
            let kept = !isRunning && keptObjects.contains(ObjectIdentifier(peripheral))
            // A running app holds a peripheral of its own managers (iOS ends the link of one the
            // app let go of), whether or not it set a delegate on it.
            let held = kept || (isRunning && manager(of: peripheral) != nil)
            let name = "\(address)"
            if peripheral.state == .connecting, kept || isRunning { state.pending.insert(name) }
            guard held, peripheral.state == .connected else { continue }
            state.connected.insert(name)
            for service in peripheral.services ?? [] {
                for characteristic in service.characteristics ?? [] where characteristic.isNotifying {
                    state.subscribed.insert("\(name) \(replay.characteristicName(characteristic.valueHandle, address))")
                }
            }
        }
        state.scanning = isRunning && centrals.contains { $0.isScanning }
        return state
    }
}

extension SystemEvent.Kind {
    /// The flow's event for it, when it is one the flow writes as it is.
    var flowEvent: FlowRecord.System {
        switch self {
        case .terminate: .terminate
        case .crash: .crash
        case .forceQuit: .forceQuit
        case .reboot: .reboot
        case .unlock: .unlock
        case .powerOff, .controlCenter, .airplaneMode: .powerOff
        case .powerOn: .powerOn
        case .reset: .reset
        case .launch: .launch
        case .background: .background
        case .foreground: .foreground
        }
    }
}
