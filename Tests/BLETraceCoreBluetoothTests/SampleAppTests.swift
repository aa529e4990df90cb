import BLETraceCoreBluetooth
import Foundation
import Testing
import Wire

/// The CoreBluetooth-style sample apps (SampleApps/, only their import lines differ from iOS
/// code) against a scripted system.
@Suite struct SampleAppTests {
    let service = ServiceDefinition(uuid: BLESensorIdentifiers.service, handles: 0x0010...0x0014)
    let characteristic = CharacteristicDefinition(
        uuid: BLESensorIdentifiers.characteristic, properties: [.read, .notify], declarationHandle: 0x0011,
        valueHandle: 0x0012)

    @Test func theCentralScansConnectsSubscribesAndReconnectsAfterAnUnexpectedDisconnection() throws {
        let system = ScriptedSystem()
        let app = BluetoothSystemContext.with(system) { BLESensorCentral() }
        system.flush()
        #expect(system.calls == ["init CBCentralManager", "scan B5A1C0DE-0001-4D7E-9A2B-5E4501A2B3C4"])
        let central = try #require(system.centrals.first)
        #expect(central.restoreIdentifier == "BLESensorCentral")
        let peripheral = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        system.send(
            .discovered(
                peripheral,
                advertisementData: [
                    CBAdvertisementDataServiceUUIDsKey: [BLESensorIdentifiers.service],
                    CBAdvertisementDataLocalNameKey: "BLE Sensor",
                ], rssi: -52), to: central)
        system.flush()
        #expect(system.calls.suffix(2) == ["stopScan", "connect F0:F1:F2:F3:F4:05"])
        system.send(.connected(peripheral), to: central)
        system.flush()
        system.answer(.services([service], error: nil))
        system.flush()
        system.answer(.characteristics([characteristic], error: nil))
        system.flush()
        #expect(system.requestNames == ["setNotifyValue"])
        system.answer(.notificationState(isNotifying: true, error: nil))
        system.flush()
        peripheral.deliver(.valueUpdated(valueHandle: 0x0012, Data([1, 2])))
        peripheral.deliver(.valueUpdated(valueHandle: 0x0012, Data([3])))
        #expect(app.readings == [Data([1, 2]), Data([3])])
        // The link times out: the app asks for the connection again at once, and it is pending.
        system.send(.disconnected(peripheral, error: CBError(.connectionTimeout)), to: central)
        system.flush()
        #expect(system.calls.last == "connect F0:F1:F2:F3:F4:05")
        #expect(peripheral.state == .connecting)
        // The user stops: a cancel, then no reconnection and no new scan.
        app.stop()
        system.send(.disconnected(peripheral, error: nil), to: central)
        system.flush()
        #expect(
            app.events == [
                "scanning", "discovered BLE Sensor at -52 dBm", "connected", "subscribed", "lost: connectionTimeout",
                "disconnected",
            ])
        #expect(system.calls.last == "cancel F0:F1:F2:F3:F4:05")
    }

    @Test func theCentralRediscoversAfterAServiceChange() throws {
        let system = ScriptedSystem()
        let app = BluetoothSystemContext.with(system) { BLESensorCentral() }
        system.flush()
        let central = try #require(system.centrals.first)
        let peripheral = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        system.send(
            .discovered(
                peripheral, advertisementData: [CBAdvertisementDataServiceUUIDsKey: [BLESensorIdentifiers.service]],
                rssi: -60), to: central)
        system.send(.connected(peripheral), to: central)
        system.flush()
        system.answer(.services([service], error: nil))
        system.flush()
        peripheral.deliver(.servicesChanged(handles: 0x0010...0xFFFF))
        #expect(app.events.last == "service changed")
        // One request at a time: the rediscovery waits for the discovery still in flight.
        #expect(system.requestNames == ["discoverCharacteristics"])
        system.answer(.characteristics([], error: CBATTError(.attributeNotFound)))
        system.flush()
        #expect(system.requestNames == ["discoverServices"])
    }

    @Test func thePeripheralPublishesAdvertisesAnswersAndNotifies() throws {
        let system = ScriptedSystem()
        let app = BluetoothSystemContext.with(system) { BLESensorPeripheral() }
        system.flush()
        #expect(system.calls == ["init CBPeripheralManager", "add B5A1C0DE-0001-4D7E-9A2B-5E4501A2B3C4"])
        let manager = try #require(system.peripheralManagers.first)
        let published = try #require(system.added.first)
        let characteristic = try #require(published.characteristics?.first as? CBMutableCharacteristic)
        #expect(characteristic.descriptors?.first?.value as? String == "BLESensor prototype")
        system.send(.serviceAdded(published, error: nil), to: manager)
        system.flush()
        #expect(system.calls.last == "startAdvertising kCBAdvDataLocalName,kCBAdvDataServiceUUIDs")
        system.send(.advertisingStarted(error: nil), to: manager)
        let central = CBCentral(identifier: CBPeer.identifier(for: .peerB), address: .peerB)
        system.send(.subscribed(central, to: characteristic), to: manager)
        system.flush()
        app.update(with: Data([0x10, 0x20]))
        #expect(system.calls.last == "updateValue B5A1C0DE-0002-4D7E-9A2B-5E4501A2B3C4 [16, 32]")
        // A read at an offset gets the rest of the value; one past the end is refused.
        let read = CBATTRequest(central: central, characteristic: characteristic, offset: 1, value: nil)
        let pastEnd = CBATTRequest(central: central, characteristic: characteristic, offset: 3, value: nil)
        system.send(.readRequest(read), to: manager)
        system.send(.readRequest(pastEnd), to: manager)
        system.flush()
        #expect(system.calls.suffix(2) == ["respond success [32]", "respond invalidOffset []"])
        // Two writes of one Execute Write are answered once; a long one is refused.
        system.send(
            .writeRequests([
                CBATTRequest(central: central, characteristic: characteristic, offset: 0, value: Data([1])),
                CBATTRequest(central: central, characteristic: characteristic, offset: 0, value: Data([2])),
            ]), to: manager)
        system.send(
            .writeRequests([
                CBATTRequest(central: central, characteristic: characteristic, offset: 0, value: Data(count: 9))
            ]), to: manager)
        system.flush()
        #expect(app.received == [Data([1]), Data([2])])
        #expect(
            system.calls.suffix(2) == [
                "respond success [1]", "respond invalidAttributeValueLength [0, 0, 0, 0, 0, 0, 0, 0, 0]",
            ])
        #expect(manager.unansweredRequests.isEmpty && manager.apiMisuses.isEmpty)
        // The queue fills: the reading waits for the ready signal.
        system.updateRoom = 0
        app.update(with: Data([0x30]))
        system.updateRoom = 1
        system.send(.readyToUpdateSubscribers, to: manager)
        system.flush()
        #expect(system.calls.last == "updateValue B5A1C0DE-0002-4D7E-9A2B-5E4501A2B3C4 [48]")
        #expect(app.events == ["advertising", "subscribed", "queue full"])
    }
}
