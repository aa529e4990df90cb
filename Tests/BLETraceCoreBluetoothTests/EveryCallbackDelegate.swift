import BLETraceCoreBluetooth
import Foundation

/// A delegate of every kind that implements every method with CoreBluetooth's exact signature
/// and writes down its name: a method the managers did not really call is missing from `log`.
final class EveryCallbackDelegate: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate, CBPeripheralManagerDelegate
{
    var log: [String] = []
    /// Errors given to the callbacks, in order.
    var errors: [String] = []
    /// Runs inside `centralManagerDidUpdateState`, to see what the app sees then.
    var onStateUpdate: () -> Void = {}

    private func note(_ name: String, _ error: (any Error)? = nil) {
        log.append(name)
        if let error { errors.append("\(name) \(error)") }
    }

    // CBCentralManagerDelegate (the iOS 17 disconnection form is left to its default: iOS calls
    // the older one when it is implemented; NewDisconnectionDelegate implements the newer one).
    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        onStateUpdate()
        note("centralManagerDidUpdateState(_:)")
    }
    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        note("centralManager(_:willRestoreState:)")
    }
    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber
    ) {
        note("centralManager(_:didDiscover:advertisementData:rssi:)")
    }
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        note("centralManager(_:didConnect:)")
    }
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        note("centralManager(_:didFailToConnect:error:)", error)
    }
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        note("centralManager(_:didDisconnectPeripheral:error:)", error)
    }
    func centralManager(
        _ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral
    ) {
        note("centralManager(_:connectionEventDidOccur:for:)")
    }
    func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral) {
        note("centralManager(_:didUpdateANCSAuthorizationFor:)")
    }

    // CBPeripheralDelegate
    func peripheralDidUpdateName(_ peripheral: CBPeripheral) { note("peripheralDidUpdateName(_:)") }
    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        note("peripheral(_:didModifyServices:)")
    }
    func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: Error?) {
        note("peripheral(_:didReadRSSI:error:)", error)
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        note("peripheral(_:didDiscoverServices:)", error)
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverIncludedServicesFor service: CBService, error: Error?) {
        note("peripheral(_:didDiscoverIncludedServicesFor:error:)", error)
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        note("peripheral(_:didDiscoverCharacteristicsFor:error:)", error)
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        note("peripheral(_:didUpdateValueFor:error:) characteristic", error)
    }
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?) {
        note("peripheral(_:didWriteValueFor:error:) characteristic", error)
    }
    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?
    ) {
        note("peripheral(_:didUpdateNotificationStateFor:error:)", error)
    }
    func peripheral(
        _ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: Error?
    ) {
        note("peripheral(_:didDiscoverDescriptorsFor:error:)", error)
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: Error?) {
        note("peripheral(_:didUpdateValueFor:error:) descriptor", error)
    }
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor descriptor: CBDescriptor, error: Error?) {
        note("peripheral(_:didWriteValueFor:error:) descriptor", error)
    }
    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
        note("peripheralIsReady(toSendWriteWithoutResponse:)")
    }
    func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: Error?) {
        note("peripheral(_:didOpen:error:)", error)
    }

    // CBPeripheralManagerDelegate
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        note("peripheralManagerDidUpdateState(_:)")
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) {
        note("peripheralManager(_:willRestoreState:)")
    }
    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?) {
        note("peripheralManagerDidStartAdvertising(_:error:)", error)
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        note("peripheralManager(_:didAdd:error:)", error)
    }
    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic
    ) {
        note("peripheralManager(_:central:didSubscribeTo:)")
    }
    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic
    ) {
        note("peripheralManager(_:central:didUnsubscribeFrom:)")
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        note("peripheralManager(_:didReceiveRead:)")
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        note("peripheralManager(_:didReceiveWrite:)")
    }
    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        note("peripheralManagerIsReady(toUpdateSubscribers:)")
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: Error?) {
        note("peripheralManager(_:didPublishL2CAPChannel:error:)", error)
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM, error: Error?) {
        note("peripheralManager(_:didUnpublishL2CAPChannel:error:)", error)
    }
    func peripheralManager(_ peripheral: CBPeripheralManager, didOpen channel: CBL2CAPChannel?, error: Error?) {
        note("peripheralManager(_:didOpen:error:)", error)
    }
}

/// Implements only the iOS 17 form of the disconnection callback (and the required method).
final class NewDisconnectionDelegate: NSObject, CBCentralManagerDelegate {
    var log: [String] = []
    /// Runs inside the disconnection callback, to see what the app sees then.
    var onDisconnect: (CBPeripheral) -> Void = { _ in }
    func centralManagerDidUpdateState(_ central: CBCentralManager) {}
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
        isReconnecting: Bool, error: Error?
    ) {
        onDisconnect(peripheral)
        log.append(
            "new form timestamp=\(timestamp) isReconnecting=\(isReconnecting) error=\(error.map { "\($0)" } ?? "nil")")
    }
}

/// A delegate that implements both disconnection forms, as apps that support iOS before 17 and
/// after do: iOS 18 and 26 call the older one only.
final class BothDisconnectionsDelegate: NSObject, CBCentralManagerDelegate {
    var log: [String] = []
    func centralManagerDidUpdateState(_ central: CBCentralManager) {}
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        log.append("didFailToConnect \(error.map { "\($0)" } ?? "nil") state=\(peripheral.state)")
    }
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        log.append("old form state=\(peripheral.state)")
    }
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
        isReconnecting: Bool, error: Error?
    ) {
        log.append("new form isReconnecting=\(isReconnecting) state=\(peripheral.state)")
    }
}
