import BLETraceCoreBluetooth
import Foundation
import TestSupport
import Testing
import Wire

@testable import Flow
@testable import Replay

/// Connects to the first known peripheral, discovers everything, then runs `ready`.
final class ProbeApp: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
    var central: CBCentralManager?
    var launch: Launch?
    /// Kept, as an iOS app must keep it (iOS ends the connection of a peripheral the app lets go of).
    var peripheral: CBPeripheral?
    let ready: (CBPeripheral, Launch) -> Void
    var values: [Data?] = []
    var errors: [String] = []
    private var discovering = 0

    init(ready: @escaping (CBPeripheral, Launch) -> Void) { self.ready = ready }

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
        discovering = 1
        peripheral.discoverServices(nil)
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        for service in peripheral.services ?? [] {
            discovering += 1
            peripheral.discoverCharacteristics(nil, for: service)
        }
        done(peripheral)
    }
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        for characteristic in service.characteristics ?? [] where characteristic.properties.contains(.notify) {
            discovering += 1
            peripheral.discoverDescriptors(for: characteristic)
        }
        done(peripheral)
    }
    func peripheral(
        _ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: Error?
    ) {
        done(peripheral)
    }
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        values.append(error == nil ? characteristic.value : nil)
        if let error { errors.append("\(error)") }
    }
    private func done(_ peripheral: CBPeripheral) {
        discovering -= 1
        if discovering == 0, peripheral.state == .connected { ready(peripheral, launch!) }
    }
}

func characteristic(_ uuid: String, of peripheral: CBPeripheral) -> CBCharacteristic {
    (peripheral.services ?? []).flatMap { $0.characteristics ?? [] }.first { $0.uuid == CBUUID(string: uuid) }!
}

func replay(_ capture: String, _ app: any BluetoothApp, unmatched: UnmatchedPolicy = .pend) async throws -> (
    Flow, Cassette, ReplayEngine
) {
    let (cassette, _) = try Cassette.load(path: Fixtures.capture(capture))
    let engine = ReplayEngine(cassette: cassette)
    engine.unmatched = unmatched
    let flow = await engine.run(app, name: "probe")
    return (flow, cassette, engine)
}

@Suite struct GATTReplayTests {
    static let aaa1 = "0000AAA1-0000-1000-8000-00805F9B34FB"

    @Test func theNthReadGetsTheCapturesNthAnswerThenTheLast() async throws {
        let app = ProbeApp { peripheral, _ in
            for _ in 0..<3 { peripheral.readValue(for: characteristic(Self.aaa1, of: peripheral)) }
        }
        // The capture discovered the characteristics of one service only: the others fail at once.
        let (_, cassette, _) = try await replay("peer-disconnect.btsnoop", app, unmatched: .error)
        let captured = cassette.answers(for: .read, handle: 0x0018, on: cassette.peers[0]).map { Data($0.value) }
        #expect(captured.count == 2 && captured[0] != captured[1])
        #expect(app.values == [captured[0], captured[1], captured[1]])
    }

    @Test func anEarlyRequestIsAnsweredAtTheCapturesTimeALateOneAfterItsLatency() async throws {
        let early = ProbeApp { peripheral, _ in peripheral.readValue(for: characteristic(Self.aaa1, of: peripheral)) }
        let (earlyFlow, cassette, _) = try await replay("att-errors.btsnoop", early)
        let operation = try #require(cassette.answers(for: .read, handle: 0x0018, on: cassette.peers[0]).first)
        let answered = try #require(earlyFlow.events.last { $0.name == "didUpdateValueFor" })
        #expect(answered.time == operation.answerTime?.seconds(since: cassette.start))
        let late = ProbeApp { peripheral, launch in
            launch.asyncAfter(5) { peripheral.readValue(for: characteristic(Self.aaa1, of: peripheral)) }
        }
        let (lateFlow, _, _) = try await replay("att-errors.btsnoop", late)
        let asked = try #require(lateFlow.events.last { $0.name == "readValue" }?.time)
        let lateAnswer = try #require(lateFlow.events.last { $0.name == "didUpdateValueFor" }?.time)
        #expect(abs(lateAnswer - asked - (operation.latency ?? -1)) < 1e-6)
        #expect(lateAnswer > 5)
    }

