import BLETraceCoreBluetooth
import Foundation

/// The error-handling policy of the SDK series in the seeds ("Improving an SDK With Core
/// Bluetooth – Error Handling"): CoreBluetooth has no timeout for GATT requests, so every request
/// gets one second; a request with no answer by then is a failure, and the SDK gives the peripheral
/// up (cancels the connection). `didModifyServices` is taken to mean the peripheral vanished.
///
/// It connects to each known peripheral, discovers its services and characteristics and reads
/// every readable characteristic, one request at a time, each on a one-second watchdog of the
/// capture's clock.
final class SDKTimeoutApp: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
    static let timeout = 1.0

    private var central: CBCentralManager?
    private var launch: Launch?
    /// The request each peripheral waits for, numbered so that a late watchdog finds it answered.
    private var waiting: [UUID: Int] = [:]
    private var requests = 0
    private var reads: [UUID: [CBCharacteristic]] = [:]
    /// The peripherals it connects to, kept: iOS ends the connection of one the app lets go of.
    private var peripherals: [CBPeripheral] = []

    func didFinishLaunching(_ launch: Launch) {
        self.launch = launch
        central = CBCentralManager(delegate: self, queue: nil)
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn, let launch else { return }
        peripherals = central.retrievePeripherals(withIdentifiers: launch.knownPeripherals)
        for peripheral in peripherals {
            peripheral.delegate = self
            central.connect(peripheral)
        }
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        watch(peripheral) { $0.discoverServices(nil) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        answered(peripheral)
        guard error == nil else { return giveUp(peripheral) }
        discoverNext(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        answered(peripheral)
        guard error == nil else { return giveUp(peripheral) }
        reads[peripheral.identifier, default: []] += (service.characteristics ?? []).filter {
            $0.properties.contains(.read)
        }
        discoverNext(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        guard waiting[peripheral.identifier] != nil else { return }  // a notification
        answered(peripheral)
        readNext(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        giveUp(peripheral)
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        waiting[peripheral.identifier] = nil
        reads[peripheral.identifier] = nil
    }

    /// Discovers the characteristics of the next service not yet discovered, then reads.
    private func discoverNext(_ peripheral: CBPeripheral) {
        if let service = peripheral.services?.first(where: { $0.characteristics == nil }) {
            watch(peripheral) { $0.discoverCharacteristics(nil, for: service) }
        } else {
            readNext(peripheral)
        }
    }

    private func readNext(_ peripheral: CBPeripheral) {
        guard let characteristic = reads[peripheral.identifier]?.first else { return }
        reads[peripheral.identifier]?.removeFirst()
        watch(peripheral) { $0.readValue(for: characteristic) }
    }

    /// Makes a request with a one-second watchdog.
    private func watch(_ peripheral: CBPeripheral, _ request: (CBPeripheral) -> Void) {
        requests += 1
        let number = requests
        waiting[peripheral.identifier] = number
        request(peripheral)
        launch?.asyncAfter(Self.timeout) { [weak self, weak peripheral] in
            guard let self, let peripheral, waiting[peripheral.identifier] == number else { return }
            giveUp(peripheral)
        }
    }

    private func answered(_ peripheral: CBPeripheral) { waiting[peripheral.identifier] = nil }

    private func giveUp(_ peripheral: CBPeripheral) {
        waiting[peripheral.identifier] = nil
        reads[peripheral.identifier] = nil
        central?.cancelPeripheralConnection(peripheral)
    }
}
