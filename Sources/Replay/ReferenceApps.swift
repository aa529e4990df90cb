import Foundation
import BLETraceCoreBluetooth

/// Apps shipped with bletrace, to replay captures against and to show how an app under test is
/// written.
public enum ReferenceApps {
    public struct Entry: Sendable {
        public var name: String
        public var summary: String
        let build: @Sendable (Cassette) -> any BluetoothApp

        public init(name: String, summary: String, make: @escaping @Sendable () -> any BluetoothApp) {
            self.init(name: name, summary: summary, script: { _ in make() })
        }

        /// An app that reads the capture itself (the mirror follows the captured app's requests).
        init(name: String, summary: String, script: @escaping @Sendable (Cassette) -> any BluetoothApp) {
            self.name = name
            self.summary = summary
            self.build = script
        }

        /// A new instance of the app, to replay `cassette` to.
        public func make(for cassette: Cassette) -> any BluetoothApp { build(cassette) }
    }

    public static let all: [Entry] = [
        Entry(
            name: "mirror",
            summary: "makes the captured app's own requests, at their times: its flow is what CoreBluetooth would have told the captured app (the default)",
            script: { MirrorApp(cassette: $0) }),
        Entry(
            name: "reconnecting",
            summary: "connects to the first known peripheral; after a failed attempt or a disconnection it did not ask for, connects again",
            make: { ReconnectingApp() }),
        Entry(
            name: "heart-rate",
            summary: "a heart-rate central in the seeds' BLESensor style: retrieves the sensor it knew (or scans for 180D), connects, subscribes to 2A37, reconnects after an unexpected disconnection",
            make: { HeartRateSensorApp() }),
        Entry(
            name: "sdk-timeout",
            summary: "the SDK seed's policy: discovers and reads every readable characteristic, each request on a 1 s watchdog of the capture's clock; no answer in time, or didModifyServices, and it gives the peripheral up",
            make: { SDKTimeoutApp() }),
        Entry(
            name: "explorer",
            summary: "connects to every known peripheral, discovers every service, characteristic and descriptor, reads every readable characteristic and subscribes to every notifying one",
            make: { ExplorerApp() }),
    ]

    public static func named(_ name: String) -> Entry? { all.first { $0.name == name } }
}

/// Keeps a connection to one peripheral, as the "Handling the Unexpected" talk recommends:
/// connection attempts do not time out, so a failure is transient and worth retrying at once; a
/// disconnection with an error was not asked for, so connect again; one without an error was
/// the app's own wish, so stay disconnected.
final class ReconnectingApp: NSObject, BluetoothApp, CBCentralManagerDelegate {
    private var central: CBCentralManager?
    private var known: [UUID] = []
    private var target: CBPeripheral?

    func didFinishLaunching(_ launch: Launch) {
        known = launch.knownPeripherals
        central = CBCentralManager(delegate: self, queue: nil, options: nil)
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        if target == nil { target = central.retrievePeripherals(withIdentifiers: Array(known.prefix(1))).first }
        if let target { central.connect(target) }
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        central.connect(peripheral)
    }

    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {
        if error != nil { central.connect(peripheral) }
    }
}

/// Explores each known peripheral as a generic GATT browser does: everything discovered, every
/// readable characteristic read, every notifying or indicating one subscribed to. What the
/// capture cannot answer follows `--unmatched`.
final class ExplorerApp: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
    private var central: CBCentralManager?
    private var known: [UUID] = []
    private var peripherals: [CBPeripheral] = []

    func didFinishLaunching(_ launch: Launch) {
        known = launch.knownPeripherals
        central = CBCentralManager(delegate: self, queue: nil)
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        peripherals = central.retrievePeripherals(withIdentifiers: known)
        for peripheral in peripherals {
            peripheral.delegate = self
            central.connect(peripheral)
        }
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.discoverServices(nil)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        for service in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: service) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        for characteristic in service.characteristics ?? [] {
            peripheral.discoverDescriptors(for: characteristic)
            if characteristic.properties.contains(.read) { peripheral.readValue(for: characteristic) }
            if !characteristic.properties.isDisjoint(with: [.notify, .indicate]) {
                peripheral.setNotifyValue(true, for: characteristic)
            }
        }
    }
}
