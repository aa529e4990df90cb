#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Foundation

/// The app's heart-rate sensor connection: finds the sensor (the one it knew, or by scanning for
/// the Heart Rate service), keeps it connected, subscribes to the measurements, writes the
/// sensor's settings, and survives being terminated in the background (state restoration).
open class HeartRateMonitor: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    public static let heartRateService = CBUUID(string: "180D")
    public static let measurement = CBUUID(string: "2A37")
    /// The vendor's settings service and characteristic (written after connecting).
    public static let settingsService = CBUUID(string: "EEE0")
    public static let settings = CBUUID(string: "EEE3")
    public static let restoreIdentifier = "com.example.heart-rate"

    /// Beats per minute, as measured.
    public private(set) var heartRates: [Int] = []
    /// Every error CoreBluetooth reported, in order.
    public private(set) var errors: [Error] = []
    public private(set) var central: CBCentralManager?
    public private(set) var sensor: CBPeripheral?
    private var knownSensor: UUID?

    public override init() {}

    /// Starts (at launch, and again after iOS relaunched the app for Bluetooth: the same
    /// restore identifier brings the sensor back).
    public func start(knownSensor: UUID?) {
        self.knownSensor = knownSensor
        central = CBCentralManager(
            delegate: self, queue: nil, options: [CBCentralManagerOptionRestoreIdentifierKey: Self.restoreIdentifier])
    }

    /// Whether to connect again after the link was lost. The monitor never cancels, so every
    /// disconnection is one it did not ask for, with or without an error.
    open func shouldReconnect(after error: Error?) -> Bool { true }

    // MARK: Central

    public func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        // Not yet powered on: keep the sensor, act in centralManagerDidUpdateState.
        if let restored = (dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral])?.first {
            sensor = restored
            restored.delegate = self
        }
    }

    public func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .resetting, let sensor {
            // Every peripheral object is invalid after the system's reset: take it again by its
            // identifier once powered on (bletrace's fault sweep found the monitor holding on).
            knownSensor = sensor.identifier
            self.sensor = nil
        }
        guard central.state == .poweredOn else { return }
        if let sensor {
            switch sensor.state {
            case .connected: setUp(sensor)
            case .connecting: break  // the system still holds the connect
            default: central.connect(sensor)
            }
        } else if let knownSensor, let known = central.retrievePeripherals(withIdentifiers: [knownSensor]).first {
            use(known, central)
        } else if !central.isScanning {
            central.scanForPeripherals(withServices: [Self.heartRateService])
        }
    }

    public func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber
    ) {
        central.stopScan()
        use(peripheral, central)
    }

    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        setUp(peripheral)
    }

    public func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        if let error { errors.append(error) }
        central.connect(peripheral)  // attempts do not time out; a failure is transient
    }

    public func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?
    ) {
        // ATT's transaction timeout ends a link with no error on iOS: a nil error is not the
        // app's own cancel (bletrace's fault sweep found the monitor staying disconnected).
        if let error { errors.append(error) }
        if shouldReconnect(after: error) { central.connect(peripheral) }
    }

    private func use(_ peripheral: CBPeripheral, _ central: CBCentralManager) {
        sensor = peripheral
        peripheral.delegate = self
        central.connect(peripheral)
    }

    /// Discovers and subscribes what is missing (after a relaunch, most of it is there).
    private func setUp(_ peripheral: CBPeripheral) {
        let services = peripheral.services ?? []
        guard let heartRate = services.first(where: { $0.uuid == Self.heartRateService }) else {
            return peripheral.discoverServices([Self.heartRateService, Self.settingsService])
        }
        if let measurement = heartRate.characteristics?.first(where: { $0.uuid == Self.measurement }) {
            if !measurement.isNotifying { peripheral.setNotifyValue(true, for: measurement) }
        } else {
            peripheral.discoverCharacteristics([Self.measurement], for: heartRate)
        }
    }

    // MARK: Peripheral

    public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        if let error { return errors.append(error) }
        for service in peripheral.services ?? [] {
            let wanted = service.uuid == Self.heartRateService ? Self.measurement : Self.settings
            peripheral.discoverCharacteristics([wanted], for: service)
        }
    }

    public func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?)
    {
        if let error { return errors.append(error) }
        for characteristic in service.characteristics ?? [] {
            if characteristic.uuid == Self.measurement, !characteristic.isNotifying {
                peripheral.setNotifyValue(true, for: characteristic)
            } else if characteristic.uuid == Self.settings {
                peripheral.writeValue(Data([0x01]), for: characteristic, type: .withResponse)
            }
        }
    }

    public func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: Error?)
    {
        if let error { errors.append(error) }
    }

    public func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?
    ) {
        if let error { errors.append(error) }
    }

    public func peripheral(
        _ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?
    ) {
        if let error { return errors.append(error) }
        guard characteristic.uuid == Self.measurement, let value = characteristic.value, value.count >= 2 else {
            return
        }
        // Heart Rate Measurement: flags, then the rate in 8 bits (or 16 when flag bit 0 is set).
        let bytes = [UInt8](value)
        heartRates.append(
            bytes[0] & 1 == 0 ? Int(bytes[1]) : Int(bytes[1]) | (bytes.count > 2 ? Int(bytes[2]) << 8 : 0))
    }
}