    @Test func anATTErrorIsTheCBATTErrorOfTheCapturesAnswer() async throws {
        let app = ProbeApp { peripheral, _ in peripheral.readValue(for: characteristic("EEE1", of: peripheral)) }
        _ = try await replay("att-errors.btsnoop", app)
        #expect(app.errors == ["CBATTError.readNotPermitted"])
    }

    @Test(arguments: [UnmatchedPolicy.pend, .error, .fail])
    func aRequestTheCaptureCannotAnswerFollowsTheUnmatchedPolicy(_ policy: UnmatchedPolicy) async throws {
        // The capture never reads the Body Sensor Location (2A38).
        let app = ProbeApp { peripheral, launch in
            peripheral.readValue(for: characteristic("2A38", of: peripheral))
            launch.asyncAfter(0) { peripheral.readValue(for: characteristic(Self.aaa1, of: peripheral)) }
        }
        let (flow, _, engine) = try await replay("att-errors.btsnoop", app, unmatched: policy)
        #expect(
            flow.comments.contains {
                $0.hasPrefix(
                    "divergence: F0:F1:F2:F3:F4:05 readValue: the capture never shows readValue on handle 0x0013")
            })
        switch policy {
        case .pend:
            // Never answered, so the read queued behind it never goes either.
            #expect(app.values.isEmpty)
            #expect(!engine.failed)
        case .error:
            #expect(app.errors.first == "CBATTError.unlikelyError")
            #expect(app.values.count == 2)
        case .fail:
            #expect(engine.failed)
            #expect(flow.events.last?.name == "readValue")
        }
    }

    @Test func notificationsReachOnlyCharacteristicsTheAppSubscribedTo() async throws {
        let subscriber = ProbeApp { peripheral, _ in
            peripheral.setNotifyValue(true, for: characteristic("2A37", of: peripheral))
        }
        let (flow, cassette, _) = try await replay("restore-notifying.btsnoop", subscriber)
        let subscribed = try #require(flow.events.first { $0.name == "didUpdateNotificationStateFor" }?.time)
        let captured = cassette.notifications(of: cassette.peers[0], handle: 0x0010)
            .filter { $0.time.seconds(since: cassette.start) >= subscribed }
        #expect(
            flow.events.filter { $0.name == "didUpdateValueFor" }.map { $0.argument("value") }
                == captured.map { FlowRecord.Value.text(of: $0.value) })
        #expect(!captured.isEmpty)

        let bystander = ProbeApp { _, _ in }
        let (quiet, _, _) = try await replay("restore-notifying.btsnoop", bystander)
        #expect(!quiet.events.contains { $0.name == "didUpdateValueFor" })
        #expect(
            quiet.comments.contains {
                $0.contains(
                    "notifications or indications of the capture went to characteristics the app had not subscribed to")
            })
    }

    /// iOS exchanges its own MTU before `didConnect` (IOSMTUTests): the write length is iOS's
    /// from the first callback on, not the capture host's after its exchange.
    @Test func iOSsMTUSetsTheWriteLengthFromTheConnection() async throws {
        var lengths: [Int] = []
        let app = ProbeApp { peripheral, launch in
            lengths.append(peripheral.maximumWriteValueLength(for: .withoutResponse))
            launch.asyncAfter(0.2) { lengths.append(peripheral.maximumWriteValueLength(for: .withoutResponse)) }
        }
        let (_, cassette, _) = try await replay("reconnect-supervision-timeout.btsnoop", app)
        let link = try #require(cassette.links(of: cassette.peers[0]).first)
        let mtu = try #require(link.mtu)
        // The same length from discovery on (it ends, at the capture's times, after the capture's
        // MTU exchange): the smaller of iOS's 185 and the peer's 247.
        #expect(mtu == 247)
        #expect(lengths == [182, 182])
    }

    final class ScanApp: NSObject, BluetoothApp, CBCentralManagerDelegate {
        let services: [CBUUID]?
        let duplicates: Bool
        var central: CBCentralManager?
        var seen = 0
        init(services: [CBUUID]?, duplicates: Bool) { (self.services, self.duplicates) = (services, duplicates) }
        func didFinishLaunching(_ launch: Launch) { central = CBCentralManager(delegate: self, queue: nil) }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            central.scanForPeripherals(
                withServices: services, options: [CBCentralManagerScanOptionAllowDuplicatesKey: duplicates])
        }
        func centralManager(
            _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
            rssi RSSI: NSNumber
        ) {
            seen += 1
        }
    }

    @Test(arguments: [(nil, false), (nil, true), ("180D", false), ("FFF0", false)] as [(String?, Bool)])
    func aScanGetsTheCapturesAdvertisingReportsFilteredAsCoreBluetoothFiltersThem(
        _ service: String?, _ duplicates: Bool
    ) async throws {
        let app = ScanApp(services: service.map { [CBUUID(string: $0)] }, duplicates: duplicates)
        let (flow, cassette, _) = try await replay("scan.btsnoop", app)
        let reports = cassette.discoveries(
            services: service.map { [CBUUID(string: $0).bluetoothUUID] }, allowDuplicates: duplicates)
        // Without duplicates, CoreBluetooth reports each peripheral once per scan.
        let expected = duplicates ? reports.count : Set(reports.map(\.peer)).count
        #expect(app.seen == expected)
        #expect(flow.events.filter { $0.name == "didDiscover" }.count == expected)
        if service == "180D" { #expect(expected > 0) }
        if service == "FFF0" { #expect(expected == 0) }
    }

    @Test func aNewScanReportsAPeripheralAgainThatAnEarlierScanReported() async throws {
        final class Rescan: NSObject, BluetoothApp, CBCentralManagerDelegate {
            var central: CBCentralManager?
            var launch: Launch?
            var seen: [String] = []
            func didFinishLaunching(_ launch: Launch) {
                self.launch = launch
                central = CBCentralManager(delegate: self, queue: nil)
            }
            func centralManagerDidUpdateState(_ central: CBCentralManager) {
                central.scanForPeripherals(withServices: nil)
                // The capture's device advertises over about a second: scan again within it.
                launch?.asyncAfter(0.5) { central.stopScan() }
                launch?.asyncAfter(0.6) { central.scanForPeripherals(withServices: nil) }
            }
            func centralManager(
                _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
                rssi RSSI: NSNumber
            ) {
                seen.append("\(peripheral.address!)")
            }
        }
        let app = Rescan()
        let (flow, cassette, _) = try await replay("scan.btsnoop", app)
        let device = try #require(cassette.scans.first?.devices.first)
        #expect(app.seen == ["\(device.address)", "\(device.address)"])
        #expect(
            flow.events.map(\.name).filter { ["scanForPeripherals", "didDiscover", "stopScan"].contains($0) }
                == ["scanForPeripherals", "didDiscover", "stopScan", "scanForPeripherals", "didDiscover"])
    }
}

