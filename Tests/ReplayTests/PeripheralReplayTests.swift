import ATT
import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Foundation
import Lifecycle
import TestSupport
import Testing
import Wire

@testable import Flow
@testable import Replay

/// A peripheral-manager app for the tests: publishes the services the capture's remote centrals
/// discovered on this host (all but Generic Access and Generic Attribute), advertises, and answers
/// as its closures say (nil: never answers).
final class TestServerApp: NSObject, BluetoothApp, CBPeripheralManagerDelegate {
    let services: [GATTDatabase.Service]
    var read: (CBATTRequest) -> (CBATTError.Code, Data?)? = { _ in (.success, Data()) }
    var write: ([CBATTRequest]) -> CBATTError.Code? = { _ in .success }
    /// Seconds between notifications of every notifying characteristic, from launch to the end.
    var notifyEvery: Double?
    var extraServices: [CBMutableService] = []
    /// Characteristics (by UUID) published read-only with a cached value.
    var cached: [String: Data] = [:]
    private(set) var manager: CBPeripheralManager?
    private(set) var published: [CBMutableService] = []
    private(set) var centralsSeen: [CBCentral] = []
    private(set) var writeArrays: [[CBATTRequest]] = []
    private var after: (Double, @escaping () -> Void) -> Void = { _, _ in }
    /// Opts the manager into restoration.
    var restoreIdentifier: String?
    private var restored = false

    init(services: [GATTDatabase.Service]) {
        self.services = services.filter { $0.uuid.shortValue != 0x1800 && $0.uuid.shortValue != 0x1801 }
    }

    func didFinishLaunching(_ launch: Launch) {
        after = launch.asyncAfter
        manager = CBPeripheralManager(
            delegate: self, queue: nil,
            options: restoreIdentifier.map { [CBPeripheralManagerOptionRestoreIdentifierKey: $0] })
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) {
        // The services and the advertising are the system's still: nothing to add again.
        restored = true
        published = dict[CBPeripheralManagerRestoredStateServicesKey] as? [CBMutableService] ?? []
    }

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard peripheral.state == .poweredOn, !restored else { return }
        for captured in services {
            let service = CBMutableService(type: CBUUID(bluetoothUUID: captured.uuid), primary: captured.isPrimary)
            service.characteristics = captured.characteristics.map {
                let uuid = CBUUID(bluetoothUUID: $0.uuid)
                if let value = cached[uuid.uuidString] {
                    return CBMutableCharacteristic(
                        type: uuid, properties: [.read], value: value, permissions: [.readable])
                }
                return CBMutableCharacteristic(
                    type: uuid, properties: CBCharacteristicProperties(rawValue: UInt($0.properties.rawValue)),
                    value: nil, permissions: [.readable, .writeable])
            }
            published.append(service)
        }
        for service in published + extraServices { peripheral.add(service) }
        peripheral.startAdvertising(nil)
        if let notifyEvery { after(notifyEvery) { [weak self] in self?.notify(every: notifyEvery) } }
    }

    private func notify(every seconds: Double) {
        for service in published {
            for case let characteristic as CBMutableCharacteristic in service.characteristics ?? []
            where characteristic.properties.contains(.notify) {
                _ = manager?.updateValue(Data([0x00, 0x01]), for: characteristic, onSubscribedCentrals: nil)
            }
        }
        after(seconds) { [weak self] in self?.notify(every: seconds) }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        centralsSeen.append(request.central)
        guard let (result, value) = read(request) else { return }
        request.value = value
        peripheral.respond(to: request, withResult: result)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        centralsSeen += requests.map(\.central)
        writeArrays.append(requests)
        guard let result = write(requests) else { return }
        peripheral.respond(to: requests[0], withResult: result)
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic
    ) {
        centralsSeen.append(central)
    }
}

/// What a capture's remote central asked this host's server, from the cassette.
struct CentralRequest {
    var link: Cassette.Link
    var exchange: Cassette.Exchange
    var central: BluetoothAddress
    var characteristic: GATTDatabase.Characteristic
    var service: GATTDatabase.Service
    /// The request wrote the characteristic's Client Characteristic Configuration.
    var isConfiguration: Bool
    var uuid: String { CBUUID(bluetoothUUID: characteristic.uuid).uuidString }
    var isSystemService: Bool { service.uuid.shortValue == 0x1800 || service.uuid.shortValue == 0x1801 }
    var time: Double
}

