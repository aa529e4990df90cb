import Foundation

/// What the managers talk to: on iOS, the system's Bluetooth daemon; here, the replay engine or a
/// test double.
///
/// A manager forwards every request of the app to its system, after checking what CoreBluetooth
/// checks itself (the manager's state, the peripheral's connection, one GATT request at a time per
/// peripheral). The system answers later through the managers' `deliver(_:)` methods
/// (``CBCentralManager/deliver(_:)``, ``CBPeripheral/deliver(_:)``,
/// ``CBPeripheralManager/deliver(_:)``), as CoreBluetooth answers through delegate callbacks.
/// Answers must come after the call returns (the app's own code may still be running when it
/// calls), never from inside it; the one answer iOS gives inside a call, a refused auto-reconnect,
/// is the manager's own (``connectRefused(_:options:error:for:)``).
///
/// The managers know nothing of captures; a system knows nothing of delegates.
public protocol BluetoothSystem: AnyObject {
    /// A manager was created. The system answers with ``CBCentralManager/Event/stateUpdated(_:restoredState:)``
    /// (or the peripheral manager's), and with the restoration dictionary when the manager's
    /// restore identifier has state to restore.
    func managerDidInit(_ manager: CBManager)
    /// `CBManager.authorization`.
    var authorization: CBManagerAuthorization { get }
    /// What `CBCentralManager.supports(_:)` answers: the features of the system's controller.
    var supportedFeatures: CBCentralManager.Feature { get }
    /// The app called something CoreBluetooth refuses ("API MISUSE" in CoreBluetooth's log). The
    /// call was ignored; the system may write it down.
    func apiMisuse(_ message: String, by manager: CBManager)
    /// The app did something CoreBluetooth answers with an exception (an
    /// `NSInternalInconsistencyException`, which ends an iOS app): `rule` names the rule in one
    /// word (`cccdWrittenDirectly`), `message` is the exception's text. The call did nothing; the
    /// app's process is over (bletrace itself does not trap). `manager` is nil for an object made
    /// outside any manager (a `CBMutableDescriptor`).
    func appCrashed(_ rule: String, _ message: String, by manager: CBManager?)
    /// Something of the app's code that behaves differently here than on iOS, found as it runs
    /// (a delegate whose class inherits its conformance: Formats/porting.md). The system may
    /// write it down.
    func portingWarning(_ message: String, by manager: CBManager)
    /// Runs `action` after the app's current call returns, in order with the system's own
    /// answers: for what a manager answers itself (CoreBluetooth answers every call
    /// asynchronously, as a delegate callback).
    func later(_ action: @escaping () -> Void)
    /// Whether the thread that calls the managers now stands for the main queue: a virtual replay
    /// runs the app's main-queue and main-actor code on its own thread, so a manager created with
    /// `queue: DispatchQueue.main` calls its delegate there, at once, as it does for `queue: nil`.
    var standsForMainQueue: Bool { get }
    /// Runs `work` on `queue` after `seconds` of the system's time (never, for an infinite
    /// delay), when the system keeps the time of the calling code: a virtual replay, called on
    /// its own thread. Returns false, taking nothing, otherwise: the caller then uses the wall
    /// clock. `isMain` says whether `queue` is the main queue. The app's
    /// `queue.asyncAfter(deadline:execute:)` comes here (Formats/porting.md, "Timers in a replay").
    func asyncAfter(_ seconds: Double, on queue: DispatchQueue, isMain: Bool, _ work: @escaping () -> Void) -> Bool

    // MARK: Central role

    func scanForPeripherals(withServices services: [CBUUID]?, options: [String: Any]?, for central: CBCentralManager)
    func stopScan(for central: CBCentralManager)
    func connect(_ peripheral: CBPeripheral, options: [String: Any]?, for central: CBCentralManager)
    func cancelPeripheralConnection(_ peripheral: CBPeripheral, for central: CBCentralManager)
    /// CoreBluetooth refused a `connect` itself, inside the call: auto-reconnect asked for by a
    /// delegate without the iOS 17 disconnection method. No connection is attempted; the delegate
    /// gets `didFailToConnect` with `error` right after this returns, still inside the app's call.
    /// So that a system sees every call and callback.
    func connectRefused(
        _ peripheral: CBPeripheral, options: [String: Any]?, error: any Error, for central: CBCentralManager)
    /// Peripherals the system knows by identifier; objects come from ``CBCentralManager/peripheral(identifier:address:name:)``.
    func retrievePeripherals(withIdentifiers identifiers: [UUID], for central: CBCentralManager) -> [CBPeripheral]
    /// Peripherals connected to the system (by any app) that have one of `services`.
    func retrieveConnectedPeripherals(withServices services: [CBUUID], for central: CBCentralManager) -> [CBPeripheral]
    func registerForConnectionEvents(options: [CBConnectionEventMatchingOption: Any]?, for central: CBCentralManager)
    /// The app let go of its last reference to a peripheral of `central`: the system forgets the
    /// object, and ends its connection or attempt if it was connected or connecting, with no
    /// callback (there is no object left to call it with). Called from the object's deinit: the
    /// system must not call back into the app from here.
    func peripheralReleased(_ peripheral: ReleasedPeripheral, by central: CBCentralManager)

    // MARK: GATT client (a peripheral of a central)

