import Dispatch
import Foundation
import Wire

/// The central role's manager (`CBCentralManager`), with CoreBluetooth's initialisers: it finds
/// its system in ``BluetoothSystemContext`` (the replay running the app), and reports
/// `.unsupported` where there is none.
///
/// The manager keeps what CoreBluetooth keeps on the app's side: its state, its scan, one
/// ``CBPeripheral`` object per peer (the same object on every call), and applies CoreBluetooth's
/// rules to what the system tells it (Formats/corebluetooth.md) before calling the delegate on
/// its queue.
open class CBCentralManager: CBManager {
    /// Something the system tells the central manager.
    public enum Event {
        /// The Bluetooth state changed. On the first update after a relaunch for this manager's
        /// restore identifier, `restoredState` is the restoration dictionary; the delegate gets
        /// `willRestoreState` first, then `centralManagerDidUpdateState`.
        case stateUpdated(CBManagerState, restoredState: [String: Any]? = nil)
        /// An advertising report (advertising data and scan response merged).
        case discovered(CBPeripheral, advertisementData: [String: Any], rssi: Int)
        /// The link is up, with the ATT MTU the system already exchanged on it (iOS exchanges it
        /// itself before telling the app: the decompiled `handleSuccessfulConnection:` reads it
        /// from the connection's message).
        case connected(CBPeripheral, mtu: Int = 23)
        case failedToConnect(CBPeripheral, error: (any Error)?)
        /// The connection ended; `timestamp` is `CFAbsoluteTime` seconds.
        case disconnected(
            CBPeripheral, error: (any Error)?, timestamp: CFAbsoluteTime = 0, isReconnecting: Bool = false)
        case connectionEvent(CBConnectionEvent, CBPeripheral)
        case ancsAuthorizationUpdated(CBPeripheral, authorized: Bool)
    }

