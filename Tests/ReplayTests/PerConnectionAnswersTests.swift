import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Foundation
import Lifecycle
import TestSupport
import Testing
import Wire

@testable import Flow
@testable import Replay

/// Connects, discovers, reads Body Sensor Location and subscribes to Heart Rate Measurement on
/// every connection; after the answers it hangs up, and it connects again after each
/// disconnection, `connections` times in all.
final class ReconnectingReader: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager?
    var launch: Launch?
    /// Kept, as an iOS app must keep it (iOS ends the connection of a peripheral the app lets go of).
    var peripheral: CBPeripheral?
    var connections: Int
    /// Per connection: the value read (hex) or the error; the notification state or the error.
    var reads: [String] = []
    var subscriptions: [String] = []
    private var discovering = 0
    private var waiting = 0

    init(connections: Int) { self.connections = connections }

    func didFinishLaunching(_ launch: Launch) {
        self.launch = launch
        central = CBCentralManager(delegate: self, queue: nil)
    }
    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard
            let peripheral = central.retrievePeripherals(withIdentifiers: Array(launch!.knownPeripherals.prefix(1)))
                .first
        else { return }
        self.peripheral = peripheral
        peripheral.delegate = self
        central.connect(peripheral)
    }
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        connections -= 1
        discovering = 1
        peripheral.discoverServices(nil)
    }
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {
        if connections > 0 { central.connect(peripheral) }
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        for service in peripheral.services ?? [] {
            discovering += 1
            peripheral.discoverCharacteristics(nil, for: service)
        }
        discovered(peripheral)
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        for characteristic in service.characteristics ?? [] where characteristic.properties.contains(.notify) {
            discovering += 1
            peripheral.discoverDescriptors(for: characteristic)
        }
        discovered(peripheral)
    }
    func peripheral(
        _ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        discovered(peripheral)
    }
    private func discovered(_ peripheral: CBPeripheral) {
        discovering -= 1
        guard discovering == 0, peripheral.state == .connected else { return }
        waiting = 2
        peripheral.readValue(for: characteristic("2A38", of: peripheral))
        peripheral.setNotifyValue(true, for: characteristic("2A37", of: peripheral))
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        guard characteristic.uuid == CBUUID(string: "2A38") else { return }
        reads.append(
            error.map { "\($0)" } ?? characteristic.value.map { $0.map { String(format: "%02x", $0) }.joined() }
                ?? "nil")
        answered(peripheral)
    }
    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        subscriptions.append(error.map { "\($0)" } ?? "\(characteristic.isNotifying)")
        answered(peripheral)
    }
    private func answered(_ peripheral: CBPeripheral) {
        waiting -= 1
        if waiting == 0, connections > 0 { central?.cancelPeripheralConnection(peripheral) }
    }
}

/// Each connection of a capture keeps its own answers: a peer that answered differently on
/// each connection answers the app's connections as it answered the capture's.
@Suite struct PerConnectionAnswersTests {
    static let capture = "reconnect-answers-differ.btsnoop"

