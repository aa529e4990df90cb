import BLETraceCoreBluetooth
import Foundation

/// A heart-rate central in the style of the seeds' BLESensor app: it retrieves the sensor it knew
/// (or scans for the Heart Rate service), connects, discovers the service, subscribes to the Heart
/// Rate Measurement, and reconnects after a disconnection it did not ask for, as the "Handling
/// the Unexpected" talk recommends; a connection attempt is never given up (they do not time out).
final class HeartRateSensorApp: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
    static let heartRate = CBUUID(string: "180D")
    static let measurement = CBUUID(string: "2A37")

    private var central: CBCentralManager?
    private var known: [UUID] = []
    private var sensor: CBPeripheral?

    func didFinishLaunching(_ launch: Launch) {
        known = launch.knownPeripherals
        central = CBCentralManager(delegate: self, queue: nil)
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        if let known = central.retrievePeripherals(withIdentifiers: known).first {
            use(known, central)
        } else {
            central.scanForPeripherals(withServices: [Self.heartRate])
        }
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber
    ) {
        central.stopScan()
        use(peripheral, central)
    }

    private func use(_ peripheral: CBPeripheral, _ central: CBCentralManager) {
        sensor = peripheral
        peripheral.delegate = self
        central.connect(peripheral)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.discoverServices([Self.heartRate])
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        central.connect(peripheral)
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        if error != nil { central.connect(peripheral) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard let service = peripheral.services?.first(where: { $0.uuid == Self.heartRate }) else { return }
        peripheral.discoverCharacteristics([Self.measurement], for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        guard let measurement = service.characteristics?.first(where: { $0.uuid == Self.measurement }) else { return }
        peripheral.discoverDescriptors(for: measurement)
    }

    func peripheral(
        _ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: Error?
    ) {
        if !characteristic.isNotifying { peripheral.setNotifyValue(true, for: characteristic) }
    }

    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        if invalidatedServices.contains(where: { $0.uuid == Self.heartRate }) {
            peripheral.discoverServices([Self.heartRate])
        }
    }
}
