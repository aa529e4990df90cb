import Foundation
import BLETraceCoreBluetooth

/// Apps shipped with bletrace, to replay captures against and to show how an app under test is
/// written.
public enum ReferenceApps {
    public struct Entry: Sendable {
        public var name: String
        public var summary: String
        public var make: @Sendable () -> any BluetoothApp
    }

    public static let all: [Entry] = [
        Entry(
            name: "reconnecting",
            summary: "connects to the first known peripheral; after a failed attempt or a disconnection it did not ask for, connects again",
            make: { ReconnectingApp() }),
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
