import BLETraceCoreBluetooth
import Foundation

/// A heart-rate central written to survive every failure a fault sweep injects (Formats/faults.md),
/// and, with one bug, the app the sweep is there to catch:
///
/// - a link it did not end itself is connected again, whatever the error says (ATT's transaction
///   timeout ends a link with none); a failed attempt is tried again, except when the peer
///   removed its pairing information, when it gives the peripheral up (the user must forget the
///   device in Settings);
/// - a discovery or subscription that fails is tried again a second later, three times at most;
/// - after `didModifyServices`, and after Bluetooth comes back, it starts over from what is
///   valid, and a callback about a service that is no longer the peripheral's is ignored.
///
/// `reconnectsDuringSetup` false is the bug: the app reconnects only once it is subscribed, so a
/// link lost during discovery leaves it disconnected for good. No capture shows it unless the
/// link happened to drop then; the link-loss sweep finds it.
final class SteadfastApp: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
    static let heartRate = CBUUID(string: "180D")
    static let measurement = CBUUID(string: "2A37")
    /// How many times a failed step is tried again on one connection.
    static let retries = 3

    private let reconnectsDuringSetup: Bool
    private var central: CBCentralManager?
    private var known: [UUID] = []
    private var sensor: CBPeripheral?
    private var asyncAfter: ((Double, @escaping () -> Void) -> Void)?
    /// The app asked to end the link itself.
    private var gaveUp = false
    /// Subscribed on this connection.
    private var ready = false
    private var failures = 0

    init(reconnectsDuringSetup: Bool = true) {
        self.reconnectsDuringSetup = reconnectsDuringSetup
    }

    func didFinishLaunching(_ launch: Launch) {
        known = launch.knownPeripherals
        asyncAfter = launch.asyncAfter
        central = CBCentralManager(delegate: self, queue: nil)
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn, !gaveUp else { return }
        // After a reset every peripheral object is invalid: the sensor is taken again.
        if let known = central.retrievePeripherals(withIdentifiers: sensor.map { [$0.identifier] } ?? known).first {
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
        if peripheral.state == .disconnected { central.connect(peripheral) }
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        (ready, failures) = (false, 0)
        peripheral.discoverServices([Self.heartRate])
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        if (error as? CBError)?.code == .peerRemovedPairingInformation {
            // Connecting again cannot help: the bond must be made again from Settings.
            gaveUp = true
            return central.cancelPeripheralConnection(peripheral)
        }
        central.connect(peripheral)
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        guard !gaveUp, reconnectsDuringSetup || ready else { return }
        ready = false
        central.connect(peripheral)
    }

    /// Tries `step` again a second later while the peripheral is connected, a few times.
    private func retry(_ peripheral: CBPeripheral, _ step: @escaping (CBPeripheral) -> Void) {
        guard failures < Self.retries else { return }
        failures += 1
        asyncAfter?(1) { [weak self, weak peripheral] in
            guard let self, let peripheral, peripheral.state == .connected, !self.ready else { return }
            step(peripheral)
        }
    }

    private func isCurrent(_ service: CBService?, of peripheral: CBPeripheral) -> Bool {
        guard let service else { return false }
        return peripheral.services?.contains { $0 === service } ?? false
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard error == nil, let service = peripheral.services?.first(where: { $0.uuid == Self.heartRate }) else {
            return retry(peripheral) { $0.discoverServices([Self.heartRate]) }
        }
        peripheral.discoverCharacteristics([Self.measurement], for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        guard isCurrent(service, of: peripheral) else { return }
        guard error == nil, let measurement = service.characteristics?.first(where: { $0.uuid == Self.measurement })
        else {
            return retry(peripheral) { $0.discoverServices([Self.heartRate]) }
        }
        peripheral.discoverDescriptors(for: measurement)
    }

    func peripheral(
        _ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: Error?
    ) {
        guard isCurrent(characteristic.service, of: peripheral) else { return }
        guard error == nil else { return retry(peripheral) { $0.discoverServices([Self.heartRate]) } }
        if characteristic.isNotifying { ready = true } else { peripheral.setNotifyValue(true, for: characteristic) }
    }

    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?
    ) {
        guard isCurrent(characteristic.service, of: peripheral) else { return }
        guard error == nil, characteristic.isNotifying else {
            return retry(peripheral) { $0.discoverServices([Self.heartRate]) }
        }
        ready = true
    }

    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        guard invalidatedServices.contains(where: { $0.uuid == Self.heartRate }) else { return }
        (ready, failures) = (false, 0)
        peripheral.discoverServices([Self.heartRate])
    }
}
