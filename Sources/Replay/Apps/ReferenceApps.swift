import Foundation
import Synchronization
import BLETraceCoreBluetooth

/// Apps shipped with bletrace, to replay captures against and to show how an app under test is
/// written.
public enum ReferenceApps {
    /// A reference app: its name (`--app NAME`), what it does, and how to make it.
    public struct Entry: Sendable {
        public var name: String
        public var summary: String
        let build: @Sendable (Cassette) -> any BluetoothApp

        public init(name: String, summary: String, make: @escaping @Sendable () -> any BluetoothApp) {
            self.init(name: name, summary: summary, script: { _ in make() })
        }

        /// An app type of the user's.
        public init<App: BluetoothApp & Launchable>(_ type: App.Type) {
            self.init(name: App.appName, summary: App.summary, make: { App() })
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
            summary:
                "makes the captured app's own requests, at their times: its flow is what CoreBluetooth would have told the captured app (the default)",
            script: { MirrorApp(cassette: $0) }),
        Entry(
            name: "reconnecting",
            summary:
                "connects to the first known peripheral; after a failed attempt or a disconnection it did not ask for, connects again",
            make: { ReconnectingApp() }),
        Entry(
            name: "heart-rate",
            summary:
                "a heart-rate central in the seeds' BLESensor style: retrieves the sensor it knew (or scans for 180D), connects, subscribes to 2A37, reconnects after an unexpected disconnection",
            make: { HeartRateSensorApp() }),
        Entry(
            name: "sdk-timeout",
            summary:
                "the SDK seed's policy: discovers and reads every readable characteristic, each request on a 1 s watchdog of the capture's clock; no answer in time, or didModifyServices, and it gives the peripheral up",
            make: { SDKTimeoutApp() }),
        Entry(
            name: "explorer",
            summary:
                "connects to every known peripheral, discovers every service, characteristic and descriptor, reads every readable characteristic and subscribes to every notifying one",
            make: { ExplorerApp() }),
        Entry(
            name: "sensor-server",
            summary:
                "a heart-rate sensor as a peripheral manager: publishes the services of the bundled peripheral-server capture, advertises, answers reads, accepts writes (refuses the error service's), notifies every 0.1 s while a central is subscribed",
            make: { SensorServerApp() }),
        Entry(
            name: "restoring",
            summary:
                "a heart-rate central that survives termination as the restoration seeds recommend: restore identifier, takes back restored peripherals, keeps pending connects, rediscovers only what is missing, resubscribes only when not notifying",
            make: { RestoringApp() }),
        Entry(
            name: "forgetful",
            summary:
                "the restoring app without a restore identifier: a termination loses its connections, subscriptions and pending connects",
            make: { ForgetfulApp() }),
        Entry(
            name: "steadfast",
            summary:
                "a heart-rate central written to survive every fault a sweep injects: reconnects after any link it did not end, retries a failed discovery or subscription, starts over after didModifyServices or a reset, gives up a peer that removed its pairing",
            make: { SteadfastApp() }),
        Entry(
            name: "fragile-setup",
            summary:
                "the steadfast app with the bug a fault sweep finds and no capture showed: it reconnects only once subscribed, so a link lost during discovery leaves it disconnected",
            make: { SteadfastApp(reconnectsDuringSetup: false) }),
        Entry(
            name: "naive",
            summary:
                "the restoring app with a restore identifier, but a relaunch that cancels what the system restored and starts again from scratch",
            make: { NaiveApp() }),
    ]

    /// The apps shipped with bletrace, then those registered (``register(_:)``).
    public static var available: [Entry] { all + registered.withLock { $0 } }

    public static func named(_ name: String) -> Entry? { available.first { $0.name == name } }

    /// Makes `entries` known to ``named(_:)`` and ``available``, after the shipped apps (a
    /// user's own command line: `BletraceCommand.main(apps:)`). A name already known is replaced.
    public static func register(_ entries: [Entry]) {
        registered.withLock { list in
            for entry in entries {
                list.removeAll { $0.name == entry.name }
                list.append(entry)
            }
        }
    }

