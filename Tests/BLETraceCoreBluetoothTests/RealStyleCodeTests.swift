import BLETraceCoreBluetooth
import Foundation
import Testing
import Wire

/// The real-style apps of SampleApps/ (restoring central, async/await layer with a `@MainActor`
/// model, peripheral manager with flow control, L2CAP client), each written as on iOS with only
/// the import line changed, run against a scripted system.
@Suite struct RealStyleCodeTests {
    @Test func theRestoringCentralTakesBackThePeripheralTheSystemKept() throws {
        let system = ScriptedSystem()
        // The first process: connected to the lock when the system ends it.
        let first = BluetoothSystemContext.with(system) { RestoringCentral() }
        system.flush()
        let oldCentral = try #require(system.centrals.first)
        let lock = oldCentral.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        system.send(
            .discovered(
                lock,
                advertisementData: [
                    CBAdvertisementDataLocalNameKey: "Lock",
                    CBAdvertisementDataServiceUUIDsKey: [RestoringCentral.lockService],
                ],
                rssi: -48), to: oldCentral)
        system.flush()
        system.send(.connected(lock), to: oldCentral)
        system.flush()
        #expect(first.log == ["scanning", "found Lock at -48 dBm", "connected"])

        // The relaunch: the new manager gets the peripheral back before its state.
        system.restoredState = [CBCentralManagerRestoredStatePeripheralsKey: [lock]]
        let second = BluetoothSystemContext.with(system) { RestoringCentral() }
        let newCentral = system.centrals[1]
        newCentral.adopt(lock)
        system.flush()
        #expect(second.log == ["restoring 1 peripheral(s)", "already connected"])
        #expect(second.lock === lock)
        #expect(newCentral.restoreIdentifier == RestoringCentral.restoreIdentifier)
        #expect(system.calls.last == "perform discoverServices")
    }

    @Test func theRestoringCentralReconnectsAfterATimeoutWithApplesText() throws {
        let system = ScriptedSystem()
        let app = BluetoothSystemContext.with(system) { RestoringCentral() }
        system.flush()
        let central = try #require(system.centrals.first)
        let lock = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        system.send(
            .discovered(
                lock, advertisementData: [CBAdvertisementDataServiceUUIDsKey: [RestoringCentral.lockService]], rssi: -60
            ), to: central)
        system.flush()
        system.send(.connected(lock), to: central)
        system.flush()
        system.send(.disconnected(lock, error: CBError(.connectionTimeout)), to: central)
        system.flush()
        #expect(app.log.last == "lost: The connection has timed out unexpectedly.")
        #expect(system.calls.last == "connect F0:F1:F2:F3:F4:05")
    }

    /// The async model running against a scripted system that knows peer A: each `step` runs
    /// the system's answers, then lets the model's task run to its next suspension (both are on
    /// the main actor).
    @MainActor
    private struct AsyncRun {
        let system = ScriptedSystem()
        let model: HeartRateModel
        let task: Task<Void, Never>

        init(readings: Int) {
            system.known = [.peerA]
            let bluetooth = BluetoothSystemContext.with(system) { AsyncCentral() }
            let model = HeartRateModel(bluetooth: bluetooth)
            self.model = model
            task = Task { await model.run(device: CBPeer.identifier(for: .peerA), readings: readings) }
        }

        func step(_ answer: () -> Void = {}) async {
            answer()
            system.flush()
            for _ in 0..<20 { await Task.yield() }
        }

        /// Starts the model, and connects it to peer A's peripheral, which it returns.
        func connect() async throws -> CBPeripheral {
            await step()
            #expect(model.status == "connecting")
            let central = try #require(system.centrals.first)
            let peripheral = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
            await step { system.send(.connected(peripheral), to: central) }
            await step { system.answer(.services([heartRate], error: nil)) }
            return peripheral
        }
    }

    @MainActor
    @Test func theAsyncModelConnectsReadsAndCollectsNotifications() async throws {
        let run = AsyncRun(readings: 2)
        let peripheral = try await run.connect()
        await run.step { run.system.answer(.characteristics([measurement, location], error: nil)) }
        await run.step { run.system.answer(.value(Data([0x01]), error: nil)) }
        #expect(run.model.bodyLocation == 1)
        await run.step { run.system.answer(.notificationState(isNotifying: true, error: nil)) }
        #expect(run.model.status == "measuring")
        await run.step {
            run.system.send(.valueUpdated(valueHandle: 0x000E, Data([0x00, 72])), to: peripheral)
            run.system.send(.valueUpdated(valueHandle: 0x000E, Data([0x00, 75])), to: peripheral)
        }
        await run.task.value
        #expect(run.model.rates == [72, 75])
        #expect(run.model.status == "done")
    }

