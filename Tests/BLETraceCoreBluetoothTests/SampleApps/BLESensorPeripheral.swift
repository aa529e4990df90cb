// A sensor peripheral in CoreBluetooth's style, after the "Handling the Unexpected" talk's
// BLESensor app. Only the import lines below differ from what builds on iOS.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Foundation

/// Publishes the sensor service, advertises it, answers reads and writes, and notifies
/// subscribers, holding back while the transmit queue is full.
final class BLESensorPeripheral: NSObject {
    private var manager: CBPeripheralManager!
    private var characteristic: CBMutableCharacteristic!
    private(set) var latest = Data()
    private(set) var received: [Data] = []
    private(set) var events: [String] = []
    private var waiting: Data?

    override init() {
        super.init()
        manager = CBPeripheralManager(delegate: self, queue: nil)
    }

    private func setUp() {
        characteristic = CBMutableCharacteristic(
            type: BLESensorIdentifiers.characteristic, properties: [.read, .write, .notify], value: nil,
            permissions: [.readable, .writeable])
        characteristic.descriptors = [
            CBMutableDescriptor(
                type: CBUUID(string: CBUUIDCharacteristicUserDescriptionString), value: "BLESensor prototype")
        ]
        let service = CBMutableService(type: BLESensorIdentifiers.service, primary: true)
        service.characteristics = [characteristic]
        manager.add(service)
    }

    /// A new reading from the sensor.
    func update(with reading: Data) {
        latest = reading
        guard characteristic != nil else { return }
        if !manager.updateValue(reading, for: characteristic, onSubscribedCentrals: nil) {
            waiting = reading
            events.append("queue full")
        }
    }
}

extension BLESensorPeripheral: CBPeripheralManagerDelegate {
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        if peripheral.state == .poweredOn {
            setUp()
        } else {
            events.append("not available: \(peripheral.state.rawValue)")
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        if let error {
            events.append("could not add: \(error.localizedDescription)")
            return
        }
        peripheral.startAdvertising([
            CBAdvertisementDataServiceUUIDsKey: [BLESensorIdentifiers.service],
            CBAdvertisementDataLocalNameKey: "BLE Sensor",
        ])
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?) {
        events.append(error == nil ? "advertising" : "advertising failed")
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic
    ) {
        events.append("subscribed")
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic
    ) {
        events.append("unsubscribed")
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        guard request.offset <= latest.count else {
            peripheral.respond(to: request, withResult: .invalidOffset)
            return
        }
        request.value = latest.subdata(in: request.offset..<latest.count)
        peripheral.respond(to: request, withResult: .success)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        guard let first = requests.first else { return }
        guard requests.allSatisfy({ $0.offset == 0 && ($0.value?.count ?? 0) <= 8 }) else {
            peripheral.respond(to: first, withResult: .invalidAttributeValueLength)
            return
        }
        received += requests.compactMap(\.value)
        peripheral.respond(to: first, withResult: .success)
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        guard let value = waiting else { return }
        waiting = nil
        if !peripheral.updateValue(value, for: characteristic, onSubscribedCentrals: nil) { waiting = value }
    }
}
