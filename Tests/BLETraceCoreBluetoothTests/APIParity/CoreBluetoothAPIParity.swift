// Every public symbol of CoreBluetooth's current SDK interface (iOS 26), spelled as Apple's
// documentation spells it, used as app code uses it. That this file compiles is the test: it
// imports nothing but the stand-in (no Foundation, no Dispatch: `Data`, `UUID`, `NSNumber`,
// `NSObject`, `InputStream`, `DispatchQueue` come with it, as they come with `import CoreBluetooth`),
// and calls every value-returning method as a statement, as Objective-C's imported methods allow.
// APIParityTests runs these functions against a scripted system and checks what is cheap to check.
//
// Where bletrace deliberately differs from Apple's interface, a comment says why. In short:
// - `CBUUID(cfuuid:)` (deprecated since iOS 9) is absent: Swift on Linux has no `CFUUID` type.
// - `CBError.Code` and `CBATTError.Code` have one more case, `.unnamed(Int)`, for the raw values
//   the imported Objective-C enums hold without a name (a Swift enum needs a case for them).
// - `CBUUID` is `Sendable` here; Apple's is not declared so. Code written for Apple's compiles
//   either way (an app's own `extension CBUUID: @unchecked Sendable {}` is a warning here).
// - The deprecated `CBCentralManagerState` and `CBPeripheralManagerState` are names for
//   `CBManagerState` here, separate enums with the same cases and values on iOS: old code uses
//   them the same way (cases, `rawValue`, `init(rawValue:)`).
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif

// MARK: - Constants

/// Every string constant of the interface, with the value Apple's framework gives it.
let parityConstants: [String: String] = [
    "CBCentralManagerOptionShowPowerAlertKey": CBCentralManagerOptionShowPowerAlertKey,
    "CBCentralManagerOptionRestoreIdentifierKey": CBCentralManagerOptionRestoreIdentifierKey,
    "CBCentralManagerOptionDeviceAccessForMedia": CBCentralManagerOptionDeviceAccessForMedia,
    "CBCentralManagerScanOptionAllowDuplicatesKey": CBCentralManagerScanOptionAllowDuplicatesKey,
    "CBCentralManagerScanOptionSolicitedServiceUUIDsKey": CBCentralManagerScanOptionSolicitedServiceUUIDsKey,
    "CBConnectPeripheralOptionNotifyOnConnectionKey": CBConnectPeripheralOptionNotifyOnConnectionKey,
    "CBConnectPeripheralOptionNotifyOnDisconnectionKey": CBConnectPeripheralOptionNotifyOnDisconnectionKey,
    "CBConnectPeripheralOptionNotifyOnNotificationKey": CBConnectPeripheralOptionNotifyOnNotificationKey,
    "CBConnectPeripheralOptionStartDelayKey": CBConnectPeripheralOptionStartDelayKey,
    "CBConnectPeripheralOptionEnableTransportBridgingKey": CBConnectPeripheralOptionEnableTransportBridgingKey,
    "CBConnectPeripheralOptionRequiresANCS": CBConnectPeripheralOptionRequiresANCS,
    "CBConnectPeripheralOptionEnableAutoReconnect": CBConnectPeripheralOptionEnableAutoReconnect,
    "CBCentralManagerRestoredStatePeripheralsKey": CBCentralManagerRestoredStatePeripheralsKey,
    "CBCentralManagerRestoredStateScanServicesKey": CBCentralManagerRestoredStateScanServicesKey,
    "CBCentralManagerRestoredStateScanOptionsKey": CBCentralManagerRestoredStateScanOptionsKey,
    "CBPeripheralManagerOptionShowPowerAlertKey": CBPeripheralManagerOptionShowPowerAlertKey,
    "CBPeripheralManagerOptionRestoreIdentifierKey": CBPeripheralManagerOptionRestoreIdentifierKey,
    "CBPeripheralManagerRestoredStateServicesKey": CBPeripheralManagerRestoredStateServicesKey,
    "CBPeripheralManagerRestoredStateAdvertisementDataKey": CBPeripheralManagerRestoredStateAdvertisementDataKey,
    "CBAdvertisementDataLocalNameKey": CBAdvertisementDataLocalNameKey,
    "CBAdvertisementDataTxPowerLevelKey": CBAdvertisementDataTxPowerLevelKey,
    "CBAdvertisementDataServiceUUIDsKey": CBAdvertisementDataServiceUUIDsKey,
    "CBAdvertisementDataServiceDataKey": CBAdvertisementDataServiceDataKey,
    "CBAdvertisementDataManufacturerDataKey": CBAdvertisementDataManufacturerDataKey,
    "CBAdvertisementDataOverflowServiceUUIDsKey": CBAdvertisementDataOverflowServiceUUIDsKey,
    "CBAdvertisementDataIsConnectable": CBAdvertisementDataIsConnectable,
    "CBAdvertisementDataSolicitedServiceUUIDsKey": CBAdvertisementDataSolicitedServiceUUIDsKey,
    "CBUUIDCharacteristicExtendedPropertiesString": CBUUIDCharacteristicExtendedPropertiesString,
    "CBUUIDCharacteristicUserDescriptionString": CBUUIDCharacteristicUserDescriptionString,
    "CBUUIDClientCharacteristicConfigurationString": CBUUIDClientCharacteristicConfigurationString,
    "CBUUIDServerCharacteristicConfigurationString": CBUUIDServerCharacteristicConfigurationString,
    "CBUUIDCharacteristicFormatString": CBUUIDCharacteristicFormatString,
    "CBUUIDCharacteristicAggregateFormatString": CBUUIDCharacteristicAggregateFormatString,
    "CBUUIDCharacteristicValidRangeString": CBUUIDCharacteristicValidRangeString,
    "CBUUIDCharacteristicObservationScheduleString": CBUUIDCharacteristicObservationScheduleString,
    "CBUUIDL2CAPPSMCharacteristicString": CBUUIDL2CAPPSMCharacteristicString,
    "CBErrorDomain": CBErrorDomain,
    "CBATTErrorDomain": CBATTErrorDomain,
]

