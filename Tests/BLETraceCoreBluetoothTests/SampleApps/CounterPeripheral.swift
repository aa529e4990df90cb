// A peripheral-manager app as Apple's "Transferring Data Between Bluetooth Low Energy Devices"
// sample writes it: it publishes a service, advertises, answers reads and writes, and streams a
// value in chunks to its subscribers with flow control (`updateValue` returning false, then
// `peripheralManagerIsReady(toUpdateSubscribers:)`). Only the import lines differ from iOS.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif

final class CounterPeripheral: NSObject, CBPeripheralManagerDelegate {
    static let service = CBUUID(string: "08590F7E-DB05-467E-8757-72F6FAEB13D4")
    static let counter = CBUUID(string: "08590F7E-DB05-467E-8757-72F6FAEB13D5")
    static let transfer = CBUUID(string: "08590F7E-DB05-467E-8757-72F6FAEB13D6")

    private var manager: CBPeripheralManager!
    private var counterCharacteristic: CBMutableCharacteristic!
    private var transferCharacteristic: CBMutableCharacteristic!
    private(set) var count: UInt8 = 0
    private(set) var log: [String] = []
    private var pending: [Data] = []

    override init() {
        super.init()
        manager = CBPeripheralManager(
            delegate: self, queue: nil, options: [CBPeripheralManagerOptionRestoreIdentifierKey: "com.example.counter"])
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn else { return }
        counterCharacteristic = CBMutableCharacteristic(
            type: Self.counter, properties: [.read, .write, .notify], value: nil, permissions: [.readable, .writeable])
        counterCharacteristic.descriptors = [
            CBMutableDescriptor(type: CBUUID(string: CBUUIDCharacteristicUserDescriptionString), value: "Counter")
        ]
        transferCharacteristic = CBMutableCharacteristic(
            type: Self.transfer, properties: .notify, value: nil, permissions: .readable)
        let service = CBMutableService(type: Self.service, primary: true)
        service.characteristics = [counterCharacteristic, transferCharacteristic]
        peripheral.add(service)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) {
        let services = dict[CBPeripheralManagerRestoredStateServicesKey] as? [CBMutableService] ?? []
        log.append("restored \(services.count) service(s)")
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        if let error {
            log.append("add failed: \(error.localizedDescription)")
            return
        }
        peripheral.startAdvertising([
            CBAdvertisementDataLocalNameKey: "Counter", CBAdvertisementDataServiceUUIDsKey: [Self.service],
        ])
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?) {
        log.append(error.map { "advertising failed: \($0.localizedDescription)" } ?? "advertising")
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        guard request.characteristic.uuid == Self.counter else {
            return peripheral.respond(to: request, withResult: .attributeNotFound)
        }
        guard request.offset <= 1 else { return peripheral.respond(to: request, withResult: .invalidOffset) }
        request.value = Data([count]).subdata(in: request.offset..<1)
        peripheral.respond(to: request, withResult: .success)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        for request in requests {
            guard let value = request.value, value.count == 1 else {
                // One answer for the whole array, with its first request.
                return peripheral.respond(to: requests[0], withResult: .invalidAttributeValueLength)
            }
            count = value[0]
        }
        peripheral.respond(to: requests[0], withResult: .success)
        peripheral.updateValue(Data([count]), for: counterCharacteristic, onSubscribedCentrals: nil)
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic
    ) {
        log.append("subscribed, \(central.maximumUpdateValueLength) bytes a notification")
        guard characteristic.uuid == Self.transfer else { return }
        let payload = Data((0..<50).map { UInt8($0) })
        let chunk = central.maximumUpdateValueLength
        pending = stride(from: 0, to: payload.count, by: chunk).map {
            payload.subdata(in: $0..<min($0 + chunk, payload.count))
        }
        sendPending()
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic
    ) {
        log.append("unsubscribed")
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        log.append("ready")
        sendPending()
    }

    private func sendPending() {
        while let next = pending.first {
            guard manager.updateValue(next, for: transferCharacteristic, onSubscribedCentrals: nil) else {
                log.append("queue full")
                return
            }
            pending.removeFirst()
            log.append("sent \(next.count)")
        }
    }
}
