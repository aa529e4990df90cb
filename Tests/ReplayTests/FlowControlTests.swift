import BLETraceCoreBluetooth
import Dispatch
import Foundation
import TestSupport
import Testing

@testable import Replay

/// Writes without response against the capture host's controller buffers
/// (Formats/corebluetooth.md, "What iOS does on its own", flow control).
@Suite struct FlowControlTests {

    /// Writes two values without response once discovery is done, and one more at the first
    /// ready callback; notes `canSendWriteWithoutResponse` after each write.
    final class FlowControlApp: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
        var central: CBCentralManager?
        var target: CBPeripheral?
        var known: [UUID] = []
        var characteristic: CBCharacteristic?
        var canSendAfterEachWrite: [Bool] = []
        var ready = 0
        func didFinishLaunching(_ launch: Launch) {
            known = launch.knownPeripherals
            central = CBCentralManager(delegate: self, queue: nil)
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            target = central.retrievePeripherals(withIdentifiers: known).first
            if let target { central.connect(target) }
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            peripheral.delegate = self
            peripheral.discoverServices(nil)
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
            for service in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: service) }
        }
        func peripheral(
            _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?
        ) {
            characteristic = service.characteristics?.first
            write(peripheral)
            write(peripheral)
        }
        func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
            ready += 1
            if ready == 1 { write(peripheral) }
        }
        func write(_ peripheral: CBPeripheral) {
            guard let characteristic else { return }
            peripheral.writeValue(Data(repeating: 1, count: 10), for: characteristic, type: .withoutResponse)
            canSendAfterEachWrite.append(peripheral.canSendWriteWithoutResponse)
        }
    }

    /// A controller of two 27-byte LE ACL buffers (LE Read Buffer Size at the start, when
    /// `buffers`), one connection whose only characteristic (0x0003) takes writes without
    /// response, and one packet completed on it at +1.5 and at +2.0.
    static func twoBuffers(_ buffers: Bool) -> Cassette {
        let att = PerConnectionAnswersTests.att
        var records = [OwnedRecord(kind: .event, direction: .received, hex: "0e 07 01 0220 00 1b00 02", time: 0)]
        if !buffers { records.removeAll() }
        records += [
            OwnedRecord(
                kind: .event, direction: .received, hex: "3e 13 01 00 4000 00 01 05f4f3f2f1f0 2800 0000 2a00 00",
                time: 100_000),
            OwnedRecord(kind: .acl, direction: .sent, hex: att("10 0100 ffff 0028"), time: 200_000),
            OwnedRecord(kind: .acl, direction: .received, hex: att("11 06 0100 0500 f0ff"), time: 210_000),
            OwnedRecord(kind: .acl, direction: .sent, hex: att("08 0100 0500 0328"), time: 220_000),
            OwnedRecord(kind: .acl, direction: .received, hex: att("09 07 0200 04 0300 f1ff"), time: 230_000),
            OwnedRecord(kind: .event, direction: .received, hex: "13 05 01 4000 0100", time: 1_500_000),
            OwnedRecord(kind: .event, direction: .received, hex: "13 05 01 4000 0100", time: 2_000_000),
            OwnedRecord(kind: .event, direction: .received, hex: "05 04 00 4000 13", time: 3_000_000),
        ]
        return PerConnectionAnswersTests.cassette(records)
    }

    @Test func writesWithoutResponseFillTheControllersBuffersAndItsCompletionsFreeThem() async {
        let cassette = Self.twoBuffers(true)
        #expect(cassette.controllerBuffers == Cassette.ControllerBuffers(packets: 2, length: 27))
        let app = FlowControlApp()
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "writer")
        #expect(app.canSendAfterEachWrite == [true, false, false])
        #expect(app.ready == 2)
        let ready = flow.events.filter { $0.name == "isReadyToSendWriteWithoutResponse" }
        #expect(ready.map(\.time) == [1.5, 2.0])
        #expect(ready.first?.signature == "peripheral isReadyToSendWriteWithoutResponse peripheral=F0:F1:F2:F3:F4:05")
    }

    @Test func aCaptureThatDoesNotShowTheBufferCountModelsNoQueue() async {
        let app = FlowControlApp()
        let flow = await ReplayEngine(cassette: Self.twoBuffers(false)).run(app, name: "writer")
        #expect(app.canSendAfterEachWrite == [true, true])
        #expect(!flow.events.contains { $0.name == "isReadyToSendWriteWithoutResponse" })
    }

    @Test func aPeripheralManagersUpdateIsNotSentWhileTheBuffersAreFullAndTheReadyCallbackFollows() async throws {
        // The bundled capture of a central that subscribes, then hangs up, with a controller of
        // one buffer that frees it once, 0.12 s after the subscription.
        let plain = try load("peripheral-disconnect-mid-notification.btsnoop")
        let reference = TestServerApp(services: serverServices(plain))
        reference.notifyEvery = 0.05
        let unbuffered = await ReplayEngine(cassette: plain).run(reference, name: "streaming")
        #expect(!unbuffered.events.contains { $0.argument("result") == "false" })
        let subscribed = try #require(unbuffered.events.first { $0.name == "didSubscribeTo" }?.time)
        var cassette = plain
        let central = try #require(cassette.centrals.first)
        let connection = try #require(cassette.centralEpisodes[central]?.last?.id)
        cassette.controllerBuffers = Cassette.ControllerBuffers(packets: 1, length: 27)
        let freed = cassette.start.adding(microseconds: Int64((subscribed + 0.12) * 1e6))
        cassette.completions = [connection: [Cassette.Completion(time: freed, packets: 1)]]
        let app = TestServerApp(services: serverServices(cassette))
        app.notifyEvery = 0.05
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "streaming")
        let updates = flow.events.filter { $0.name == "updateValue" && $0.argument("centrals") == "\(central)" }
        #expect(updates.first?.argument("result") == nil)
        #expect(updates.dropFirst().first?.argument("result") == "false")
        let ready = flow.events.filter { $0.name == "isReadyToUpdateSubscribers" }
        #expect(ready.first.map { abs(($0.time ?? 0) - (subscribed + 0.12)) < 1e-6 } == true)
        #expect(ready.first?.actor == "peripheralManager")
    }
}