    @MainActor
    @Test func theAsyncModelSurfacesAnATTErrorWithApplesText() async throws {
        let run = AsyncRun(readings: 1)
        _ = try await run.connect()
        await run.step { run.system.answer(.characteristics([location], error: nil)) }
        await run.step { run.system.answer(.value(nil, error: CBATTError(.insufficientAuthentication))) }
        await run.task.value
        #expect(run.model.status == "ATT error 5: Authentication is insufficient.")
    }

    @Test func theCounterPeripheralAnswersAndStreamsWithFlowControl() throws {
        let system = ScriptedSystem()
        let app = BluetoothSystemContext.with(system) { CounterPeripheral() }
        system.flush()
        let manager = try #require(system.peripheralManagers.first)
        let service = try #require(system.added.first)
        system.send(.serviceAdded(service, error: nil), to: manager)
        system.flush()
        system.send(.advertisingStarted(error: nil), to: manager)
        system.flush()
        #expect(app.log == ["advertising"])
        let central = CBCentral(identifier: UUID(), maximumUpdateValueLength: 20)
        let counter = service.characteristics![0] as! CBMutableCharacteristic
        let transfer = service.characteristics![1] as! CBMutableCharacteristic

        let write = CBATTRequest(central: central, characteristic: counter, offset: 0, value: Data([41]))
        system.send(.writeRequests([write]), to: manager)
        system.flush()
        #expect(app.count == 41)
        let read = CBATTRequest(central: central, characteristic: counter, offset: 0, value: nil)
        system.send(.readRequest(read), to: manager)
        system.flush()
        #expect(read.value == Data([41]))
        #expect(system.calls.filter { $0.hasPrefix("respond") }.count == 2)

        system.updateRoom = 2
        system.send(.subscribed(central, to: transfer), to: manager)
        system.flush()
        // 50 bytes in chunks of 20: two fit, the third waits for room.
        #expect(app.log.suffix(4) == ["subscribed, 20 bytes a notification", "sent 20", "sent 20", "queue full"])
        system.updateRoom = 10
        system.send(.readyToUpdateSubscribers, to: manager)
        system.flush()
        #expect(app.log.suffix(2) == ["ready", "sent 10"])
    }

    @Test func theL2CAPClientOpensThePublishedPSMAndReadsTheChannel() throws {
        let system = ScriptedSystem()
        let central = poweredOnCentral(system, delegate: nil)
        let client = L2CAPClient()
        let peripheral = connectedPeripheral(system, central, delegate: client)
        let psmService = ServiceDefinition(uuid: CBUUID(string: "FFF0"), handles: 0x0020...0x0022)
        let psmDefinition = CharacteristicDefinition(
            uuid: L2CAPClient.psmCharacteristic, properties: .read, declarationHandle: 0x0021, valueHandle: 0x0022)
        peripheral.discoverServices(nil)
        system.answer(.services([psmService], error: nil))
        system.flush()
        peripheral.discoverCharacteristics(nil, for: peripheral.services![0])
        system.answer(.characteristics([psmDefinition], error: nil))
        system.flush()
        client.start(on: peripheral, psmCharacteristic: peripheral.services![0].characteristics![0])
        system.answer(.value(Data([0x81, 0x00]), error: nil))
        system.flush()
        #expect(client.log == ["opening PSM 0x0081"])
        #expect(system.calls.last == "openL2CAPChannel 129")

        let channel = CBL2CAPChannel(
            peer: peripheral, psm: 0x0081, inputStream: InputStream(data: Data("hello".utf8)),
            outputStream: OutputStream(toMemory: ()))
        system.send(.l2capChannelOpened(channel, error: nil), to: peripheral)
        system.flush()
        #expect(client.channel === channel)
        #expect(String(decoding: client.received, as: UTF8.self) == "hello")
        #expect(client.send(Data([1, 2, 3])) == 3)
    }
}