// MARK: - Enumerations and option sets

/// Every case of every enumeration, in a `switch` as app code writes it (`@unknown default`, as
/// Xcode asks for the imported enums).
func parityNames(_ state: CBManagerState, _ authorization: CBManagerAuthorization, _ peripheralState: CBPeripheralState)
    -> [String]
{
    var names: [String] = []
    switch state {
    case .unknown: names.append("unknown")
    case .resetting: names.append("resetting")
    case .unsupported: names.append("unsupported")
    case .unauthorized: names.append("unauthorized")
    case .poweredOff: names.append("poweredOff")
    case .poweredOn: names.append("poweredOn")
    @unknown default: names.append("future")
    }
    switch authorization {
    case .notDetermined: names.append("notDetermined")
    case .restricted: names.append("restricted")
    case .denied: names.append("denied")
    case .allowedAlways: names.append("allowedAlways")
    @unknown default: names.append("future")
    }
    switch peripheralState {
    case .disconnected: names.append("disconnected")
    case .connecting: names.append("connecting")
    case .connected: names.append("connected")
    case .disconnecting: names.append("disconnecting")
    @unknown default: names.append("future")
    }
    return names
}

/// The other enumerations and option sets, each value as Apple names it, with its raw value.
let parityRawValues: [(String, Int)] = [
    ("CBCharacteristicWriteType.withResponse", CBCharacteristicWriteType.withResponse.rawValue),
    ("CBCharacteristicWriteType.withoutResponse", CBCharacteristicWriteType.withoutResponse.rawValue),
    ("CBPeripheralManagerConnectionLatency.low", CBPeripheralManagerConnectionLatency.low.rawValue),
    ("CBPeripheralManagerConnectionLatency.medium", CBPeripheralManagerConnectionLatency.medium.rawValue),
    ("CBPeripheralManagerConnectionLatency.high", CBPeripheralManagerConnectionLatency.high.rawValue),
    ("CBConnectionEvent.peerDisconnected", CBConnectionEvent.peerDisconnected.rawValue),
    ("CBConnectionEvent.peerConnected", CBConnectionEvent.peerConnected.rawValue),
    ("CBCharacteristicProperties.broadcast", Int(CBCharacteristicProperties.broadcast.rawValue)),
    ("CBCharacteristicProperties.read", Int(CBCharacteristicProperties.read.rawValue)),
    ("CBCharacteristicProperties.writeWithoutResponse", Int(CBCharacteristicProperties.writeWithoutResponse.rawValue)),
    ("CBCharacteristicProperties.write", Int(CBCharacteristicProperties.write.rawValue)),
    ("CBCharacteristicProperties.notify", Int(CBCharacteristicProperties.notify.rawValue)),
    ("CBCharacteristicProperties.indicate", Int(CBCharacteristicProperties.indicate.rawValue)),
    (
        "CBCharacteristicProperties.authenticatedSignedWrites",
        Int(CBCharacteristicProperties.authenticatedSignedWrites.rawValue)
    ),
    ("CBCharacteristicProperties.extendedProperties", Int(CBCharacteristicProperties.extendedProperties.rawValue)),
    (
        "CBCharacteristicProperties.notifyEncryptionRequired",
        Int(CBCharacteristicProperties.notifyEncryptionRequired.rawValue)
    ),
    (
        "CBCharacteristicProperties.indicateEncryptionRequired",
        Int(CBCharacteristicProperties.indicateEncryptionRequired.rawValue)
    ),
    ("CBAttributePermissions.readable", Int(CBAttributePermissions.readable.rawValue)),
    ("CBAttributePermissions.writeable", Int(CBAttributePermissions.writeable.rawValue)),
    ("CBAttributePermissions.readEncryptionRequired", Int(CBAttributePermissions.readEncryptionRequired.rawValue)),
    ("CBAttributePermissions.writeEncryptionRequired", Int(CBAttributePermissions.writeEncryptionRequired.rawValue)),
    ("CBCentralManager.Feature.extendedScanAndConnect", Int(CBCentralManager.Feature.extendedScanAndConnect.rawValue)),
]