    /// Starts `request`. A peripheral has one request at a time in its system; the system answers
    /// it with ``CBPeripheral/Event/completed(_:)``.
    func perform(_ request: GATTRequest, on peripheral: CBPeripheral)
    /// Sends a Write Command. Returns whether the link can take another one at once
    /// (``CBPeripheral/canSendWriteWithoutResponse``); after `false` the system sends
    /// ``CBPeripheral/Event/readyToSendWriteWithoutResponse`` when it can.
    func writeWithoutResponse(_ value: Data, for characteristic: CBCharacteristic, on peripheral: CBPeripheral) -> Bool
    /// The peripheral answered `request` itself with `error`, just before telling the delegate:
    /// the link ended with the request pending (`CBError.peripheralDisconnected`), or CoreBluetooth
    /// refuses it without asking the peer. So that a system sees every callback the app gets.
    func peripheral(_ peripheral: CBPeripheral, didFail request: GATTRequest, error: any Error)
    func readRSSI(of peripheral: CBPeripheral)
    func openL2CAPChannel(_ psm: CBL2CAPPSM, on peripheral: CBPeripheral)

    // MARK: GATT server (a peripheral manager)

    func add(_ service: CBMutableService, for manager: CBPeripheralManager)
    func remove(_ service: CBMutableService, for manager: CBPeripheralManager)
    func removeAllServices(for manager: CBPeripheralManager)
    func startAdvertising(_ advertisementData: [String: Any]?, for manager: CBPeripheralManager)
    func stopAdvertising(for manager: CBPeripheralManager)
    /// The app's one answer to a read, or to a group of writes (given with the group's first request).
    func respond(to request: CBATTRequest, withResult result: CBATTError.Code, for manager: CBPeripheralManager)
    /// Sends a notification or indication. Returns false when the transmit queue is full; the
    /// system then sends ``CBPeripheralManager/Event/readyToUpdateSubscribers`` when it has room.
    func updateValue(
        _ value: Data, for characteristic: CBMutableCharacteristic, onSubscribedCentrals centrals: [CBCentral]?,
        for manager: CBPeripheralManager
    ) -> Bool
    func setDesiredConnectionLatency(
        _ latency: CBPeripheralManagerConnectionLatency, for central: CBCentral, manager: CBPeripheralManager)
    func publishL2CAPChannel(withEncryption encryptionRequired: Bool, for manager: CBPeripheralManager)
    func unpublishL2CAPChannel(_ psm: CBL2CAPPSM, for manager: CBPeripheralManager)
}

extension BluetoothSystem {
    /// By default a crash is not written down (a system made before crashes were modelled).
    public func appCrashed(_ rule: String, _ message: String, by manager: CBManager?) {}

    /// By default a porting warning is not written down (a system made before they existed).
    public func portingWarning(_ message: String, by manager: CBManager) {}

    /// By default a refused `connect` is not written down (a system made before this was modelled).
    public func connectRefused(
        _ peripheral: CBPeripheral, options: [String: Any]?, error: any Error, for central: CBCentralManager
    ) {}

    /// By default a released peripheral changes nothing (a system made before this was modelled).
    public func peripheralReleased(_ peripheral: ReleasedPeripheral, by central: CBCentralManager) {}

    /// By default the main queue is the main queue.
    public var standsForMainQueue: Bool { false }

    /// By default no feature (a system made before features were modelled).
    public var supportedFeatures: CBCentralManager.Feature { [] }
    /// By default the system keeps no time of its own: timers run on the wall clock.
    public func asyncAfter(_ seconds: Double, on queue: DispatchQueue, isMain: Bool, _ work: @escaping () -> Void)
        -> Bool
    { false }
}

/// The system a manager created now talks to.
///
/// `CBCentralManager(delegate:queue:options:)` takes no system, as in CoreBluetooth: it finds the
/// one of the replay (or test) that is running the app's code, bound with ``with(_:_:)``. A
/// manager created outside any ``with(_:_:)`` gets a system with no Bluetooth, and reports
/// `.unsupported`, as on a machine without Bluetooth. The binding is task-local, so tests that
/// replay in parallel do not see each other's systems.
public enum BluetoothSystemContext {
    /// A system as bound to running code. Tasks the app starts inherit the binding; a binding
    /// let go of (``release()``) binds nothing from then on, so that a task left suspended at the
    /// end of a replay does not keep the replay (and its cassette) alive.
    ///
    /// It holds its system strongly until released, not weakly: a weak reference would give the
    /// system a side table, and every retain and release of it, thousands per notification
    /// replayed, would take the runtime's slow path (Benchmarks/results.md).
    ///
    /// Unchecked: the system is a non-`Sendable` reference read and cleared under the lock only.
    public final class Binding: @unchecked Sendable {
        private let lock = NSLock()
        private var system: (any BluetoothSystem)?

        public init(_ system: any BluetoothSystem) { self.system = system }

        /// The system, until the binding is let go of.
        var current: (any BluetoothSystem)? { lock.withLock { system } }

        /// Binds nothing from now on: code still holding the binding (tasks left suspended)
        /// creates managers with no Bluetooth.
        public func release() { lock.withLock { system = nil } }
    }

    @TaskLocal static var binding: Binding?

    /// The system bound to the running code, if any.
    public static var current: (any BluetoothSystem)? { binding?.current }

    /// Runs `body` with `system` as the system managers created in it talk to. Tasks started in
    /// `body` keep the system for as long as they live; a system that must be freed while tasks
    /// are left waiting (a replay's) binds itself with a ``Binding`` it releases.
    public static func with<Result>(_ system: any BluetoothSystem, _ body: () throws -> Result) rethrows -> Result {
        try with(Binding(system), body)
    }

    /// Runs `body` with `binding`'s system as the system managers created in it talk to.
    public static func with<Result>(_ binding: Binding, _ body: () throws -> Result) rethrows -> Result {
        try $binding.withValue(binding, operation: body)
    }

    /// Runs `body` with `system` as the system managers created in it talk to.
    public static func with<Result>(
        _ system: any BluetoothSystem, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
    ) async rethrows -> Result {
        try await $binding.withValue(Binding(system), operation: body, isolation: isolation)
    }
}
