/// The delegate of a ``CentralManager`` (`CBCentralManagerDelegate`).
///
/// Only `centralManagerDidUpdateState(_:)` is required, as in CoreBluetooth; the others have
/// empty default implementations.
public protocol CentralManagerDelegate: AnyObject {
    func centralManagerDidUpdateState(_ central: CentralManager)
    func centralManager(_ central: CentralManager, didConnect peripheral: Peripheral)
    /// A connection attempt failed. Attempts do not time out, so this is usually transient.
    func centralManager(_ central: CentralManager, didFailToConnect peripheral: Peripheral, error: (any Error)?)
    /// A connection ended. `error` is nil when the app asked for it with
    /// `cancelPeripheralConnection`, and set otherwise.
    func centralManager(_ central: CentralManager, didDisconnectPeripheral peripheral: Peripheral, error: (any Error)?)
}

extension CentralManagerDelegate {
    public func centralManager(_ central: CentralManager, didConnect peripheral: Peripheral) {}
    public func centralManager(
        _ central: CentralManager, didFailToConnect peripheral: Peripheral, error: (any Error)?
    ) {}
    public func centralManager(
        _ central: CentralManager, didDisconnectPeripheral peripheral: Peripheral, error: (any Error)?
    ) {}
}