/// The connection-event options, as `registerForConnectionEvents(options:)` takes them.
func parityConnectionEventOptions(_ service: CBUUID, _ peer: UUID) -> [CBConnectionEventMatchingOption: Any] {
    [.serviceUUIDs: [service], .peripheralUUIDs: [peer]]
}

/// The names deprecated in Apple's SDK and still declared there (this function is deprecated
/// itself, so that using them does not warn).
@available(*, deprecated)
func parityDeprecatedNames(_ characteristic: CBCharacteristic, _ peripheral: CBPeripheral, _ manager: CBManager)
    -> [String]
{
    let central: CBCentralManagerState = .poweredOn
    let peripheralManager: CBPeripheralManagerState = .poweredOff
    let status: CBPeripheralManagerAuthorizationStatus = CBPeripheralManager.authorizationStatus()
    CBPeripheralManager.authorizationStatus()
    return [
        "\(central.rawValue)", "\(peripheralManager.rawValue)", "\(status.rawValue)",
        "\(characteristic.isBroadcasted)", "\(peripheral.rssi as Any)", "\(manager.authorization.rawValue)",
        "\([CBCentralManagerState.unknown, .resetting, .unsupported, .unauthorized].map(\.rawValue))",
        "\([CBPeripheralManagerState.unknown, .resetting, .unsupported, .unauthorized, .poweredOn].map(\.rawValue))",
        "\([CBPeripheralManagerAuthorizationStatus.notDetermined, .restricted, .denied, .authorized].map(\.rawValue))",
    ]
}

// MARK: - CBUUID, services, characteristics, descriptors

/// `CBUUID`'s initialisers and properties. (`CBUUID(cfuuid:)` is absent: see the top of the file.)
func parityUUIDs() -> [CBUUID] {
    let fromString = CBUUID(string: "180D")
    let fromData = CBUUID(data: Data([0x18, 0x0D]))
    let fromUUID = CBUUID(nsuuid: UUID(uuidString: "E20A39F4-73F5-4BC4-A12F-17D1AD07A961")!)
    _ = fromString.uuidString + fromData.description
    _ = fromUUID.data.count
    return [fromString, fromData, fromUUID]
}

