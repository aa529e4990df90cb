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
    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber)
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral)
    /// A connection attempt failed. Attempts do not time out, so this is usually transient.
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?)
    /// A connection ended. `error` is nil when the app asked for it with
    /// `cancelPeripheralConnection`, and set otherwise.
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?)
    /// The newer form (iOS 17). Its default calls `centralManager(_:didDisconnectPeripheral:error:)`,
    /// so a delegate that implements this one is called here only, as in CoreBluetooth.
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
        isReconnecting: Bool, error: (any Error)?)
    func centralManager(_ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral)
    func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral)
}

extension CBCentralManagerDelegate {
    public func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        central.restorationUnhandled = true
    }
    public func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber
    ) {}
    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {}
    public func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {}
    public func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) {}
    public func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
        isReconnecting: Bool, error: (any Error)?
    ) {
        centralManager(central, didDisconnectPeripheral: peripheral, error: error)
    }
    public func centralManager(_ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral) {}
    public func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral) {}
}