    @Test func eachConnectionOfTheAppGetsTheAnswersOfTheCapturesConnectionItPlays() async throws {
        let app = ReconnectingReader(connections: 3)
        let (flow, cassette, _) = try await replay(Self.capture, app)
        #expect(cassette.links.count == 3)
        // The capture, read independently: connection 1 read 01 and was refused the
        // subscription; connection 2 read 02 and subscribed; connection 3 read an error.
        let reads = cassette.links.map { link in link.operations.first { $0.kind == .read && $0.handle == 0x0013 } }
        #expect(reads.map { $0?.value } == [[0x01], [0x02], []])
        #expect(reads.map { $0?.error?.rawValue } == [nil, nil, 0x0E])
        #expect(app.reads == ["01", "02", "CBATTError.unlikelyError"])
        // Connection 3 never subscribed in the capture: answered as connection 2 answered it
        // (the latest connection before it that did), and the flow says so.
        #expect(app.subscriptions == ["CBATTError.insufficientAuthorization", "true", "true"])
        #expect(
            flow.comments.contains {
                $0.contains("connection 3 of the capture never made setNotifyValue")
                    && $0.contains("answered as connection 2")
            })
    }

    @Test func theMirrorReplaysEachConnectionsRequestsOnThatConnection() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture(Self.capture))
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        let events = flow.events
        let connects = events.indices.filter { events[$0].name == "didConnect" }
        #expect(connects.count == 3)
        func between(_ i: Int) -> ArraySlice<FlowEvent> {
            events[connects[i]..<(i + 1 < connects.count ? connects[i + 1] : events.endIndex)]
        }
        let reads = (0..<3).map { i in
            between(i).filter { $0.name == "didUpdateValueFor" && $0.argument("characteristic") == "2A38" }
        }
        #expect(
            reads.map { $0.map { $0.argument("value") ?? $0.argument("error") ?? "" } } == [
                ["01"], ["02"], ["CBATTError.unlikelyError"],
            ])
        let states = (0..<3).map { i in
            between(i).filter { $0.name == "didUpdateNotificationStateFor" }.map { $0.argument("error") ?? "" }
        }
        #expect(states == [["CBATTError.insufficientAuthorization"], ["nil"], []])
        // Connection 3 used handles cached from before, with no discovery: the mirror discovers
        // (as a CoreBluetooth app does) and makes its read and its write.
        #expect(between(2).contains { $0.name == "discoverServices" })
        #expect(
            between(2).contains {
                $0.name == "didWriteValueFor" && $0.argument("characteristic") == "2A39"
                    && $0.argument("error") == "nil"
            })
        #expect(!flow.comments.contains { $0.contains("never made") })
    }

    /// A capture of one connection to F0:F1:F2:F3:F4:05 whose discovery finds Body Sensor
    /// Location (0x0003), then a Read Request of it that the peer never answers; the link ends
    /// (reason 0x13) `end` seconds after the read, or never when nil.
    /// ACL on handle 0x0040 carrying `pdu` in one L2CAP frame on the ATT channel.
    static func att(_ pdu: String) -> String {
        let count = Wire.bytes(hex: pdu)!.count
        func le16(_ v: Int) -> String { String(format: "%02x%02x", v & 0xFF, v >> 8) }
        return "4000 \(le16(count + 4)) \(le16(count)) 0400 \(pdu)"
    }

    /// The cassette of `records`, numbered in order.
    static func cassette(_ records: [OwnedRecord]) -> Cassette {
        var recorder = CassetteRecorder()
        for (index, var record) in records.enumerated() {
            record.index = index
            record.withRecord { recorder.add($0) }
        }
        return recorder.cassette()
    }

    /// LE Connection Complete (handle 0x0040, F0:F1:F2:F3:F4:05) at +0.1, then discovery from +0.2
    /// finding one service (0x0001-0x0005, `service` as its little-endian hex, "0d18" for 180D)
    /// with one characteristic of `properties` whose value is 0x0003 (`characteristic`, "382a").
    static func connectedAndDiscovered(service: String, properties: String, characteristic: String) -> [OwnedRecord] {
        [
            OwnedRecord(
                kind: .event, direction: .received, hex: "3e 13 01 00 4000 00 01 05f4f3f2f1f0 2800 0000 2a00 00",
                time: 100_000),
            OwnedRecord(kind: .acl, direction: .sent, hex: att("10 0100 ffff 0028"), time: 200_000),
            OwnedRecord(kind: .acl, direction: .received, hex: att("11 06 0100 0500 " + service), time: 210_000),
            OwnedRecord(kind: .acl, direction: .sent, hex: att("08 0100 0500 0328"), time: 220_000),
            OwnedRecord(
                kind: .acl, direction: .received, hex: att("09 07 0200 \(properties) 0300 \(characteristic)"),
                time: 230_000),
        ]
    }

    static func unansweredRead(linkEndsAfter end: Double?) -> Cassette {
        var records =
            connectedAndDiscovered(service: "0d18", properties: "02", characteristic: "382a") + [
                OwnedRecord(kind: .acl, direction: .sent, hex: att("0a 0300"), time: 1_000_000)
            ]
        records.append(
            end.map {
                OwnedRecord(
                    kind: .event, direction: .received, hex: "05 04 00 4000 13", time: 1_000_000 + Int64($0 * 1_000_000)
                )
                // Number Of Completed Packets
            } ?? OwnedRecord(kind: .event, direction: .received, hex: "13 05 01 4000 0100", time: 45_000_000))
        return cassette(records)
    }

    @Test func aRequestLeftUnansweredWhenTheCapturedLinkEndedInventsNoTimeout() async throws {
        let app = ProbeApp { peripheral, _ in peripheral.readValue(for: characteristic("2A38", of: peripheral)) }
        let cassette = Self.unansweredRead(linkEndsAfter: 1)
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "probe")
        #expect(flow.events.contains { $0.name == "readValue" })
        // No answer and no timeout: the read ends with the link, as the capture's did.
        #expect(
            flow.events.filter { $0.name == "didUpdateValueFor" }.allSatisfy {
                $0.argument("error") == "CBError.peripheralDisconnected"
            })
        #expect(!flow.events.contains { $0.argument("error") == "CBError.connectionTimeout" })
        let disconnection = try #require(flow.events.first { $0.name == "didDisconnectPeripheral" })
        #expect(disconnection.argument("error") == "CBError.peripheralDisconnected")
        #expect(flow.comments.contains { $0.contains("had not answered readValue on 0x0003 when the link ended") })
    }

    @Test func aRequestTheCaptureLeftUnansweredForThirtySecondsTimesOut() async throws {
        let cassette = Self.unansweredRead(linkEndsAfter: nil)
        func disconnection(_ platform: Platform) async throws -> FlowEvent {
            let app = ProbeApp { peripheral, _ in peripheral.readValue(for: characteristic("2A38", of: peripheral)) }
            let engine = ReplayEngine(cassette: cassette)
            engine.platform = platform
            let flow = await engine.run(app, name: "probe")
            #expect(!flow.events.contains { $0.name == "didUpdateValueFor" })
            let read = try #require(flow.events.first { $0.name == "readValue" }?.time)
            let disconnection = try #require(flow.events.first { $0.name == "didDisconnectPeripheral" })
            #expect(disconnection.time.map { abs($0 - read - 30) < 0.000_001 } == true)
            return disconnection
        }
        // 30 s after the read, with no error: the one observation found (F-2).
        let byDefault = try await disconnection(Platform())
        #expect(byDefault.argument("error") == "nil")
        // The other reading, by choice.
        let chosen = try await disconnection(Platform(attTimeoutError: CBError(.connectionTimeout)))
        #expect(chosen.argument("error") == "CBError.connectionTimeout")
    }

    @Test func aWriteWithoutResponseThatFitsTheExchangedMTUIsSent() async throws {
        // Exchange MTU 512/503, discovery of a write-without-response characteristic (0x0003),
        // then the captured app's 31-byte Write Command: more than 20 bytes, less than 503 − 3.
        let att = Self.att
        let value = String(repeating: "ab", count: 31)
        let records = [
            OwnedRecord(
                kind: .event, direction: .received, hex: "3e 13 01 00 4000 00 01 05f4f3f2f1f0 2800 0000 2a00 00",
                time: 100_000),
            OwnedRecord(kind: .acl, direction: .sent, hex: att("02 0002"), time: 150_000),
            OwnedRecord(kind: .acl, direction: .received, hex: att("03 f701"), time: 160_000),
            OwnedRecord(kind: .acl, direction: .sent, hex: att("10 0100 ffff 0028"), time: 200_000),
            OwnedRecord(kind: .acl, direction: .received, hex: att("11 06 0100 0500 f0ff"), time: 210_000),
            OwnedRecord(kind: .acl, direction: .sent, hex: att("08 0100 0500 0328"), time: 220_000),
            OwnedRecord(kind: .acl, direction: .received, hex: att("09 07 0200 04 0300 f1ff"), time: 230_000),
            OwnedRecord(kind: .acl, direction: .sent, hex: att("52 0300 " + value), time: 1_000_000),
            OwnedRecord(kind: .event, direction: .received, hex: "05 04 00 4000 13", time: 2_000_000),
        ]
        let cassette = Self.cassette(records)
        #expect(cassette.links.first?.mtu == 503)
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        let write = try #require(flow.events.first { $0.name == "writeValue" })
        #expect(write.argument("value") == value)
        #expect(!flow.comments.contains { $0.contains("API MISUSE") })
    }
}