/// Insufficient Authentication: iOS pairs and sends the request again; the app sees the result.
@Suite struct PairingReplayTests {
    @Test func aRequestRefusedForSecurityThenRetriedAfterPairingSucceedsOnce() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("pairing-retry.btsnoop"))
        let peer = cassette.peers[0]
        let writes = cassette.answers(for: .write, handle: 0x001F, on: peer)
        // The capture: refused with 0x05, encryption, then the same write again, accepted.
        #expect(writes.map { $0.error?.rawValue } == [0x05, nil])
        #expect(
            cassette.links(of: peer).flatMap(\.security).contains {
                if case .encryptionChanged(true, _) = $0.kind { true } else { false }
            })
        let flow = await ReplayEngine(cassette: cassette).run(
            ReferenceApps.named("mirror")!.make(for: cassette), name: "mirror")
        let eee3 = flow.events.filter { $0.argument("characteristic") == "EEE3" }
        #expect(eee3.map(\.name) == ["writeValue", "didWriteValueFor"])
        #expect(eee3.last?.argument("error") == "nil")
        #expect(eee3.last?.time == writes[1].answerTime?.seconds(since: cassette.start))
    }

    @Test func withNoRetryInTheCaptureTheAppGetsTheError() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("att-errors.btsnoop"))
        let flow = await ReplayEngine(cassette: cassette).run(
            ReferenceApps.named("mirror")!.make(for: cassette), name: "mirror")
        let answer = try #require(
            flow.events.first { $0.name == "didWriteValueFor" && $0.argument("characteristic") == "EEE3" })
        #expect(answer.argument("error") == "CBATTError.insufficientAuthentication")
        #expect(flow.comments.contains { $0.contains("the capture shows no retry") })
    }
}
