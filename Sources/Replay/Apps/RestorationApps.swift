import BLETraceCoreBluetooth
import Foundation

/// A heart-rate central that survives being terminated, as the state-restoration seeds recommend:
/// its central manager always has a restore identifier; after a relaunch it takes back the
/// restored peripheral in `willRestoreState`, keeps a pending connect pending, connects again
/// what was disconnected, rediscovers only what is missing and subscribes only when the
/// characteristic is not notifying. It remembers its sensor in `UserDefaults`, the one thing
/// that outlives the process.
class RestoringApp: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
    static let heartRate = CBUUID(string: "180D")
    static let measurement = CBUUID(string: "2A37")
    static let sensorKey = "sensor"

    /// The restore identifier the central manager opts in with; nil opts out.
    class var restoreIdentifier: String? { "bletrace.heart-rate" }

    var central: CBCentralManager?
    var sensor: CBPeripheral?
    private var defaults = AppDefaults()
    private var known: [UUID] = []

    required override init() {}

    func didFinishLaunching(_ launch: Launch) {
        defaults = launch.defaults
        known = launch.knownPeripherals
        // After a relaunch, launch.options names the restore identifier; this app has one central
        // and always creates it with it.
        let options = Self.restoreIdentifier.map { [CBCentralManagerOptionRestoreIdentifierKey: $0] }
        central = CBCentralManager(delegate: self, queue: nil, options: options)
    }

    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        // The state is not yet .poweredOn here: keep the peripheral, act in didUpdateState.
        let restored = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? []
        if let peripheral = restored.first {
            sensor = peripheral
            peripheral.delegate = self
        }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        if let sensor {
            switch sensor.state {
            case .connected: resume(sensor)
            case .connecting: break  // the system still holds the connect: it completes later
            default: central.connect(sensor)
            }
        } else if !central.isScanning {  // a restored scan goes on by itself
            start(central)
        }
    }

    /// The first launch: the sensor the app knew, or a scan for one.
    func start(_ central: CBCentralManager) {
        let remembered = defaults.string(forKey: Self.sensorKey).flatMap(UUID.init(uuidString:))
        if let identifier = remembered ?? known.first,
            let peripheral = central.retrievePeripherals(withIdentifiers: [identifier]).first
        {
            use(peripheral, central)
        } else {
            central.scanForPeripherals(withServices: [Self.heartRate])
        }
    }

    func use(_ peripheral: CBPeripheral, _ central: CBCentralManager) {
        sensor = peripheral
        defaults.set(peripheral.identifier.uuidString, forKey: Self.sensorKey)
        peripheral.delegate = self
        central.connect(peripheral)
    }

    /// A restored connection: only what is missing.
    private func resume(_ peripheral: CBPeripheral) {
        guard let service = peripheral.services?.first(where: { $0.uuid == Self.heartRate }) else {
            return peripheral.discoverServices([Self.heartRate])
        }
        guard let measurement = service.characteristics?.first(where: { $0.uuid == Self.measurement }) else {
            return peripheral.discoverCharacteristics([Self.measurement], for: service)
        }
        if !measurement.isNotifying { peripheral.setNotifyValue(true, for: measurement) }
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber
    ) {
        central.stopScan()
        use(peripheral, central)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        guard peripheral == sensor else { return }
        peripheral.discoverServices([Self.heartRate])
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        if peripheral == sensor { central.connect(peripheral) }
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?) {
        if peripheral == sensor, error != nil { central.connect(peripheral) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard let service = peripheral.services?.first(where: { $0.uuid == Self.heartRate }) else { return }
        peripheral.discoverCharacteristics([Self.measurement], for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        guard let measurement = service.characteristics?.first(where: { $0.uuid == Self.measurement }) else { return }
        if !measurement.isNotifying { peripheral.setNotifyValue(true, for: measurement) }
    }
}

/// The same app without a restore identifier: iOS keeps nothing for it when it is terminated, and
/// no Bluetooth event relaunches it. Its connections and pending connects end with the process.
final class ForgetfulApp: RestoringApp {
    override class var restoreIdentifier: String? { nil }
}

/// The same app with a restore identifier, but a relaunch that starts from scratch: it cancels
/// every connection and pending connect the system restored, then connects again as at its first
/// launch — a common mistake: the new connect waits for the peer's next connection, and what the
/// app had (the link, the subscription) is lost meanwhile.
final class NaiveApp: RestoringApp {
    private var restored: [CBPeripheral] = []

    override func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        restored = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? []
    }

    override func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        for peripheral in restored { central.cancelPeripheralConnection(peripheral) }
        restored = []
        if !central.isScanning { start(central) }
    }
}