    /// `CBCentralManager.Feature`.
    public struct Feature: OptionSet, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let extendedScanAndConnect = Feature(rawValue: 1 << 0)
    }

    public weak var delegate: (any CBCentralManagerDelegate)? {
        didSet { checkDelegate() }
    }
    public private(set) var isScanning = false

    /// The peripheral objects the app holds, by identifier. Weak, as the framework's map is (the
    /// decompiled `peripheralWithInfo:` keeps them in a weak-valued table): the object is the
    /// same on every call while the app holds it, and one the app lets go of while connected or
    /// connecting ends its connection (``CBPeripheral``'s deinit).
    private var peripherals: [UUID: BackReference<CBPeripheral>] = [:]
    /// What points back at this manager (a peripheral's ``CBPeripheral/centralManager``): not a
    /// `weak` reference (``BackReference``).
    package let backReference = BackReference<CBCentralManager>()
    private var scanServices: [CBUUID]?
    private var scanSolicited: [CBUUID]?
    private var scanAllowsDuplicates = false
    private var scanOptions: [String: Any]?
    private var discoveredInScan: Set<UUID> = []

    public convenience init() {
        self.init(delegate: nil, queue: nil, options: nil)
    }

    public convenience init(delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue?) {
        self.init(delegate: delegate, queue: queue, options: nil)
    }

    /// `CBCentralManager(delegate:queue:options:)`: `queue` is where the delegate is called (main
    /// when nil); ``CBCentralManagerOptionRestoreIdentifierKey`` opts into restoration.
    public init(delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil) {
        self.delegate = delegate
        super.init(queue: queue, restoreIdentifier: options?[CBCentralManagerOptionRestoreIdentifierKey] as? String)
        backReference.set(self)
        register()
        checkDelegate()
    }

    deinit { backReference.clear() }

    /// Whether the platform supports `features`: on iOS the daemon answers from the controller
    /// (the decompiled `handleSupportedFeatures:`), here the system running the calling code
    /// (``BluetoothSystem/supportedFeatures``; a replay: the capture's controller). Outside any
    /// system, nothing.
    @discardableResult
    open class func supports(_ features: Feature) -> Bool {
        features.isSubset(of: BluetoothSystemContext.current?.supportedFeatures ?? [])
    }

    // MARK: Requests of the app

    /// Scans for advertising peripherals; with `serviceUUIDs`, only those advertising one of them
    /// are reported. Without ``CBCentralManagerScanOptionAllowDuplicatesKey`` each peripheral is
    /// reported once per scan. Calling it again replaces the scan.
    public func scanForPeripherals(withServices serviceUUIDs: [CBUUID]?, options: [String: Any]? = nil) {
        guard requirePoweredOn("scanForPeripherals") else { return }
        startScan(serviceUUIDs, options)
        system.scanForPeripherals(withServices: serviceUUIDs, options: options, for: self)
    }

    public func stopScan() {
        guard requirePoweredOn("stopScan") else { return }
        isScanning = false
        system.stopScan(for: self)
    }

    /// Asks for a connection. It never times out: it completes when the peer is reachable, or
    /// the app cancels it. Asking again while connecting or connected changes nothing (the system
    /// is told, to write the call down, and starts no second attempt). With
    /// ``CBConnectPeripheralOptionEnableAutoReconnect`` the delegate must implement the iOS 17
    /// disconnection method, or `didFailToConnect` comes inside this call and nothing connects.
    public func connect(_ peripheral: CBPeripheral, options: [String: Any]? = nil) {
        guard requirePoweredOn("connect"), isMine(peripheral, "connect") else { return }
        // CoreBluetooth refuses auto-reconnect, inside the call, to a delegate that cannot hear
        // of it: the option's key (whatever its value) without the iOS 17 disconnection method
        // gets `didFailToConnect` at once and no connection (the decompiled
        // `connectPeripheral:options:` of iOS 18.2 and 26.1; "One or more parameters were
        // invalid." in AsyncBluetooth issue 40).
        if options?[CBConnectPeripheralOptionEnableAutoReconnect] != nil, !delegateHearsReconnection(peripheral) {
            let error = CBError(.invalidParameters)
            system.connectRefused(peripheral, options: options, error: error, for: self)
            callback { $0.centralManager(self, didFailToConnect: peripheral, error: error) }
            return
        }
        if peripheral.state == .disconnected || peripheral.state == .disconnecting {
            peripheral.state = .connecting
            peripheral.cancelRequested = false
        }
        system.connect(peripheral, options: options, for: self)
    }

    /// Ends a connection or a pending attempt. The delegate then gets `didDisconnectPeripheral`
    /// with no error.
    public func cancelPeripheralConnection(_ peripheral: CBPeripheral) {
        guard requirePoweredOn("cancelPeripheralConnection"), isMine(peripheral, "cancelPeripheralConnection") else {
            return
        }
        if peripheral.state != .disconnected {
            peripheral.state = .disconnecting
            peripheral.cancelRequested = true
        }
        system.cancelPeripheralConnection(peripheral, for: self)
    }

    @discardableResult
    public func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [CBPeripheral] {
        guard requirePoweredOn("retrievePeripherals") else { return [] }
        return system.retrievePeripherals(withIdentifiers: identifiers, for: self)
    }

    @discardableResult
    public func retrieveConnectedPeripherals(withServices serviceUUIDs: [CBUUID]) -> [CBPeripheral] {
        guard requirePoweredOn("retrieveConnectedPeripherals") else { return [] }
        return system.retrieveConnectedPeripherals(withServices: serviceUUIDs, for: self)
    }

    public func registerForConnectionEvents(options: [CBConnectionEventMatchingOption: Any]? = nil) {
        guard requirePoweredOn("registerForConnectionEvents") else { return }
        system.registerForConnectionEvents(options: options, for: self)
    }

    // MARK: For systems

    /// The peripheral object of the peer `identifier`: the same object on every call until a
    /// state other than `.poweredOn`/`.poweredOff` invalidates every peripheral object. Systems
    /// make peripherals with this, never otherwise. `name` is the peer's GAP Device Name when the
    /// system has read it before (iOS keeps it across connections): a new object is named by it.
    public func peripheral(identifier: UUID, address: BluetoothAddress? = nil, name: String? = nil) -> CBPeripheral {
        if let known = peripherals[identifier]?.object { return known }
        let created = CBPeripheral(identifier: identifier, address: address, deviceName: name, central: self)
        peripherals[identifier] = created.backReference
        return created
    }

    /// The scan in progress, for a system that keeps it across the app's termination
    /// (restoration): its service UUIDs and options; nil when not scanning.
    public var scan: (services: [CBUUID]?, options: [String: Any]?)? {
        isScanning ? (scanServices, scanOptions) : nil
    }

    /// For a system restoring a terminated app's state into this manager (created again with the
    /// same restore identifier): `peripheral`, an object of the old process's manager, becomes
    /// this manager's, with its connection state, services, characteristics and notifying flags,
    /// and without the old delegate or the old process's unanswered requests.
    public func adopt(_ peripheral: CBPeripheral) {
        peripheral.central = self
        peripheral.delegate = nil
        peripheral.abandonRequests()
        peripherals[peripheral.identifier] = peripheral.backReference
    }

    /// For a system that keeps a terminated app's connection request after its link ended (the
    /// device restarted, Bluetooth went off with Control Center): `peripheral` is `.connecting`
    /// again, its services gone as after any disconnection.
    public func keepConnecting(_ peripheral: CBPeripheral) {
        if peripheral.state != .disconnected { peripheral.didDisconnect() }
        peripheral.state = .connecting
    }

    /// For a system restoring a scan the system kept going while the app was not running: the
    /// manager is scanning with these services and options, as the old process's manager was.
    public func continueScan(withServices services: [CBUUID]?, options: [String: Any]?) {
        startScan(services, options)
    }

    private func startScan(_ services: [CBUUID]?, _ options: [String: Any]?) {
        scanServices = services
        scanSolicited = options?[CBCentralManagerScanOptionSolicitedServiceUUIDsKey] as? [CBUUID]
        scanAllowsDuplicates = (options?[CBCentralManagerScanOptionAllowDuplicatesKey] as? Bool) ?? false
        scanOptions = options
        discoveredInScan = []
        isScanning = true
    }

    /// Called by the system: applies the event to the manager's and the peripheral's state, then
    /// tells the delegate on its queue. Returns false when the event was not for the app (an
    /// advertising report outside a scan or filtered out by it); nothing is called then.
    @discardableResult
    public func deliver(_ event: Event) -> Bool {
        switch event {
        case .stateUpdated(let newState, let restoredState):
            updateState(newState, restoredState: restoredState)
        case .discovered(let peripheral, let advertisementData, let rssi):
            guard reports(peripheral, advertisementData) else { return false }
            discoveredInScan.insert(peripheral.identifier)
            // The advertised name names the peripheral until the system has read its GAP Device
            // Name, which wins from then on, across disconnections (Formats/corebluetooth.md).
            if let name = advertisementData[CBAdvertisementDataLocalNameKey] as? String, peripheral.deviceName == nil {
                peripheral.name = name
            }
            callback {
                $0.centralManager(
                    self, didDiscover: peripheral, advertisementData: advertisementData, rssi: NSNumber(value: rssi))
            }
        case .connected(let peripheral, let mtu):
            peripheral.didConnect()
            peripheral.mtu = mtu
            callback { $0.centralManager(self, didConnect: peripheral) }
        case .failedToConnect(let peripheral, let error):
            peripheral.state = .disconnected
            peripheral.cancelRequested = false
            callback { $0.centralManager(self, didFailToConnect: peripheral, error: error) }
        case .disconnected(let peripheral, let error, let timestamp, let isReconnecting):
            let reported = peripheral.cancelRequested ? nil : error
            peripheral.didDisconnect()
            // A peripheral the system connects again by itself is `.connecting` already during
            // the callback (the decompiled handlePeripheralDisconnectionCompleted: sets the state
            // before calling the delegate).
            if isReconnecting { peripheral.state = .connecting }
            callback { delegate in
                // iOS calls the older form whenever the delegate implements it, and the iOS 17
                // form only otherwise (the decompiled framework of iOS 18.2 and 26.1).
                guard
                    !implemented({ delegate.centralManager(self, didDisconnectPeripheral: peripheral, error: reported) }
                    )
                else { return }
                delegate.centralManager(
                    self, didDisconnectPeripheral: peripheral, timestamp: timestamp, isReconnecting: isReconnecting,
                    error: reported)
            }
        case .connectionEvent(let connectionEvent, let peripheral):
            callback { $0.centralManager(self, connectionEventDidOccur: connectionEvent, for: peripheral) }
        case .ancsAuthorizationUpdated(let peripheral, let authorized):
            peripheral.ancsAuthorized = authorized
            callback { $0.centralManager(self, didUpdateANCSAuthorizationFor: peripheral) }
        }
        return true
    }

    // MARK: Private

    /// CoreBluetooth's state rules: below `.poweredOn` the scan ends and every connection and
    /// pending attempt ends without a callback: each peripheral is already `.disconnected` (its
    /// services nil, MTU 23) when `centralManagerDidUpdateState` runs, and no
    /// `didDisconnectPeripheral` follows (the decompiled framework, Nordic's mock and field reports
    /// agree; the seed talk's slide says otherwise: Formats/corebluetooth.md). In any state but
    /// `.poweredOn` and `.poweredOff` every peripheral object becomes invalid.
    private func updateState(_ newState: CBManagerState, restoredState: [String: Any]?) {
        if let restoredState {
            guard
                restore(
                    "centralManager(_:willRestoreState:)",
                    { callback { $0.centralManager(self, willRestoreState: restoredState) } })
            else { return }
        }
        if newState != .poweredOn {
            isScanning = false
            for peripheral in peripherals.values.compactMap(\.object).sorted(by: {
                $0.identifier.uuidString < $1.identifier.uuidString
            })
            where peripheral.state != .disconnected {
                peripheral.didDisconnect()
            }
            if newState != .poweredOff { peripherals = [:] }
        }
        state = newState
        callback { $0.centralManagerDidUpdateState(self) }
    }

    /// Whether an advertising report of `peripheral` reaches the delegate now: the manager is
    /// scanning, the report matches the scan's services, and it is not a duplicate the scan
    /// leaves out. For systems that write the callback down before making it.
    public func reports(_ peripheral: CBPeripheral, _ advertisementData: [String: Any]) -> Bool {
        isScanning && matchesScan(advertisementData)
            && ((scanAllowsDuplicates && !coalescesDuplicates) || !discoveredInScan.contains(peripheral.identifier))
    }

    /// Set by the system while the app is in the background: iOS ignores
    /// ``CBCentralManagerScanOptionAllowDuplicatesKey`` there and coalesces a peripheral's
    /// discoveries into one per scan (Apple's Core Bluetooth Programming Guide, "Core Bluetooth
    /// Background Processing for iOS Apps").
    public var coalescesDuplicates = false

    private func matchesScan(_ advertisementData: [String: Any]) -> Bool {
        guard let wanted = scanServices, !wanted.isEmpty else { return true }
        var advertised = (advertisementData[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID]) ?? []
        advertised += (advertisementData[CBAdvertisementDataOverflowServiceUUIDsKey] as? [CBUUID]) ?? []
        if advertised.contains(where: wanted.contains) { return true }
        let solicited = (advertisementData[CBAdvertisementDataSolicitedServiceUUIDsKey] as? [CBUUID]) ?? []
        return solicited.contains { scanSolicited?.contains($0) ?? false }
    }

    private func isMine(_ peripheral: CBPeripheral, _ call: String) -> Bool {
        guard peripheral.central === self, peripherals[peripheral.identifier]?.object === peripheral else {
            misuse(
                "\(call) with a peripheral that is not a valid one of this central manager (retrieve or discover it again)"
            )
            return false
        }
        return true
    }

    /// A peripheral's last reference went (its deinit): the system is told. One that was
    /// connected or connecting loses its connection: iOS cancels it and writes "API MISUSE: Forcing disconnection of unused
    /// peripheral" (connected) or "Cancelling connection for unused peripheral" (connecting) to
    /// its log; no callback follows, the object being gone (the decompiled framework's
    /// `CBPeripheral` dealloc; Formats/corebluetooth.md).
    func peripheralReleased(_ released: ReleasedPeripheral) {
        if peripherals[released.identifier]?.object == nil { peripherals[released.identifier] = nil }
        if released.state == .connected || released.state == .connecting {
            let what = released.state == .connecting ? "Cancelling connection for" : "Forcing disconnection of"
            misuse("\(what) unused peripheral \(released.identifier.uuidString): the app kept no reference to it")
        }
        system.peripheralReleased(released, by: self)
    }

    /// Whether the delegate implements the iOS 17 disconnection method, which auto-reconnect
    /// needs. iOS reads it when the delegate is set; here it is asked of the delegate's type once
    /// (``DelegateProbe``), before any disconnection could tell.
    private func delegateHearsReconnection(_ peripheral: CBPeripheral) -> Bool {
        guard let delegate else { return false }
        return DelegateProbe.implements(
            "centralManager(_:didDisconnectPeripheral:timestamp:isReconnecting:error:)", of: delegate, manager: self
        ) {
            delegate.centralManager(
                self, didDisconnectPeripheral: peripheral, timestamp: 0, isReconnecting: false, error: nil)
        }
    }

    private func checkDelegate() {
        guard let delegate else { return }
        checkConformance(of: delegate, "CBCentralManagerDelegate") { $0 is any CBCentralManagerDelegate.Type }
    }

    private func callback(_ body: (any CBCentralManagerDelegate) -> Void) {
        onDelegateQueue {
            if let delegate { body(delegate) }
        }
    }
}