/// A peripheral manager's service, built as apps build one, and every property of the attribute
/// classes read back.
func parityMutableService() -> CBMutableService {
    let service = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
    let characteristic = CBMutableCharacteristic(
        type: CBUUID(string: "FFF1"), properties: [.read, .write, .notify], value: nil,
        permissions: [.readable, .writeable])
    let cached = CBMutableCharacteristic(
        type: CBUUID(string: "FFF2"), properties: .read, value: Data("v1".utf8), permissions: .readable)
    let description = CBMutableDescriptor(
        type: CBUUID(string: CBUUIDCharacteristicUserDescriptionString), value: "Level")
    characteristic.descriptors = [description]
    characteristic.value = nil
    characteristic.properties.insert(.indicate)
    characteristic.permissions.insert(.readEncryptionRequired)
    service.characteristics = [characteristic, cached]
    service.includedServices = []
    service.isPrimary = true
    return service
}

/// Every read-only property of a service, its characteristics and their descriptors.
func parityDescribe(_ service: CBService) -> [String] {
    var lines = [
        "\(service.uuid) primary=\(service.isPrimary) included=\(service.includedServices?.count ?? -1) peripheral=\(service.peripheral != nil)"
    ]
    for characteristic in service.characteristics ?? [] {
        lines.append(
            "\(characteristic.uuid) \(characteristic.properties.rawValue) value=\(characteristic.value?.count ?? -1) notifying=\(characteristic.isNotifying) service=\(characteristic.service === service)"
        )
        if let mutable = characteristic as? CBMutableCharacteristic {
            lines.append(
                "permissions=\(mutable.permissions.rawValue) subscribed=\(mutable.subscribedCentrals?.count ?? 0)")
        }
        for descriptor in characteristic.descriptors ?? [] {
            lines.append(
                "\(descriptor.uuid) \(descriptor.value ?? "nil") of=\(descriptor.characteristic === characteristic)")
        }
    }
    return lines
}

// MARK: - Central role

/// Every initialiser and method of `CBCentralManager`, as an app calls them.
func parityCentralCalls(_ central: CBCentralManager, _ peripheral: CBPeripheral, delegate: any CBCentralManagerDelegate)
{
    _ = CBCentralManager()
    _ = CBCentralManager(delegate: delegate, queue: nil)
    _ = CBCentralManager(
        delegate: delegate, queue: DispatchQueue(label: "parity"),
        options: [CBCentralManagerOptionShowPowerAlertKey: true])
    central.delegate = delegate
    CBCentralManager.supports(.extendedScanAndConnect)
    central.retrievePeripherals(withIdentifiers: [peripheral.identifier])
    central.retrieveConnectedPeripherals(withServices: [CBUUID(string: "180D")])
    central.scanForPeripherals(
        withServices: [CBUUID(string: "180D")],
        options: [
            CBCentralManagerScanOptionAllowDuplicatesKey: false,
            CBCentralManagerScanOptionSolicitedServiceUUIDsKey: [CBUUID](),
        ])
    _ = central.isScanning
    central.stopScan()
    central.connect(
        peripheral,
        options: [
            CBConnectPeripheralOptionNotifyOnConnectionKey: true,
            CBConnectPeripheralOptionNotifyOnDisconnectionKey: true,
            CBConnectPeripheralOptionNotifyOnNotificationKey: true, CBConnectPeripheralOptionStartDelayKey: 0,
            CBConnectPeripheralOptionEnableTransportBridgingKey: false, CBConnectPeripheralOptionRequiresANCS: false,
            CBConnectPeripheralOptionEnableAutoReconnect: true,
        ])
    central.registerForConnectionEvents(
        options: parityConnectionEventOptions(CBUUID(string: "180D"), peripheral.identifier))
    central.registerForConnectionEvents()
    _ = (central.state, CBManager.authorization, CBCentralManager.authorization)
}

