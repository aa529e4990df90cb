@_exported import CoreBluetoothCodes

// CoreBluetooth's names, so that app code written for CoreBluetooth reads the same here.
public typealias CBCentralManager = CentralManager
public typealias CBCentralManagerDelegate = CentralManagerDelegate
public typealias CBPeripheral = Peripheral
public typealias CBPeripheralState = Peripheral.State
public let CBCentralManagerOptionRestoreIdentifierKey = CentralManagerOption.restoreIdentifierKey
public let CBCentralManagerOptionShowPowerAlertKey = CentralManagerOption.showPowerAlertKey
