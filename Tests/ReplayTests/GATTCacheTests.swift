import BLETraceCoreBluetooth
import Foundation
import Lifecycle
import TestSupport
import Testing
import Wire

@testable import Replay

/// iOS's GATT cache of a bonded peer (Formats/corebluetooth.md, "iOS on its own"), on the Bumble
/// capture `bonded-database-changed` (Captures/README.md): connection 1 discovers Heart Rate at
/// 0x000E-0x0015 and bonds; the accessory's database then changes with no Service Changed; the
/// capture's host discovers again on connection 2 and finds 0xAAB0 where Heart Rate was, and
/// 0xAAA0 moved down so that its value is at 0x0013.
@Suite struct GATTCacheTests {
    static let path = Fixtures.capture("bonded-database-changed.btsnoop")

    /// Connects, discovers every service and characteristic, reads Body Sensor Location (2A38),
    /// writes the Heart Rate Control Point (2A39), then hangs up and does it all once more.
    final class CacheProbe: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
        var central: CBCentralManager?
        var known: [UUID] = []
        var target: CBPeripheral?
        var connection = 0
        var heard: [String] = []
        var pending = 0

        func didFinishLaunching(_ launch: Launch) {
            known = launch.knownPeripherals
            central = CBCentralManager(delegate: self, queue: nil)
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            target = central.retrievePeripherals(withIdentifiers: known).first
            if let target { central.connect(target) }
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            connection += 1
            peripheral.delegate = self
            peripheral.discoverServices(nil)
        }
        func centralManager(
            _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
        ) {
            if connection == 1 { central.connect(peripheral) }
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
            let services = peripheral.services ?? []
            heard.append("\(connection) services \(services.map(\.uuid.uuidString).joined(separator: ","))")
            for service in services { peripheral.discoverCharacteristics(nil, for: service) }
        }
        func peripheral(
            _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?
        ) {
            for characteristic in service.characteristics ?? [] {
                switch characteristic.uuid.uuidString {
                case "2A38":
                    pending += 1
                    peripheral.readValue(for: characteristic)
                case "2A39":
                    pending += 1
                    peripheral.writeValue(Data([0x01]), for: characteristic, type: .withResponse)
                default: break
                }
            }
        }
        func peripheral(
            _ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?
        ) {
            let value = characteristic.value.map { String(decoding: $0, as: UTF8.self) } ?? "nil"
            heard.append("\(connection) read \(characteristic.uuid.uuidString) \(error.map { "\($0)" } ?? value)")
            done(peripheral)
        }
        func peripheral(
            _ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?
        ) {
            heard.append("\(connection) write \(characteristic.uuid.uuidString) \(error.map { "\($0)" } ?? "ok")")
            done(peripheral)
        }
        func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
            heard.append("\(connection) didModifyServices")
        }
        private func done(_ peripheral: CBPeripheral) {
            pending -= 1
            if pending == 0, connection == 1 { central?.cancelPeripheralConnection(peripheral) }
        }
    }

    @Test func aBondedReconnectionShowsTheAppTheDatabaseIOSKept() async throws {
        let (cassette, _) = try Cassette.load(path: Self.path)
        let app = CacheProbe()
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "cache-probe")
        // Connection 2: the Heart Rate service iOS kept, no didModifyServices; 0x0013 is the
        // peer's AAA1 now ("bletrace"), and 0x0015 is nothing: Invalid Handle.
        #expect(
            app.heard == [
                "1 services 180D,AAA0", "1 read 2A38 \u{01}", "1 write 2A39 ok",
                "2 services 180D,AAA0", "2 read 2A38 bletrace",
                "2 write 2A39 CBATTError.invalidHandle",
            ], "\(app.heard)\n\(flow.text)")
        #expect(flow.comments.contains { $0.contains("iOS keeps the one it discovered then") })
        #expect(flow.comments.contains { $0.contains("has no attribute there now; Invalid Handle") })
    }

    @Test func theCassetteKeepsEachConnectionsDatabaseAndIOSsOne() throws {
        let (cassette, _) = try Cassette.load(path: Self.path)
        let links = cassette.links.sorted { $0.connection < $1.connection }
        #expect(links.count == 2)
        let uuids = { (database: GATTDatabase?) in database?.services.map { "\($0.uuid)" } ?? [] }
        // Each connection's own database, not one merged from both.
        #expect(uuids(links[0].database).contains("180D"))
        #expect(!uuids(links[1].database).contains("180D"))
        #expect(uuids(links[1].database).contains("AAB0"))
        // The bonded reconnection keeps connection 1's.
        #expect(links[0].phoneDatabase == nil)
        #expect(links[1].phoneDatabaseConnection == links[0].connection)
        #expect(uuids(links[1].phoneDatabase) == uuids(links[0].database))
    }

    /// The same database on every connection (values change, handles do not): nothing kept apart.
    @Test func aPeerWhoseDatabaseStaysTheSameHasOneDatabase() throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("reconnect-answers-differ.btsnoop"))
        #expect(cassette.links.allSatisfy { $0.phoneDatabase == nil })
        let analysis = try TraceAnalysis(path: Fixtures.capture("reconnect-answers-differ.btsnoop"))
        #expect(analysis.gatt.count == 1)
    }
}
