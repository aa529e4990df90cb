import Foundation

#if !canImport(Darwin)
/// Seconds since 1 January 2001 (`CFAbsoluteTime`), as CoreFoundation has it on Apple's systems.
public typealias CFAbsoluteTime = Double
#endif

/// The delegate of a ``CBCentralManager`` (`CBCentralManagerDelegate`), with CoreBluetooth's
/// method names and signatures. Only `centralManagerDidUpdateState(_:)` is required, as in
/// CoreBluetooth; the others have empty defaults. A method whose signature differs from these in
/// any label or type is a different method and is never called (the tests call each by name).
public protocol CBCentralManagerDelegate: NSObjectProtocol {
    func centralManagerDidUpdateState(_ central: CBCentralManager)
    /// The system relaunched the app for this manager's restore identifier: `dict` holds what it
    /// kept (``CBCentralManagerRestoredStatePeripheralsKey``, ``CBCentralManagerRestoredStateScanServicesKey``,
    /// ``CBCentralManagerRestoredStateScanOptionsKey``). Comes before `centralManagerDidUpdateState(_:)`.
    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any])
    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber)
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral)
    /// A connection attempt failed. Attempts do not time out, so this is usually transient.
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?)
    /// A connection ended. `error` is nil when the app asked for it with
    /// `cancelPeripheralConnection`, and set otherwise. A delegate that implements it gets it
    /// and not the iOS 17 form below, as on iOS 18 and 26 (the decompiled framework).
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?)
    /// The newer form (iOS 17): called only when the delegate does not implement
    /// `centralManager(_:didDisconnectPeripheral:error:)`. With
    /// `CBConnectPeripheralOptionEnableAutoReconnect`, `isReconnecting` says the system connects
    /// again by itself (the peripheral is `.connecting` during the call). Without it, `connect`
    /// with that option fails at once.
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
        isReconnecting: Bool, error: (any Error)?)
    func centralManager(
        _ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral)
    func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral)
}

extension CBCentralManagerDelegate {
    public func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        central.defaultReached = true
    }
    public func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber
    ) {}
    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {}
    public func centralManager(
        _ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?
    ) {}
    // The two disconnection forms say when they are reached: which one iOS calls depends on
    // which the delegate implements (CBManager.defaultReached).
    public func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {
        central.defaultReached = true
    }
    public func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
        isReconnecting: Bool, error: (any Error)?
    ) {
        central.defaultReached = true
    }
    public func centralManager(
        _ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral
    ) {}
    public func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral) {}
}