/// Every method and property of `CBPeripheral`, as an app calls them. `characteristic` must belong
/// to one of `peripheral`'s services, `descriptor` to it.
func parityPeripheralCalls(
    _ peripheral: CBPeripheral, _ characteristic: CBCharacteristic, _ descriptor: CBDescriptor,
    delegate: any CBPeripheralDelegate
) -> [String] {
    peripheral.delegate = delegate
    let service = characteristic.service!
    peripheral.discoverServices(nil)
    peripheral.discoverServices([service.uuid])
    peripheral.discoverIncludedServices(nil, for: service)
    peripheral.discoverCharacteristics([characteristic.uuid], for: service)
    peripheral.discoverDescriptors(for: characteristic)
    peripheral.readValue(for: characteristic)
    peripheral.readValue(for: descriptor)
    peripheral.writeValue(Data([0x01]), for: characteristic, type: .withResponse)
    peripheral.writeValue(Data([0x02]), for: characteristic, type: .withoutResponse)
    peripheral.writeValue(Data([0x03]), for: descriptor)
    peripheral.setNotifyValue(true, for: characteristic)
    peripheral.maximumWriteValueLength(for: .withoutResponse)
    peripheral.readRSSI()
    peripheral.openL2CAPChannel(0x0080)
    return [
        peripheral.identifier.uuidString, peripheral.name ?? "(no name)", "\(peripheral.state.rawValue)",
        "\(peripheral.services?.count ?? -1)", "\(peripheral.canSendWriteWithoutResponse)",
        "\(peripheral.ancsAuthorized)",
        "\(peripheral.maximumWriteValueLength(for: .withResponse))", "\(peripheral.delegate != nil)",
    ]
}

// MARK: - Peripheral role

/// Every initialiser and method of `CBPeripheralManager`, as an app calls them.
func parityPeripheralManagerCalls(
    _ manager: CBPeripheralManager, _ service: CBMutableService, _ request: CBATTRequest?, central: CBCentral?,
    delegate: any CBPeripheralManagerDelegate
) -> Bool {
    _ = CBPeripheralManager()
    _ = CBPeripheralManager(delegate: delegate, queue: nil)
    _ = CBPeripheralManager(
        delegate: delegate, queue: nil, options: [CBPeripheralManagerOptionShowPowerAlertKey: false])
    manager.delegate = delegate
    manager.add(service)
    manager.startAdvertising([
        CBAdvertisementDataLocalNameKey: "Parity", CBAdvertisementDataServiceUUIDsKey: [service.uuid],
    ])
    _ = manager.isAdvertising
    let characteristic = service.characteristics![0] as! CBMutableCharacteristic
    manager.updateValue(Data([0x2A]), for: characteristic, onSubscribedCentrals: nil)
    let sent = manager.updateValue(Data([0x2B]), for: characteristic, onSubscribedCentrals: central.map { [$0] })
    if let request {
        request.value = Data([0x07])
        _ = (request.central.identifier, request.characteristic.uuid, request.offset)
        manager.respond(to: request, withResult: .success)
    }
    if let central {
        _ = central.maximumUpdateValueLength
        manager.setDesiredConnectionLatency(.low, for: central)
    }
    manager.publishL2CAPChannel(withEncryption: true)
    manager.unpublishL2CAPChannel(0x0080)
    manager.stopAdvertising()
    manager.remove(service)
    manager.removeAllServices()
    return sent
}

/// An L2CAP channel's properties, as an app reads them once the channel is open.
func parityChannel(_ channel: CBL2CAPChannel) -> String {
    let psm: CBL2CAPPSM = channel.psm
    let streams: (InputStream, OutputStream) = (channel.inputStream, channel.outputStream)
    _ = streams
    return "\(channel.peer.identifier) psm=\(psm)"
}

// MARK: - Errors

