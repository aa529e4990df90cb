import CoreBluetoothCodes
import Foundation

/// What a manager talks to: on iOS, the system's Bluetooth daemon; here, the replay engine.
///
/// A manager forwards every request of the app to its system; the system answers later through
/// ``CentralManager/deliver(_:)``, as CoreBluetooth answers through delegate callbacks.
public protocol BluetoothSystem: AnyObject {
    /// A central manager was created (`CBCentralManager.init`).
    func register(_ central: CentralManager)
    func connect(_ peripheral: Peripheral, from central: CentralManager)
    func cancelPeripheralConnection(_ peripheral: Peripheral, from central: CentralManager)
    /// Peripherals this system knows by identifier (`retrievePeripherals(withIdentifiers:)`).
    func retrievePeripherals(withIdentifiers identifiers: [UUID], for central: CentralManager) -> [Peripheral]
}
