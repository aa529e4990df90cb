// A sensor central in CoreBluetooth's style, after the "Handling the Unexpected" talk's
// BLESensor app. Only the import lines below differ from what builds on iOS.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Foundation

enum BLESensorIdentifiers {
    static let service = CBUUID(string: "B5A1C0DE-0001-4D7E-9A2B-5E4501A2B3C4")
    static let characteristic = CBUUID(string: "B5A1C0DE-0002-4D7E-9A2B-5E4501A2B3C4")
    static let restoreIdentifier = "BLESensorCentral"
}

/// Scans for the sensor service, connects, discovers, subscribes, and reconnects after a
/// disconnection it did not ask for.
final class BLESensorCentral: NSObject {
    private var central: CBCentralManager!
    private(set) var sensor: CBPeripheral?
    private(set) var readings: [Data] = []
    private(set) var events: [String] = []
    private var stopping = false

    init(queue: DispatchQueue? = nil) {
        super.init()
        central = CBCentralManager(
            delegate: self, queue: queue,
            options: [CBCentralManagerOptionRestoreIdentifierKey: BLESensorIdentifiers.restoreIdentifier])
    }

    /// The user is done with the sensor.
    func stop() {
        stopping = true
        if let sensor { central.cancelPeripheralConnection(sensor) }
    }

    private func scan() {
        central.scanForPeripherals(withServices: [BLESensorIdentifiers.service], options: nil)
        events.append("scanning")
    }
}

extension BLESensorCentral: CBCentralManagerDelegate {
    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        switch central.state {
        case .poweredOn:
            if let sensor, sensor.state == .connected {
                sensor.discoverServices([BLESensorIdentifiers.service])
            } else if sensor == nil {
                scan()
            }
        case .poweredOff:
            events.append("bluetooth off")
        default:
            sensor = nil
            events.append("bluetooth \(central.state.rawValue)")
        }
    }

    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        if let restored = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral],
            let first = restored.first
        {
            sensor = first
            first.delegate = self
            events.append("restored \(first.identifier.uuidString)")
        }
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber
    ) {
        guard sensor == nil else { return }
        central.stopScan()
        sensor = peripheral
        peripheral.delegate = self
        events.append(
            "discovered \(advertisementData[CBAdvertisementDataLocalNameKey] as? String ?? "?") at \(RSSI.intValue) dBm"
        )
        central.connect(peripheral, options: [CBConnectPeripheralOptionNotifyOnDisconnectionKey: true])
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        events.append("connected")
        peripheral.discoverServices([BLESensorIdentifiers.service])
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        // Attempts do not time out, so a failure is transient: try again.
        events.append("failed \((error as NSError?)?.code ?? -1)")
        central.connect(peripheral, options: nil)
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        if let error = error as? CBError {
            events.append("lost: \(error.code)")
            central.connect(peripheral, options: nil)
        } else {
            events.append("disconnected")
            sensor = nil
            if !stopping { scan() }
        }
    }
}

extension BLESensorCentral: CBPeripheralDelegate {
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard error == nil, let service = peripheral.services?.first(where: { $0.uuid == BLESensorIdentifiers.service })
        else {
            events.append("no sensor service")
            return
        }
        peripheral.discoverCharacteristics([BLESensorIdentifiers.characteristic], for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        guard
            let characteristic = service.characteristics?.first(where: {
                $0.uuid == BLESensorIdentifiers.characteristic
            })
        else { return }
        if !characteristic.isNotifying { peripheral.setNotifyValue(true, for: characteristic) }
    }

    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?
    ) {
        if let error = error as? CBATTError {
            events.append("subscribe failed: \(error.code)")
        } else {
            events.append("subscribed")
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        guard error == nil, let value = characteristic.value else { return }
        readings.append(value)
    }

    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        if invalidatedServices.contains(where: { $0.uuid == BLESensorIdentifiers.service }) {
            events.append("service changed")
            peripheral.discoverServices([BLESensorIdentifiers.service])
        }
    }
}