/// Apple's bridged-error members of `CBError` and `CBATTError`, as app code uses them.
func parityErrors() -> [String] {
    let timeout = CBError(.connectionTimeout)
    let custom = CBError(.peripheralDisconnected, userInfo: ["reason": "test"])
    let nsError = NSError(domain: CBErrorDomain, code: CBError.Code.peerRemovedPairingInformation.rawValue)
    let rebuilt = CBError(_nsError: nsError)
    let att = CBATTError(.insufficientEncryption)
    let attRebuilt = CBATTError(_nsError: att._nsError)
    var lines = [
        CBError.errorDomain, CBATTError.errorDomain, "\(timeout.code.rawValue)", "\(timeout.errorCode)",
        timeout.localizedDescription, "\(custom.userInfo["reason"] ?? "-")",
        "\(rebuilt.code == .peerRemovedPairingInformation)",
        "\(timeout._nsError.code)", "\(timeout.errorUserInfo.count)", att.localizedDescription, "\(attRebuilt == att)",
    ]
    let thrown: any Error = custom
    do { throw thrown } catch CBError.peripheralDisconnected {
        lines.append("caught peripheralDisconnected")
    } catch CBATTError.insufficientEncryption {
        lines.append("wrong catch")
    } catch {
        lines.append("not caught")
    }
    if let error = thrown as? CBError, error.code == .peripheralDisconnected { lines.append("cast") }
    let bridged = thrown as NSError
    lines.append("\(bridged.domain) \(bridged.code)")
    return lines
}

// MARK: - Delegates