func centralRequests(_ cassette: Cassette) -> [CentralRequest] {
    var result: [CentralRequest] = []
    for link in cassette.links where link.hostRole == .peripheral {
        guard let central = link.peer, let database = link.localDatabase ?? cassette.peer(central)?.localDatabase else {
            continue
        }
        for exchange in link.exchanges where exchange.sender == .peer {
            guard let handle = exchange.handle,
                [ATTOpcode.readRequest, .readBlobRequest, .writeRequest, .writeCommand].contains(exchange.opcode)
            else { continue }
            for service in database.services {
                for characteristic in service.characteristics {
                    let isConfiguration = characteristic.descriptors.contains {
                        $0.handle == handle && $0.uuid == BluetoothUUID(UInt16(0x2902))
                    }
                    if characteristic.valueHandle == handle || isConfiguration {
                        result.append(
                            CentralRequest(
                                link: link, exchange: exchange, central: central, characteristic: characteristic,
                                service: service,
                                isConfiguration: isConfiguration, time: exchange.time.seconds(since: cassette.start)))
                    }
                }
            }
        }
    }
    return result
}

func load(_ name: String) throws -> Cassette {
    let (cassette, fault) = try Cassette.load(path: Fixtures.capture(name))
    #expect(fault == nil)
    return cassette
}

func serverServices(_ cassette: Cassette) -> [GATTDatabase.Service] {
    cassette.centrals.first.flatMap { cassette.peer($0)?.localDatabase?.services } ?? []
}

@Suite struct PeripheralReplayTests {
    @Test func theSensorServerReplaysToItsHandWrittenFlow() async throws {
        let cassette = try load("peripheral-server.btsnoop")
        let actual = await ReplayEngine(cassette: cassette).run(
            ReferenceApps.named("sensor-server")!.make(for: cassette), name: "sensor-server")
        let text = try String(contentsOfFile: Fixtures.capture("peripheral-server.sensor-server.flow"), encoding: .utf8)
        let diff = FlowDiff(expected: try Flow(parsing: text), actual: actual)
        #expect(diff.isEqual, "\(diff.report(expectedName: "expected", actualName: "actual"))")
    }