    private static let registered = Mutex<[Entry]>([])
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

/// A heart-rate sensor written as an iOS app would be with `CBPeripheralManager`: it publishes
/// Heart Rate (180D) and the services of the bundled `peripheral-server` capture's server, advertises
/// Heart Rate, answers reads with its values, accepts writes except on the error service EEE0
/// (which refuses them), and notifies a new measurement every 0.1 s while a central is
/// subscribed.
final class SensorServerApp: NSObject, BluetoothApp, CBPeripheralManagerDelegate {
    private var manager: CBPeripheralManager?
    private var after: (Double, @escaping () -> Void) -> Void = { _, _ in }
    private let measurement = CBMutableCharacteristic(
        type: CBUUID(string: "2A37"), properties: [.notify], value: nil, permissions: [.readable])
    private var beatsPerMinute: UInt8 = 0x48
    private var notifying = false
    /// What a read answers, by characteristic.
    private var values: [CBUUID: Data] = [CBUUID(string: "2A38"): Data([0x01]), CBUUID(string: "AAA1"): Data([0x00])]
    private let refusingWrites = CBUUID(string: "EEE0")

    func didFinishLaunching(_ launch: Launch) {
        after = launch.asyncAfter
        manager = CBPeripheralManager(delegate: self, queue: nil)
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn else { return }
        let heartRate = CBMutableService(type: CBUUID(string: "180D"), primary: true)
        heartRate.characteristics = [
            measurement,
            CBMutableCharacteristic(
                type: CBUUID(string: "2A38"), properties: [.read], value: nil, permissions: [.readable]),
            CBMutableCharacteristic(
                type: CBUUID(string: "2A39"), properties: [.write], value: nil, permissions: [.writeable]),
        ]
        let configuration = CBMutableService(type: CBUUID(string: "AAA0"), primary: true)
        configuration.characteristics = [
            CBMutableCharacteristic(
                type: CBUUID(string: "AAA1"), properties: [.read, .write], value: nil,
                permissions: [.readable, .writeable])
        ]
        let errors = CBMutableService(type: refusingWrites, primary: true)
        errors.characteristics =
            [
                CBMutableCharacteristic(
                    type: CBUUID(string: "EEE1"), properties: [.read], value: nil, permissions: [.readable])
            ]
            + ["EEE2", "EEE3", "EEE4"].map {
                CBMutableCharacteristic(
                    type: CBUUID(string: $0), properties: [.write], value: nil, permissions: [.writeable])
            }
        let commands = CBMutableService(type: CBUUID(string: "BBB0"), primary: true)
        commands.characteristics = [
            CBMutableCharacteristic(
                type: CBUUID(string: "BBB1"), properties: [.writeWithoutResponse], value: nil, permissions: [.writeable]
            )
        ]
        for service in [heartRate, configuration, errors, commands] { peripheral.add(service) }
        peripheral.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180D")]])
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        guard request.characteristic.service?.uuid != refusingWrites, let value = values[request.characteristic.uuid]
        else {
            return peripheral.respond(to: request, withResult: .readNotPermitted)
        }
        guard request.offset <= value.count else { return peripheral.respond(to: request, withResult: .invalidOffset) }
        request.value = value.subdata(in: request.offset..<value.count)
        peripheral.respond(to: request, withResult: .success)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        guard let first = requests.first else { return }
        // A write without response expects no answer.
        if first.characteristic.properties.contains(.writeWithoutResponse) { return }
        // The error service refuses every write with the application error 0x80, as apps answer
        // with their own codes.
        if requests.contains(where: { $0.characteristic.service?.uuid == refusingWrites }) {
            return peripheral.respond(to: first, withResult: CBATTError.Code(rawValue: 0x80)!)
        }
        // All or nothing: each part lands at its offset (a long write comes as several parts).
        var written = values
        for request in requests {
            let old = written[request.characteristic.uuid] ?? Data()
            guard request.offset <= old.count else { return peripheral.respond(to: first, withResult: .invalidOffset) }
            written[request.characteristic.uuid] = old.prefix(request.offset) + (request.value ?? Data())
        }
        values = written
        peripheral.respond(to: first, withResult: .success)
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic
    ) {
        guard characteristic.uuid == measurement.uuid, !notifying else { return }
        notifying = true
        after(0.05) { [weak self] in self?.notify() }
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic
    ) {
        if characteristic.uuid == measurement.uuid, measurement.subscribedCentrals?.isEmpty ?? true {
            notifying = false
        }
    }

    private func notify() {
        guard notifying, let manager else { return }
        _ = manager.updateValue(Data([0x00, beatsPerMinute]), for: measurement, onSubscribedCentrals: nil)
        beatsPerMinute &+= 1
        after(0.1) { [weak self] in self?.notify() }
    }
}
