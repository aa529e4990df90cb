import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Flow
import Foundation
import Wire

/// Something the system does to the app or to Bluetooth during a replay, at a time in seconds
/// after the capture's start (`--terminate-at`, `--power-off-at`, …). Whether iOS relaunches the
/// app for a Bluetooth event after each is Apple's TN3115 table (``Platform/relaunches(after:)``).
public struct SystemEvent: Hashable, Sendable {
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

    public init(release: Release = .iOS26, accessorySetupKit: Bool = false) {
        self.release = release
        self.accessorySetupKit = accessorySetupKit
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
        case .unlock, .powerOn, .reset, .launch: return true
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

// The app's life: termination, relaunch and restoration, force quit, Bluetooth power
// (Formats/corebluetooth.md, "The app's life in a replay").
extension ReplayEngine {
    func scheduleSystemEvents() {
        bluetoothState = launchState
        let sorted = events.sorted(by: { $0.seconds < $1.seconds })
        for (index, event) in sorted.enumerated() {
            let at = cassette.start.adding(microseconds: Self.microseconds(event.seconds))
            // A restart followed by a first unlock: the device has a passcode, nothing relaunches
            // the app until then.
            let passcode = event.kind == .reboot && sorted[(index + 1)...].contains { $0.kind == .unlock }
            scheduleSystem(at: at) { [unowned self] in
                switch event.kind {
                case .terminate, .crash, .forceQuit: terminate(event.kind)
                case .reboot: reboot(passcode: passcode)
                case .unlock: unlock()
                case .powerOff, .controlCenter, .airplaneMode: changeBluetooth(to: .poweredOff, event: event.kind)
                case .powerOn: changeBluetooth(to: .poweredOn, event: .powerOn)
                case .reset:
                    changeBluetooth(to: .resetting, event: .reset)
                    changeBluetooth(to: .poweredOn, event: nil)
                case .launch:
                    if !process.isRunning { relaunch(reason: "user") }
                }
            }
        }
    }

    /// Bluetooth going off on the captured host: a link this host ended with reason 0x15 (Remote
    /// Device Terminated Connection due to Power Off, what a host sends as its own Bluetooth goes
    /// off). The replay turns Bluetooth off there, as `--power-off-at` does, and on again when the
    /// capture's host next connects or scans.
    func scheduleCapturedPowerOffs() {
        let offs = Set(
            cassette.connections.compactMap { connection in
                connection.initiator == .local && connection.reason == .remoteDeviceTerminatedPowerOff ? connection.disconnectTime : nil
            }
        ).sorted()
        guard !offs.isEmpty else { return }
        let activity = cassette.connections.compactMap(\.attemptTime) + cassette.scans.compactMap(\.startTime)
        for off in offs {
            let on = activity.filter { $0 > off }.min()
            scheduleSystem(at: off) { [unowned self] in
                guard bluetoothState == .poweredOn else { return }
                comments.append(
                    "the capture's host turned Bluetooth off at +\(formatSeconds(off.seconds(since: cassette.start))) (it ended its links with 0x15, Power Off)"
                        + (on.map { "; on again when it next connects or scans, at +\(formatSeconds($0.seconds(since: cassette.start)))" } ?? ""))
                changeBluetooth(to: .poweredOff, event: .powerOff)
            }
            if let on {
                scheduleSystem(at: on) { [unowned self] in
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
        guard process.isRunning else { return }
        switch kind {
        case .forceQuit: record(.system(.forceQuit))
        case .crash: record(.system(.terminate), [.init(.reason, "crash")])
        case .terminate: record(.system(.terminate), [.init(.reason, "memory")])
        default: break  // a restart is written down by reboot(passcode:)
        }
        let keeps = platform.relaunches(after: kind)
        process.relaunchBlocked = process.relaunchBlocked || !keeps
        queue.endProcess()
        // The process's tasks never run again: their sleeps on its clock do not end.
        clock.abandonSleeps()
        var kept: Set<ObjectIdentifier> = []
        for central in process.centrals {
            guard keeps, let identifier = central.restoreIdentifier else {
                if central.scan != nil { process.scanGeneration += 1 }
                continue
            }
            let peripherals = connections.given.values
                .filter { $0.centralManager === central && ($0.state == .connected || $0.state == .connecting) }
                .sorted { $0.identifier.uuidString < $1.identifier.uuidString }
            var scan: (services: [CBUUID], options: [String: Any]?)?
            if let current = central.scan {
                if let services = current.services, !services.isEmpty {
                    scan = (services, current.options)
                } else {
                    process.scanGeneration += 1
                    comments.append("\(label(central)): its scan had no service UUIDs; it does not go on in the background, and ends with the app")
                }
            }
            kept.formUnion(peripherals.map(ObjectIdentifier.init))
            process.preserved[identifier] = Preserved(peripherals: peripherals, scan: scan)
        }
        for (address, peripheral) in connections.given.sorted(by: { $0.key < $1.key }) where !kept.contains(ObjectIdentifier(peripheral)) {
            if peripheral.state != .disconnected {
                comments.append(
                    "\(address): the system ends the app's \(peripheral.state == .connected ? "connection" : "pending connect")"
                        + (!keeps ? " (force quit)" : " (no restore identifier keeps it)"))
            }
            queue.withdraw(peripheral)
            connections.attempts.remove(address)
            connections.links[address] = nil
            connections.given[address] = nil
        }
        for central in process.centrals { central.delegate = nil }
        for peripheral in connections.given.values { peripheral.delegate = nil }
        terminatePeripheralManagers(keeping: keeps)
        // The app's objects go only once the process is gone: a peripheral it held is not one it
        // let go of (``peripheralReleased(_:by:)`` finds no live process).
        let ended = process.app
        (process.app, process.managers, process.centrals) = (nil, [], [])
        withExtendedLifetime(ended) {}
    }

    /// The device restarts: the app's process ends as for a termination, every link ends with the
    /// device (the peers see them drop), and what the restore identifiers kept stays with the
    /// system, its connections becoming pending connects that the system makes again once
    /// Bluetooth is back (TN3115: relaunched after a restart; which requests survive is our
    /// decision, Formats/corebluetooth.md). With a passcode (`passcode`: a first unlock follows)
    /// nothing relaunches the app before that unlock.
    func reboot(passcode: Bool) {
        record(.system(.reboot))
        terminate(.reboot)
        endKeptLinks(because: "the device restarts")
        process.locked = passcode
    }

    /// The first unlock after a restart: the Bluetooth events that would have relaunched the app
    /// while the device was locked relaunch it now, and are delivered in their order.
    func unlock() {
        record(.system(.unlock))
        guard process.locked else { return }
        process.locked = false
        let held = process.heldWakes
        process.heldWakes = []
        guard let first = held.first, !process.isRunning else { return }
        relaunch(reason: first.waking, peripheral: first.peripheral.address.map { "\($0)" })
        for wake in held { deliverAfterRelaunch(wake.peripheral, wake.waking, wake.deliver) }
    }

    /// The links of the peripherals the system keeps for a terminated app end (a restart): each
    /// becomes a pending connect the system makes again, as the app's connection request it still
    /// holds. Pending connects go on.
    func endKeptLinks(because cause: String) {
        for (identifier, kept) in process.preserved.sorted(by: { $0.key < $1.key }) {
            for peripheral in kept.peripherals where peripheral.state == .connected {
                guard let address = peripheral.address else { continue }
                queue.withdraw(peripheral)
                connections.links[address] = nil
                connections.attempts.remove(address)
                guard let central = peripheral.centralManager else { continue }
                central.keepConnecting(peripheral)
                comments.append("\(address): \(cause); the system keeps the connection request of \(identifier) and connects again")
                startAttempt(peripheral, address)
            }
        }
    }

    // MARK: Relaunch

    /// An event of the system for `peripheral` that the app hears in `deliver` (given the
    /// peripheral's central manager). With the app running it is delivered now. With the app
    /// terminated and the peripheral kept for a restore identifier, an event that wakes the app
    /// (`waking`: the delegate method's name) relaunches it, and is delivered after the restored
    /// managers' `willRestoreState` and `didUpdateState`. Otherwise the app never hears of it.
    func reach(_ peripheral: CBPeripheral, waking: String?, _ deliver: @escaping (CBCentralManager) -> Void) {
        if process.isRunning {
            if let central = peripheral.centralManager, process.centrals.contains(where: { $0 === central }) { deliver(central) }
            return
        }
        guard let waking, !process.relaunchBlocked, process.preserved.values.contains(where: { $0.peripherals.contains { $0 === peripheral } }) else {
            return
        }
        if process.locked {
            if process.heldWakes.isEmpty {
                comments.append("\(peripheral.address.map { "\($0)" } ?? "?"): \(waking) before the first unlock after the restart; the app is relaunched at the unlock")
            }
            process.heldWakes.append((peripheral, waking, deliver))
            return
        }
        relaunch(reason: waking, peripheral: peripheral.address.map { "\($0)" })
        deliverAfterRelaunch(peripheral, waking, deliver)
    }

    /// Delivers an event that relaunched the app, after the restored managers' callbacks.
    private func deliverAfterRelaunch(_ peripheral: CBPeripheral, _ waking: String, _ deliver: @escaping (CBCentralManager) -> Void) {
        schedule(at: now, for: peripheral) { [unowned self] peripheral in
            guard let central = peripheral.centralManager, process.centrals.contains(where: { $0 === central }) else {
                comments.append("\(peripheral.address.map { "\($0)" } ?? "?"): the relaunched app did not restore the manager this peripheral belonged to; \(waking) is lost")
                return
            }
            deliver(central)
        }
    }

    /// An advertising report while the app is not running: it relaunches the app when a kept scan
    /// with service UUIDs matches it.
    func wakesForDiscovery(_ advertisementData: [String: Any], _ address: BluetoothAddress) -> Bool {
        guard !process.isRunning, !process.relaunchBlocked, !process.locked else { return false }
        let advertised =
            ((advertisementData[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID]) ?? [])
            + ((advertisementData[CBAdvertisementDataOverflowServiceUUIDsKey] as? [CBUUID]) ?? [])
        guard process.preserved.values.contains(where: { kept in kept.scan?.services.contains(where: advertised.contains) ?? false }) else {
            return false
        }
        relaunch(reason: "didDiscover", peripheral: "\(address)")
        return true
    }

    /// Starts a new process of the app, with the restore identifiers the system kept state for in
    /// its launch options (none when the user opens it: `reason` `user`).
    func relaunch(reason: String, peripheral: String? = nil, central: String? = nil) {
        process.relaunchBlocked = false
        var options: [Launch.OptionsKey: Any] = [:]
        let centralIdentifiers = process.preserved.keys.sorted()
        if !centralIdentifiers.isEmpty { options[.bluetoothCentrals] = centralIdentifiers }
        let peripheralIdentifiers = process.preservedServers.keys.sorted()
        if !peripheralIdentifiers.isEmpty { options[.bluetoothPeripherals] = peripheralIdentifiers }
        var arguments: [FlowRecord.Argument] = [.init(.reason, reason)]
        if let peripheral { arguments.append(.init(.peripheral, peripheral)) }
        if let central { arguments.append(.init(.central, central)) }
        launch(options: reason == "user" ? nil : options, event: (.relaunch, arguments))
        // What no manager of the new process claimed during launch is lost.
        for (identifier, kept) in process.preserved.sorted(by: { $0.key < $1.key }) {
            comments.append("the relaunched app created no central manager with restore identifier \(identifier): what the system kept for it is lost")
            for peripheral in kept.peripherals {
                guard let address = peripheral.address else { continue }
                queue.withdraw(peripheral)
                connections.attempts.remove(address)
                connections.links[address] = nil
                connections.given[address] = nil
            }
            if kept.scan != nil { process.scanGeneration += 1 }
        }
        process.preserved = [:]
        abandonUnclaimedServers()
    }

    /// The restoration dictionary for a manager the app creates: the state the system kept for
    /// its restore identifier, claimed (once) by the first manager created with it.
    func restoration(for central: CBCentralManager) -> (dictionary: [String: Any], arguments: [FlowRecord.Argument])? {
        guard let identifier = central.restoreIdentifier else {
            if !process.preserved.isEmpty {
                comments.append("\(label(central)) was created without a restore identifier: it restores nothing (the system keeps state for \(process.preserved.keys.sorted().joined(separator: ", ")))")
            }
            return nil
        }
        guard let kept = process.preserved.removeValue(forKey: identifier) else { return nil }
        var dictionary: [String: Any] = [:]
        var arguments: [FlowRecord.Argument] = [.init(.restoreIdentifier, identifier)]
        for peripheral in kept.peripherals {
            central.adopt(peripheral)
            if let address = peripheral.address { connections.given[address] = peripheral }
        }
        dictionary[CBCentralManagerRestoredStatePeripheralsKey] = kept.peripherals
        arguments.append(.init(.peripherals, list(kept.peripherals.map { "\($0.address.map { "\($0)" } ?? $0.identifier.uuidString)" })))
        if let scan = kept.scan {
            central.continueScan(withServices: scan.services, options: scan.options)
            process.scanOwner = central
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
        for case let manager as CBPeripheralManager in process.managers {
            manager.delegate = nil
            if keeping, let identifier = manager.restoreIdentifier {
                process.preservedServers[identifier] = PreservedServer(
                    manager: manager, services: manager.publishedServices,
                    advertisementData: manager.isAdvertising ? server.advertisementData : nil)
            } else {
                unpublish { $0.manager === manager }
                if manager.isAdvertising { server.advertising = false }
            }
        }
    }

    /// The restoration dictionary for a peripheral manager the app creates: its services, now
    /// this manager's, and its advertisement data.
    func restoration(for manager: CBPeripheralManager) -> (dictionary: [String: Any], arguments: [FlowRecord.Argument])? {
        guard let identifier = manager.restoreIdentifier else {
            if !process.preservedServers.isEmpty {
                comments.append("\(label(manager)) was created without a restore identifier: it restores nothing")
            }
            return nil
        }
        guard let kept = process.preservedServers.removeValue(forKey: identifier) else { return nil }
        for (handle, published) in server.published where published.manager === kept.manager {
            server.published[handle]?.manager = manager
        }
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
        for (identifier, kept) in process.preservedServers.sorted(by: { $0.key < $1.key }) {
            comments.append("the relaunched app created no peripheral manager with restore identifier \(identifier): what the system kept for it is lost")
            unpublish { $0.manager === kept.manager }
            if kept.advertisementData != nil { server.advertising = false }
        }
        process.preservedServers = [:]
    }

    enum StepFate { case play, relaunched, lost }

    /// A remote central's step while the app is not running: a request to a service a peripheral
    /// manager kept for restoration relaunches the app (the step plays after the restoration); any
    /// other request is lost. Other steps (connections, MTU) play as always.
    func whileNotRunning(_ step: ServerPlayback.Step) -> StepFate {
        guard !process.isRunning, case .request(let position) = step.kind else { return .play }
        let exchange = cassette.links[step.link].exchanges[position]
        let handle = exchange.handle ?? 0
        let owner = server.published[server.cccdOwner[handle] ?? handle]?.manager
        // On a link where this host was the central, the system answers what the app did not
        // publish, running or not.
        if owner == nil, server.systemUnlessPublished.contains(step.link) { return .play }
        guard !process.relaunchBlocked, !process.locked, let owner, process.preservedServers.values.contains(where: { $0.manager === owner }) else {
            if server.noted.insert("lost while not running").inserted {
                comments.append("\(step.central): requests while the app is not running reach no app (no peripheral manager kept them for restoration)")
            }
            return .lost
        }
        let reason =
            server.cccdOwner[handle] != nil
            ? "didSubscribeTo"
            : [.readRequest, .readBlobRequest].contains(exchange.opcode) ? "didReceiveRead" : "didReceiveWrite"
        relaunch(reason: reason, central: "\(step.central)")
        return .relaunched
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
        case .controlCenter?, .airplaneMode?: record(.system(.powerOff), [.init(.via, event!.rawValue)])
        case let event?: record(.system(event.flowEvent))
        case nil: break
        }
        bluetoothState = state
        if state != .poweredOn {
            for (address, peripheral) in connections.given.sorted(by: { $0.key < $1.key }) {
                if !process.isRunning { rewindAttempt(address) }
                queue.withdraw(peripheral)
                connections.attempts.remove(address)
                connections.links[address] = nil
            }
            process.scanGeneration += 1
            if !process.isRunning {
                if let event, !platform.relaunches(after: event) {
                    process.relaunchBlocked = true
                    for (identifier, kept) in process.preserved.sorted(by: { $0.key < $1.key }) where !kept.peripherals.isEmpty || kept.scan != nil {
                        comments.append("Bluetooth \(state) (\(event)): what the system kept for \(identifier) ends; iOS relaunches the app for nothing until the user opens it")
                        for peripheral in kept.peripherals { if let address = peripheral.address { connections.given[address] = nil } }
                        process.preserved[identifier]?.peripherals = []
                        process.preserved[identifier]?.scan = nil
                    }
                } else {
                    for kept in process.preserved.values {
                        for peripheral in kept.peripherals where peripheral.state != .disconnected { peripheral.centralManager?.keepConnecting(peripheral) }
                    }
                }
                for identifier in process.preservedServers.keys { process.preservedServers[identifier]?.advertisementData = nil }
                server.advertising = false
            } else {
                for identifier in process.preserved.keys { process.preserved[identifier]?.scan = nil }
            }
        } else if !process.isRunning {
            // Bluetooth back with the app terminated: the system goes on with what it kept.
            for (_, kept) in process.preserved.sorted(by: { $0.key < $1.key }) {
                for peripheral in kept.peripherals where peripheral.state == .connecting {
                    if let address = peripheral.address { startAttempt(peripheral, address) }
                }
                if let scan = kept.scan { playScan(scan.services, scan.options) }
            }
        }
        guard process.isRunning else { return }
        for manager in process.managers {
            switch manager {
            case let central as CBCentralManager:
                // Only the state: the connections are already gone, with no disconnection
                // callback (Formats/corebluetooth.md, "Bluetooth power").
                record(.central(.didUpdateState, manager: number(central)), [.init(.state, "\(state)")])
                central.deliver(.stateUpdated(state))
                if state != .poweredOn && state != .poweredOff { connections.given.removeAll { $0.centralManager === central } }
            case let peripheralManager as CBPeripheralManager:
                record(.peripheralManager(.didUpdateState, manager: number(peripheralManager)), [.init(.state, "\(state)")])
                peripheralManager.deliver(.stateUpdated(state))
            default: break
            }
        }
    }

    // MARK: The app's state

    /// What the app holds now (``AppState``).
    func appState() -> AppState {
        var state = AppState()
        let keptObjects = Set(process.preserved.values.flatMap(\.peripherals).map(ObjectIdentifier.init))
        for (address, peripheral) in connections.given {
            let kept = !process.isRunning && keptObjects.contains(ObjectIdentifier(peripheral))
            // A running app holds a peripheral of its own managers (iOS ends the link of one the
            // app let go of), whether or not it set a delegate on it.
            let held = kept || (process.isRunning && process.centrals.contains { $0 === peripheral.centralManager })
            let name = "\(address)"
            if peripheral.state == .connecting, kept || process.isRunning { state.pending.insert(name) }
            guard held, peripheral.state == .connected else { continue }
            state.connected.insert(name)
            for service in peripheral.services ?? [] {
                for characteristic in service.characteristics ?? [] where characteristic.isNotifying {
                    state.subscribed.insert("\(name) \(characteristicName(characteristic.valueHandle, address))")
                }
            }
        }
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
        }
    }
}