    @Test(arguments: ["peripheral-server.btsnoop", "peripheral-disconnect-mid-notification.btsnoop"])
    func everyRequestOfACentralReachesTheDelegateAtItsCaptureTime(capture: String) async throws {
        let cassette = try load(capture)
        #expect(cassette.hostRole == .peripheral)
        let requests = centralRequests(cassette).filter { !$0.isSystemService }
        #expect(!requests.isEmpty)
        var expected: [String] = []
        var times: [Double] = []
        for request in requests {
            let prefix = "central=\(request.central) characteristic=\(request.uuid)"
            switch request.exchange.opcode {
            case _ where request.isConfiguration:
                let enabled = request.exchange.value.contains { $0 != 0 }
                expected.append("peripheralManager \(enabled ? "didSubscribeTo" : "didUnsubscribeFrom") \(prefix)")
            case .readRequest, .readBlobRequest:
                expected.append("peripheralManager didReceiveRead \(prefix) offset=\(request.exchange.offset ?? 0)")
            default:
                let type = request.exchange.opcode == .writeCommand ? "withoutResponse" : "withResponse"
                expected.append(
                    "peripheralManager didReceiveWrite \(prefix) value=\(request.exchange.value.map { String(format: "%02x", $0) }.joined()) offset=0 type=\(type)"
                )
            }
            times.append(request.time)
        }
        // A central that hangs up while subscribed ends its subscriptions.
        var subscribed = Set<String>()
        for request in requests where request.isConfiguration {
            if request.exchange.value.contains(where: { $0 != 0 }) {
                subscribed.insert(request.uuid)
            } else {
                subscribed.remove(request.uuid)
            }
        }
        for central in cassette.centrals {
            for episode in cassette.centralEpisodes[central] ?? [] {
                guard let end = episode.disconnection?.time else { continue }
                for uuid in subscribed.sorted() {
                    expected.append("peripheralManager didUnsubscribeFrom central=\(central) characteristic=\(uuid)")
                    times.append(end.seconds(since: cassette.start))
                }
            }
        }
        let app = TestServerApp(services: serverServices(cassette))
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "test-server")
        let delivered = flow.events.filter {
            $0.actor == "peripheralManager"
                && ["didReceiveRead", "didReceiveWrite", "didSubscribeTo", "didUnsubscribeFrom"].contains($0.name)
        }
        #expect(delivered.map(\.signature) == expected)
        #expect(delivered.map { $0.time ?? -1 }.elementsEqual(times) { abs($0 - $1) < 1e-6 })
    }

    @Test func anAnswerLikeTheCapturedServersAddsNothingAndADifferentOneIsReported() async throws {
        let cassette = try load("peripheral-server.btsnoop")
        let app = TestServerApp(services: serverServices(cassette))
        // Reads get the capture's value with its last byte changed; writes all succeed.
        let reads = centralRequests(cassette).filter { $0.exchange.opcode == .readRequest && !$0.isSystemService }
        let writes = centralRequests(cassette).filter { $0.exchange.opcode == .writeRequest && !$0.isConfiguration }
        #expect(!reads.isEmpty && !writes.isEmpty)
        app.read = { request in
            let captured = reads.first { $0.uuid == request.characteristic.uuid.uuidString }!.exchange.answer!.value
            return (.success, Data(captured.dropLast() + [captured.last! ^ 0xFF]))
        }
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "test-server")
        var expected: [String] = []
        for request in (reads + writes).sorted(by: { $0.time < $1.time }) {
            let answer = request.exchange.answer!
            if request.exchange.opcode == .readRequest {
                let changed = answer.value.dropLast() + [answer.value.last! ^ 0xFF]
                expected.append(
                    "system answerDiffers central=\(request.central) characteristic=\(request.uuid) captured=\(FlowRecord.Value.text(of: answer.value)) app=\(FlowRecord.Value.text(of: Array(changed)))"
                )
            } else if let error = answer.error {
                expected.append(
                    "system answerDiffers central=\(request.central) characteristic=\(request.uuid) captured=\(CBATTError(errorCode: Int(error.rawValue))) app=success"
                )
            }
        }
        #expect(flow.events.filter { $0.name == "answerDiffers" }.map(\.signature) == expected)
        #expect(flow.comments.filter { $0.hasPrefix("divergence:") }.count == expected.count)
        // Every answer the app gave is in the flow (it answers the write command too).
        #expect(app.writeArrays.count == writes.count + 1)
        #expect(
            flow.events.filter { $0.actor == "app" && $0.name == "respond" }.count == reads.count
                + app.writeArrays.count)
    }

    @Test func aRequestTheAppNeverAnswersIsReportedWhenATTsTimeoutWouldEndIt() async throws {
        let cassette = try load("peripheral-server.btsnoop")
        let app = TestServerApp(services: serverServices(cassette))
        app.read = { _ in nil }
        app.write = { _ in nil }
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "silent")
        // Write commands and CCCD writes need no answer of the app.
        let owed = centralRequests(cassette).filter {
            !$0.isSystemService && !$0.isConfiguration && $0.exchange.opcode != .writeCommand
        }
        let noResponse = flow.events.filter { $0.name == "noResponse" }
        #expect(
            noResponse.map(\.signature)
                == owed.map {
                    "system noResponse central=\($0.central) characteristic=\($0.uuid) request=\($0.exchange.opcode == .readRequest ? "read" : "write")"
                })
        #expect(noResponse.map { $0.time ?? 0 }.elementsEqual(owed.map { $0.time + 30 }) { abs($0 - $1) < 1e-6 })
    }

    @Test func aWriteWithoutResponseIsDeliveredAndNeedsNoAnswer() async throws {
        let cassette = try load("peripheral-server.btsnoop")
        let commands = centralRequests(cassette).filter { $0.exchange.opcode == .writeCommand }
        #expect(commands.count == 1)
        let app = TestServerApp(services: serverServices(cassette))
        app.write = { _ in .success }  // answers even the command: allowed, and nothing is sent
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "test-server")
        let uuid = commands[0].uuid
        #expect(
            app.writeArrays.contains {
                $0.count == 1 && $0[0].characteristic.uuid.uuidString == uuid
                    && $0[0].value == Data(commands[0].exchange.value)
            })
        #expect(
            !flow.events.contains {
                ($0.name == "answerDiffers" || $0.name == "noResponse") && $0.argument("characteristic") == uuid
            })
        #expect(flow.comments.contains { $0.contains("write without response (\(uuid)): nothing is sent") })
    }

    @Test func aCentralThatHangsUpMidNotificationEndsItsSubscriptionAndTheUpdatesReachNobody() async throws {
        let cassette = try load("peripheral-disconnect-mid-notification.btsnoop")
        let central = try #require(cassette.centrals.first)
        let end = try #require(cassette.centralEpisodes[central]?.last?.disconnection?.time).seconds(
            since: cassette.start)
        let app = TestServerApp(services: serverServices(cassette))
        app.notifyEvery = 0.05
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "streaming")
        let unsubscribed = try #require(flow.events.first { $0.name == "didUnsubscribeFrom" })
        #expect(abs((unsubscribed.time ?? 0) - end) < 1e-6)
        let updates = flow.events.filter { $0.name == "updateValue" }
        let subscribedAt = try #require(flow.events.first { $0.name == "didSubscribeTo" }?.time)
        #expect(updates.contains { ($0.time ?? 0) > subscribedAt && ($0.time ?? 0) < end })
        for update in updates {
            let time = update.time ?? 0
            #expect(update.argument("centrals") == (time > subscribedAt && time < end ? "\(central)" : "none"))
        }
    }

    @Test func eachRemoteCentralIsOneObjectWithTheLinksMaximumUpdateLength() async throws {
        let cassette = try load("peripheral-server.btsnoop")
        let app = TestServerApp(services: serverServices(cassette))
        _ = await ReplayEngine(cassette: cassette).run(app, name: "test-server")
        let address = try #require(cassette.centrals.first)
        let mtu = try #require(cassette.links(of: address).first?.mtu)
        #expect(app.centralsSeen.count > 3)
        let first = try #require(app.centralsSeen.first)
        #expect(app.centralsSeen.allSatisfy { $0 === first })
        #expect(first.identifier == CBPeer.identifier(for: address))
        #expect(first.maximumUpdateValueLength == Int(mtu) - 3)
    }

    @Test func theAppsServicesTakeTheHandlesOfTheCapturedServer() async throws {
        let cassette = try load("peripheral-server.btsnoop")
        let app = TestServerApp(services: serverServices(cassette))
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "test-server")
        #expect(!flow.comments.contains { $0.hasPrefix("divergence: the app") })
        for (service, captured) in zip(app.published, app.services) {
            #expect(service.handles == captured.handle...captured.endHandle)
            for (characteristic, capturedCharacteristic) in zip(service.characteristics ?? [], captured.characteristics)
            {
                #expect(characteristic.valueHandle == capturedCharacteristic.valueHandle)
                #expect(characteristic.declarationHandle == capturedCharacteristic.declarationHandle)
            }
        }
        #expect(flow.events.filter { $0.name == "didAdd" }.count == app.services.count)
        #expect(flow.events.contains { $0.signature == "peripheralManager didStartAdvertising error=nil" })
    }

    @Test func publishingWhatTheCapturedServerLackedOrLackingWhatTheCentralsUsedIsADivergence() async throws {
        let cassette = try load("peripheral-server.btsnoop")
        let read = try #require(
            centralRequests(cassette).first { $0.exchange.opcode == .readRequest && !$0.isSystemService })
        // The captured services, without the characteristic the central read, plus one of its own.
        var services = serverServices(cassette)
        let index = try #require(services.firstIndex { $0.handle == read.service.handle })
        services[index].characteristics.removeAll { $0.valueHandle == read.characteristic.valueHandle }
        let app = TestServerApp(services: services)
        app.extraServices = [CBMutableService(type: CBUUID(string: "FFF0"), primary: true)]
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "test-server")
        let serviceUUID = CBUUID(bluetoothUUID: read.service.uuid).uuidString
        #expect(flow.comments.contains { $0.hasPrefix("divergence: the app publishes service FFF0") })
        #expect(flow.comments.contains { $0.hasPrefix("divergence: the app's \(serviceUUID) lacks \(read.uuid)") })
        #expect(
            flow.comments.contains {
                $0.hasPrefix("divergence: \(read.central) reads \(read.uuid)") && $0.hasSuffix("not delivered")
            })
        #expect(!flow.events.contains { $0.name == "didReceiveRead" })
        // The new service gets handles after the captured server's.
        let last = try #require(serverServices(cassette).map(\.endHandle).max())
        #expect(app.extraServices[0].handles.lowerBound > last)
    }

    @Test func preparedWritesReachTheAppAsOneArrayAtTheirExecuteAndReadBlobsAsReadsWithTheirOffset() async throws {
        var cassette = try load("peripheral-server.btsnoop")
        let write = try #require(
            centralRequests(cassette).first { $0.exchange.opcode == .writeRequest && !$0.isConfiguration })
        let read = try #require(
            centralRequests(cassette).first { $0.exchange.opcode == .readRequest && !$0.isSystemService })
        let index = try #require(cassette.links.firstIndex { $0.hostRole == .peripheral })
        let end = try #require(cassette.centralEpisodes[write.central]?.last?.disconnection?.time)
        func at(_ microseconds: Int64) -> Timestamp { end.adding(microseconds: -40_000 + microseconds) }
        func request(
            _ opcode: ATTOpcode, _ time: Int64, handle: UInt16, value: [UInt8] = [], offset: UInt16? = nil,
            flags: UInt16? = nil, answer: ATTOpcode, answerValue: [UInt8] = []
        ) -> Cassette.Exchange {
            Cassette.Exchange(
                opcode: opcode, time: at(time), record: 0, sender: .peer, handle: handle, value: value, offset: offset,
                parameter: flags,
                answer: .init(opcode: answer, time: at(time + 100), record: 0, value: answerValue, latency: 0.0001))
        }
        let handle = write.characteristic.valueHandle
        cassette.links[index].exchanges += [
            // A long write of three parts, two contiguous and one further on, then one the
            // central cancels.
            request(
                .prepareWriteRequest, 0, handle: handle, value: [0x01, 0x02], offset: 0, answer: .prepareWriteResponse),
            request(.prepareWriteRequest, 500, handle: handle, value: [0x03], offset: 2, answer: .prepareWriteResponse),
            request(
                .prepareWriteRequest, 1_000, handle: handle, value: [0x05], offset: 10, answer: .prepareWriteResponse),
            request(.executeWriteRequest, 2_000, handle: 0, flags: 1, answer: .executeWriteResponse),
            request(
                .prepareWriteRequest, 3_000, handle: handle, value: [0x09], offset: 0, answer: .prepareWriteResponse),
            request(.executeWriteRequest, 4_000, handle: 0, flags: 0, answer: .executeWriteResponse),
            // The rest of a value from offset 1.
            request(
                .readBlobRequest, 5_000, handle: read.characteristic.valueHandle, offset: 1, answer: .readBlobResponse,
                answerValue: [0x07]),
        ]
        let app = TestServerApp(services: serverServices(cassette))
        let captured = try #require(read.exchange.answer?.value)
        app.read = { request in (.success, request.offset == 0 ? Data(captured) : Data([0x07])) }
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "test-server")
        // One array at the Execute; the contiguous parts are one request at the first offset, as
        // the decompiled framework merges them.
        let group = try #require(app.writeArrays.last)
        #expect(group.map(\.offset) == [0, 10])
        #expect(group.map(\.value) == [Data([0x01, 0x02, 0x03]), Data([0x05])])
        #expect(
            flow.events.contains {
                $0.signature
                    == "peripheralManager didReceiveWrite central=\(write.central) characteristic=\(write.uuid),\(write.uuid) value=010203,05 offset=0,10 type=withResponse"
            })
        #expect(!flow.events.contains { $0.name == "didReceiveWrite" && $0.argument("value") == "09" })
        #expect(
            flow.events.contains {
                $0.signature
                    == "peripheralManager didReceiveRead central=\(read.central) characteristic=\(read.uuid) offset=1"
            })
        // The Execute's and the Read Blob's answers are the app's: nothing differs.
        #expect(
            !flow.events.contains {
                $0.name == "answerDiffers"
                    && ($0.argument("characteristic") == write.uuid || $0.argument("characteristic") == read.uuid)
            })
    }

    @Test func aCachedValueIsAnsweredByTheSystemAndStillComparedWithTheCapture() async throws {
        let cassette = try load("peripheral-server.btsnoop")
        let read = try #require(
            centralRequests(cassette).first { $0.exchange.opcode == .readRequest && !$0.isSystemService })
        let captured = try #require(read.exchange.answer?.value)
        for (value, differs) in [(captured, false), (captured.map { $0 ^ 0x0F }, true)] {
            let app = TestServerApp(services: serverServices(cassette))
            app.cached = [read.uuid: Data(value)]
            let flow = await ReplayEngine(cassette: cassette).run(app, name: "cached")
            #expect(!flow.events.contains { $0.name == "didReceiveRead" })
            let expected =
                "system answerDiffers central=\(read.central) characteristic=\(read.uuid) captured=\(FlowRecord.Value.text(of: captured)) app=\(FlowRecord.Value.text(of: value))"
            #expect(flow.events.contains { $0.signature == expected } == differs)
        }
    }

    @Test func underUnmatchedFailTheReplayStopsAtTheFirstAnswerThatDiffers() async throws {
        let cassette = try load("peripheral-server.btsnoop")
        let engine = ReplayEngine(cassette: cassette)
        engine.unmatched = .fail
        let flow = await engine.run(TestServerApp(services: serverServices(cassette)), name: "test-server")
        #expect(engine.failed)
        // The test app answers reads with no bytes: the first read differs, and nothing follows.
        #expect(flow.events.last?.name == "answerDiffers")
        #expect(flow.events.filter { $0.name == "answerDiffers" }.count == 1)
        // With the default policy the replay goes on to the central's later requests.
        let all = await ReplayEngine(cassette: cassette).run(
            TestServerApp(services: serverServices(cassette)), name: "test-server")
        #expect(all.events.count > flow.events.count)
    }
}
