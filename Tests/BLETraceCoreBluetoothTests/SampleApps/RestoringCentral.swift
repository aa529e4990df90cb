// A central in the callback style of Apple's "Core Bluetooth Background Processing" guide: it opts
// into state restoration, takes back the peripherals the system kept for it, and reconnects to a
// known device by identifier. Only the import lines differ from the code that builds on iOS.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif

final class RestoringCentral: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    static let restoreIdentifier = "com.example.lock.central"
    static let lockService = CBUUID(string: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
    static let stateCharacteristic = CBUUID(string: "6E400003-B5A3-F393-E0A9-E50E24DCCA9E")

    private var central: CBCentralManager!
    private let queue = DispatchQueue(label: "com.example.lock.bluetooth")
    private(set) var lock: CBPeripheral?
    private(set) var log: [String] = []
    /// The lock's identifier, as an app keeps it in UserDefaults between launches.
    var knownLock: UUID?

    override init() {
        super.init()
        central = CBCentralManager(
            delegate: self, queue: queue,
            options: [
                CBCentralManagerOptionRestoreIdentifierKey: Self.restoreIdentifier,
                CBCentralManagerOptionShowPowerAlertKey: NSNumber(value: true),
            ])
    }

    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        let peripherals = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? []
        log.append(String(format: "restoring %d peripheral(s)", peripherals.count))
        if let restored = peripherals.first {
            restored.delegate = self
            lock = restored
        }
        if let services = dict[CBCentralManagerRestoredStateScanServicesKey] as? [CBUUID] {
            log.append("was scanning for \(services.map(\.uuidString).joined(separator: ","))")
        }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else {
            log.append("state \(central.state.rawValue)")
            return
        }
        if let lock, lock.state == .connected {
            log.append("already connected")
            lock.discoverServices([Self.lockService])
        } else if let known = knownLock, let peripheral = central.retrievePeripherals(withIdentifiers: [known]).first {
            log.append("reconnecting to a known lock")
            connect(peripheral)
        } else if let connected = central.retrieveConnectedPeripherals(withServices: [Self.lockService]).first {
            connect(connected)
        } else {
            central.scanForPeripherals(
                withServices: [Self.lockService], options: [CBCentralManagerScanOptionAllowDuplicatesKey: false])
            log.append("scanning")
        }
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber
    ) {
        guard RSSI.intValue > -90 else { return }
        let name = advertisementData[CBAdvertisementDataLocalNameKey] as? String ?? peripheral.name ?? "?"
        log.append(String(format: "found %@ at %@ dBm", name, RSSI))
        central.stopScan()
        connect(peripheral)
    }

    private func connect(_ peripheral: CBPeripheral) {
        lock = peripheral
        peripheral.delegate = self
        central.connect(peripheral, options: [CBConnectPeripheralOptionNotifyOnDisconnectionKey: true])
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        knownLock = peripheral.identifier
        log.append("connected")
        peripheral.discoverServices([Self.lockService])
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        if let error = error as? CBError, error.code == .connectionTimeout || error.code == .peripheralDisconnected {
            log.append("lost: \(error.localizedDescription)")
            central.connect(peripheral)
        } else {
            log.append("disconnected")
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard let service = peripheral.services?.first(where: { $0.uuid == Self.lockService }) else { return }
        peripheral.discoverCharacteristics([Self.stateCharacteristic], for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        for characteristic in service.characteristics ?? [] where characteristic.uuid == Self.stateCharacteristic {
            peripheral.setNotifyValue(true, for: characteristic)
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        guard let value = characteristic.value else { return }
        log.append("state \(value.map { String(format: "%02x", $0) }.joined())")
    }
}
