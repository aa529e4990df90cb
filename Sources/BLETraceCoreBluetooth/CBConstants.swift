@_exported import CoreBluetoothCodes

// The keys of CoreBluetooth's dictionaries, with CoreBluetooth's values (the strings its
// constants hold), so that dictionaries built by app code read the same on both.

// Options of `CBCentralManager(delegate:queue:options:)`.
public let CBCentralManagerOptionShowPowerAlertKey = "kCBInitOptionShowPowerAlert"
public let CBCentralManagerOptionRestoreIdentifierKey = "kCBInitOptionRestoreIdentifier"
/// A manager made only to reach media devices, without asking for Bluetooth permission (iOS 16).
/// Its value is bletrace's (Apple does not document it), and the managers ignore it: a capture
/// cannot show what the permission prompt would have done (Formats/corebluetooth.md).
public let CBCentralManagerOptionDeviceAccessForMedia = "kCBInitOptionDeviceAccessForMedia"

// Options of `scanForPeripherals(withServices:options:)`.
public let CBCentralManagerScanOptionAllowDuplicatesKey = "kCBScanOptionAllowDuplicates"
public let CBCentralManagerScanOptionSolicitedServiceUUIDsKey = "kCBScanOptionSolicitedServiceUUIDs"

// Options of `connect(_:options:)`.
public let CBConnectPeripheralOptionNotifyOnConnectionKey = "kCBConnectOptionNotifyOnConnection"
public let CBConnectPeripheralOptionNotifyOnDisconnectionKey = "kCBConnectOptionNotifyOnDisconnection"
public let CBConnectPeripheralOptionNotifyOnNotificationKey = "kCBConnectOptionNotifyOnNotification"
public let CBConnectPeripheralOptionStartDelayKey = "kCBConnectOptionStartDelay"
public let CBConnectPeripheralOptionEnableTransportBridgingKey = "kCBConnectOptionEnableTransportBridging"
public let CBConnectPeripheralOptionRequiresANCS = "kCBConnectOptionRequiresANCS"
/// iOS 17. Its string is iOS's own (the decompiled `connectPeripheral:options:` reads this key).
public let CBConnectPeripheralOptionEnableAutoReconnect = "kCBConnectOptionAutoReconnect"

// The restoration dictionary of `centralManager(_:willRestoreState:)`.
public let CBCentralManagerRestoredStatePeripheralsKey = "kCBRestoredPeripherals"
public let CBCentralManagerRestoredStateScanServicesKey = "kCBRestoredScanServices"
public let CBCentralManagerRestoredStateScanOptionsKey = "kCBRestoredScanOptions"

// Options of `CBPeripheralManager(delegate:queue:options:)`.
public let CBPeripheralManagerOptionShowPowerAlertKey = "kCBInitOptionShowPowerAlert"
public let CBPeripheralManagerOptionRestoreIdentifierKey = "kCBInitOptionRestoreIdentifier"

// The restoration dictionary of `peripheralManager(_:willRestoreState:)`.
public let CBPeripheralManagerRestoredStateServicesKey = "kCBRestoredServices"
public let CBPeripheralManagerRestoredStateAdvertisementDataKey = "kCBRestoredAdvertisement"

// The advertisement data of `centralManager(_:didDiscover:advertisementData:rssi:)` and
// `startAdvertising(_:)`.
public let CBAdvertisementDataLocalNameKey = "kCBAdvDataLocalName"
public let CBAdvertisementDataTxPowerLevelKey = "kCBAdvDataTxPowerLevel"
public let CBAdvertisementDataServiceUUIDsKey = "kCBAdvDataServiceUUIDs"
public let CBAdvertisementDataServiceDataKey = "kCBAdvDataServiceData"
public let CBAdvertisementDataManufacturerDataKey = "kCBAdvDataManufacturerData"
public let CBAdvertisementDataOverflowServiceUUIDsKey = "kCBAdvDataHashedServiceUUIDs"
public let CBAdvertisementDataIsConnectable = "kCBAdvDataIsConnectable"
public let CBAdvertisementDataSolicitedServiceUUIDsKey = "kCBAdvDataSolicitedServiceUUIDs"

/// An L2CAP protocol/service multiplexer (`CBL2CAPPSM`).
public typealias CBL2CAPPSM = UInt16