/// A central delegate with every method of `CBCentralManagerDelegate`, each writing its name down.
final class ParityCentralDelegate: NSObject, CBCentralManagerDelegate {
    var called: [String] = []
    func centralManagerDidUpdateState(_ central: CBCentralManager) { called.append(#function) }
    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) { called.append(#function) }
    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber
    ) { called.append(#function) }
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) { called.append(#function) }
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        called.append(#function)
    }
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {
        called.append(#function)
    }
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
        isReconnecting: Bool, error: (any Error)?
    ) { called.append(#function) }
    func centralManager(
        _ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral
    ) {
        called.append(#function)
    }
    func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral) {
        called.append(#function)
    }
}

/// A peripheral delegate with every method of `CBPeripheralDelegate`, each writing its name down.
final class ParityPeripheralDelegate: NSObject, CBPeripheralDelegate {
    var called: [String] = []
    func peripheralDidUpdateName(_ peripheral: CBPeripheral) { called.append(#function) }
    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        called.append(#function)
    }
    func peripheralDidUpdateRSSI(_ peripheral: CBPeripheral, error: (any Error)?) { called.append(#function) }
    func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?) {
        called.append(#function)
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) { called.append(#function) }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverIncludedServicesFor service: CBService, error: (any Error)?)
    {
        called.append(#function)
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        called.append(#function)
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        called.append("didUpdateValueFor characteristic")
    }
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        called.append("didWriteValueFor characteristic")
    }
    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        called.append(#function)
    }
    func peripheral(
        _ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        called.append(#function)
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: (any Error)?) {
        called.append("didUpdateValueFor descriptor")
    }
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor descriptor: CBDescriptor, error: (any Error)?) {
        called.append("didWriteValueFor descriptor")
    }
    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) { called.append(#function) }
    func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {
        called.append(#function)
    }
}

/// A peripheral-manager delegate with every method of `CBPeripheralManagerDelegate`.
final class ParityPeripheralManagerDelegate: NSObject, CBPeripheralManagerDelegate {
    var called: [String] = []
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) { called.append(#function) }
    func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) {
        called.append(#function)
    }
    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?) {
        called.append(#function)
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {
        called.append(#function)
    }
    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic
    ) {
        called.append(#function)
    }
    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic
    ) { called.append(#function) }
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        called.append(#function)
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        called.append(#function)
    }
    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) { called.append(#function) }
    func peripheralManager(
        _ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?
    ) {
        called.append(#function)
    }
    func peripheralManager(
        _ peripheral: CBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?
    ) {
        called.append(#function)
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {
        called.append(#function)
    }
}

/// Calls every delegate method through the protocol, as the framework calls them: each reaches
/// the class's implementation only if its signature is the protocol's.
func parityCallEveryCentralMethod(
    _ delegate: any CBCentralManagerDelegate, _ central: CBCentralManager, _ peripheral: CBPeripheral
) {
    delegate.centralManagerDidUpdateState(central)
    delegate.centralManager(central, willRestoreState: [:])
    delegate.centralManager(central, didDiscover: peripheral, advertisementData: [:], rssi: NSNumber(value: -60))
    delegate.centralManager(central, didConnect: peripheral)
    delegate.centralManager(central, didFailToConnect: peripheral, error: nil)
    delegate.centralManager(central, didDisconnectPeripheral: peripheral, error: nil)
    delegate.centralManager(
        central, didDisconnectPeripheral: peripheral, timestamp: 0, isReconnecting: false, error: nil)
    delegate.centralManager(central, connectionEventDidOccur: .peerConnected, for: peripheral)
    delegate.centralManager(central, didUpdateANCSAuthorizationFor: peripheral)
}

@available(*, deprecated)
func parityCallEveryPeripheralMethod(
    _ delegate: any CBPeripheralDelegate, _ peripheral: CBPeripheral, _ service: CBService,
    _ characteristic: CBCharacteristic,
    _ descriptor: CBDescriptor
) {
    delegate.peripheralDidUpdateName(peripheral)
    delegate.peripheral(peripheral, didModifyServices: [service])
    delegate.peripheralDidUpdateRSSI(peripheral, error: nil)
    delegate.peripheral(peripheral, didReadRSSI: NSNumber(value: -60), error: nil)
    delegate.peripheral(peripheral, didDiscoverServices: nil)
    delegate.peripheral(peripheral, didDiscoverIncludedServicesFor: service, error: nil)
    delegate.peripheral(peripheral, didDiscoverCharacteristicsFor: service, error: nil)
    delegate.peripheral(peripheral, didUpdateValueFor: characteristic, error: nil)
    delegate.peripheral(peripheral, didWriteValueFor: characteristic, error: nil)
    delegate.peripheral(peripheral, didUpdateNotificationStateFor: characteristic, error: nil)
    delegate.peripheral(peripheral, didDiscoverDescriptorsFor: characteristic, error: nil)
    delegate.peripheral(peripheral, didUpdateValueFor: descriptor, error: nil)
    delegate.peripheral(peripheral, didWriteValueFor: descriptor, error: nil)
    delegate.peripheralIsReady(toSendWriteWithoutResponse: peripheral)
    delegate.peripheral(peripheral, didOpen: nil, error: nil)
}

func parityCallEveryPeripheralManagerMethod(
    _ delegate: any CBPeripheralManagerDelegate, _ manager: CBPeripheralManager, _ central: CBCentral,
    _ service: CBMutableService,
    _ request: CBATTRequest
) {
    let characteristic = service.characteristics![0]
    delegate.peripheralManagerDidUpdateState(manager)
    delegate.peripheralManager(manager, willRestoreState: [:])
    delegate.peripheralManagerDidStartAdvertising(manager, error: nil)
    delegate.peripheralManager(manager, didAdd: service, error: nil)
    delegate.peripheralManager(manager, central: central, didSubscribeTo: characteristic)
    delegate.peripheralManager(manager, central: central, didUnsubscribeFrom: characteristic)
    delegate.peripheralManager(manager, didReceiveRead: request)
    delegate.peripheralManager(manager, didReceiveWrite: [request])
    delegate.peripheralManagerIsReady(toUpdateSubscribers: manager)
    delegate.peripheralManager(manager, didPublishL2CAPChannel: 0x0080, error: nil)
    delegate.peripheralManager(manager, didUnpublishL2CAPChannel: 0x0080, error: nil)
    delegate.peripheralManager(manager, didOpen: nil, error: nil)
}

// MARK: - Formatting

/// CoreBluetooth objects in `String(format:)`, as logging code passes them (`%@` prints the
/// object's description).
func parityFormat(_ peripheral: CBPeripheral, _ uuid: CBUUID, _ central: CBCentralManager) -> String {
    String(format: "%@ has %@ (%@), RSSI %d", peripheral, uuid, central, -60)
}
