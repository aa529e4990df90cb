import BLETraceCoreBluetooth
import Foundation
import Testing
import Wire

@Suite struct CBPeripheralManagerTests {
    let system = ScriptedSystem()
    let delegate = EveryCallbackDelegate()
    let manager: CBPeripheralManager
    let central = CBCentral(identifier: CBPeer.identifier(for: .peerB), address: .peerB, maximumUpdateValueLength: 182)

    init() {
        let (system, delegate) = (system, delegate)
        manager = BluetoothSystemContext.with(system) {
            CBPeripheralManager(
                delegate: delegate, queue: nil, options: [CBPeripheralManagerOptionRestoreIdentifierKey: "sensor"])
        }
        system.flush()
    }

    /// A published service with a notifying, writable characteristic and a user description.
    func publish() -> (CBMutableService, CBMutableCharacteristic) {
        let characteristic = CBMutableCharacteristic(
            type: CBUUID(string: "2A37"), properties: [.read, .write, .notify], value: nil,
            permissions: [.readable, .writeable])
        characteristic.descriptors = [
            CBMutableDescriptor(type: CBUUID(string: CBUUIDCharacteristicUserDescriptionString), value: "Rate")
        ]
        let service = CBMutableService(type: CBUUID(string: "180D"), primary: true)
        service.characteristics = [characteristic]
        manager.add(service)
        system.send(.serviceAdded(service, error: nil), to: manager)
        system.flush()
        return (service, characteristic)
    }

    @Test func initialisersRegisterAndReadTheRestoreIdentifier() {
        let plain = BluetoothSystemContext.with(system) {
            (CBPeripheralManager(), CBPeripheralManager(delegate: nil, queue: nil))
        }
        #expect(system.calls == Array(repeating: "init CBPeripheralManager", count: 3))
        #expect(manager.restoreIdentifier == "sensor")
        #expect(plain.0.restoreIdentifier == nil)
        #expect(manager.state == .poweredOn)
        #expect(delegate.log == ["peripheralManagerDidUpdateState(_:)"])
    }

    @Test func addingAServicePublishesItWhenTheSystemSaysSo() {
        let (service, characteristic) = publish()
        #expect(system.calls.last == "add 180D")
        #expect(manager.publishedServices.map { $0 === service } == [true])
        #expect(characteristic.service === service)
        #expect(characteristic.descriptors?.first?.characteristic === characteristic)
        #expect(delegate.log.last == "peripheralManager(_:didAdd:error:)")
        // The same service twice: an exception on iOS, so the app crashes.
        manager.add(service)
        #expect(system.crashes == ["serviceAddedTwice"])
        #expect(manager.apiMisuses.last?.contains("Services cannot be added more than once") == true)
        manager.remove(service)
        #expect(manager.publishedServices.isEmpty)
        manager.removeAllServices()
        #expect(system.calls.suffix(2) == ["remove 180D", "removeAllServices"])
    }

    @Test func servicesCoreBluetoothRefusesFailInDidAddAfterTheCall() {
        let gap = CBMutableService(type: CBUUID(string: "1800"), primary: true)
        let cached = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
        cached.characteristics = [
            CBMutableCharacteristic(
                type: CBUUID(string: "FFF1"), properties: [.read, .write], value: Data([1]), permissions: [.readable])
        ]
        let cccd = CBMutableService(type: CBUUID(string: "FFF2"), primary: true)
        let withCCCD = CBMutableCharacteristic(
            type: CBUUID(string: "FFF3"), properties: [.notify], value: nil, permissions: [.readable])
        withCCCD.descriptors = [CBMutableDescriptor(type: CBUUID(string: "2902"), value: Data([0, 0]))]
        cccd.characteristics = [withCCCD]
        manager.add(gap)
        manager.add(cached)
        manager.add(cccd)
        #expect(delegate.errors.isEmpty, "answers come after the calls return")
        system.flush()
        #expect(
            delegate.errors == [
                "peripheralManager(_:didAdd:error:) CBError.uuidNotAllowed",
                "peripheralManager(_:didAdd:error:) CBError.uuidNotAllowed",
            ])
        // A writable characteristic with a cached value is an exception on iOS: a crash, no didAdd.
        #expect(system.crashes == ["cachedValueNotReadOnly"])
        #expect(system.calls == ["init CBPeripheralManager"])
        #expect(manager.publishedServices.isEmpty)
    }

    /// A descriptor's value in the table below (`Any` is not `Sendable`).
    enum DescriptorValue: Sendable {
        case string(String), data([UInt8]), number(Int), none
        var object: Any? {
            switch self {
            case .string(let text): text
            case .data(let bytes): Data(bytes)
            case .number(let number): NSNumber(value: number)
            case .none: nil
            }
        }
    }

    /// The decompiled `-[CBMutableDescriptor initWithType:value:]` (iOS 18.2) checks the value's
    /// type only (review PM-8): the exception ends the app there, and the system hears of it.
    @Test(arguments: [
        ("2901", DescriptorValue.string("a string"), false), ("2901", .data([0x41]), true), ("2901", .none, true),
        ("2904", .data([4, 0, 0, 0x27, 1, 0, 0]), false), ("2904", .string("format"), true),
        ("2906", .data([0, 0, 0xFF, 0]), false), ("2906", .data([0, 0, 0xFF]), true), ("2906", .number(1), true),
        ("A1B2C3D4-0000-4000-8000-00805F9B34FB", .data([1]), false),
        ("A1B2C3D4-0000-4000-8000-00805F9B34FB", .string("text"), true),
        ("2902", .data([0, 0]), false), ("2908", .number(7), false), ("290B", .none, false),
    ])
    func makingADescriptorChecksOnlyItsValuesType(uuid: String, value: DescriptorValue, crashes: Bool) {
        let descriptor = BluetoothSystemContext.with(system) {
            CBMutableDescriptor(type: CBUUID(string: uuid), value: value.object)
        }
        #expect(system.crashes == (crashes ? ["descriptorValueType"] : []))
        #expect(descriptor.uuid == CBUUID(string: uuid))
    }

    @Test func aServiceWithCustomDescriptorsIsPublished() {
        let service = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
        let characteristic = CBMutableCharacteristic(
            type: CBUUID(string: "FFF1"), properties: [.read], value: nil, permissions: [.readable])
        characteristic.descriptors = [
            CBMutableDescriptor(type: CBUUID(string: "2906"), value: Data([0, 0, 0x64, 0])),
            CBMutableDescriptor(type: CBUUID(string: "A1B2C3D4-0000-4000-8000-00805F9B34FB"), value: Data([1, 2])),
        ]
        service.characteristics = [characteristic]
        manager.add(service)
        system.flush()
        #expect(delegate.errors.isEmpty)
        #expect(system.calls.last == "add FFF0", "the system is asked to publish it")
        #expect(system.crashes.isEmpty)
    }

    @Test func onlyTheLocalNameAndServiceUUIDsAreAdvertised() {
        manager.startAdvertising([
            CBAdvertisementDataLocalNameKey: "Sensor", CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180D")],
            CBAdvertisementDataManufacturerDataKey: Data([0x4C, 0x00]),
        ])
        #expect(system.calls.last == "startAdvertising kCBAdvDataLocalName,kCBAdvDataServiceUUIDs")
        #expect(manager.apiMisuses.last?.contains("kCBAdvDataManufacturerData") == true)
        #expect(!manager.isAdvertising)
        system.send(.advertisingStarted(error: nil), to: manager)
        system.flush()
        #expect(manager.isAdvertising)
        manager.startAdvertising(nil)
        system.flush()
        #expect(delegate.errors == ["peripheralManagerDidStartAdvertising(_:error:) CBError.alreadyAdvertising"])
        manager.stopAdvertising()
        #expect(!manager.isAdvertising)
        #expect(system.calls.last == "stopAdvertising")
    }

    @Test func aReadGetsExactlyOneResponse() {
        let (_, characteristic) = publish()
        let request = CBATTRequest(central: central, characteristic: characteristic, offset: 0, value: nil)
        system.send(.readRequest(request), to: manager)
        system.flush()
        #expect(manager.unansweredRequests.count == 1)
        request.value = Data([0x00, 0x48])
        manager.respond(to: request, withResult: .success)
        #expect(system.calls.last == "respond success [0, 72]")
        #expect(manager.unansweredRequests.isEmpty)
        manager.respond(to: request, withResult: .success)
        #expect(manager.apiMisuses.last?.contains("answered already") == true)
        #expect(system.calls.filter { $0.hasPrefix("respond") }.count == 1)
    }

    @Test func writesAreAnsweredOnceThroughTheFirstRequest() {
        let (_, characteristic) = publish()
        let first = CBATTRequest(central: central, characteristic: characteristic, offset: 0, value: Data([1, 2]))
        let second = CBATTRequest(central: central, characteristic: characteristic, offset: 2, value: Data([3]))
        system.send(.writeRequests([first, second]), to: manager)
        system.flush()
        #expect(delegate.log.last == "peripheralManager(_:didReceiveWrite:)")
        manager.respond(to: second, withResult: .success)
        #expect(manager.apiMisuses.last?.contains("not the first of its array") == true)
        manager.respond(to: first, withResult: .writeNotPermitted)
        #expect(system.calls.last == "respond writeNotPermitted [1, 2]")
        manager.respond(to: second, withResult: .success)
        #expect(manager.unansweredRequests.isEmpty)
        #expect(system.calls.filter { $0.hasPrefix("respond") }.count == 1)
    }

    @Test func aFullQueueIsFollowedByOneReadySignal() {
        let (_, characteristic) = publish()
        system.updateRoom = 1
        #expect(!manager.deliver(.readyToUpdateSubscribers), "nobody waited")
        #expect(manager.updateValue(Data([1]), for: characteristic, onSubscribedCentrals: nil))
        #expect(!manager.updateValue(Data([2]), for: characteristic, onSubscribedCentrals: [central]))
        #expect(manager.deliver(.readyToUpdateSubscribers))
        #expect(!manager.deliver(.readyToUpdateSubscribers))
        #expect(delegate.log.filter { $0 == "peripheralManagerIsReady(toUpdateSubscribers:)" }.count == 1)
        // A characteristic of no published service is not sent.
        let stray = CBMutableCharacteristic(
            type: CBUUID(string: "FFF1"), properties: [.notify], value: nil, permissions: [])
        #expect(!manager.updateValue(Data([3]), for: stray, onSubscribedCentrals: nil))
    }

    @Test func subscriptionsKeepTheSubscribedCentrals() {
        let (_, characteristic) = publish()
        system.send(.subscribed(central, to: characteristic), to: manager)
        system.send(.subscribed(central, to: characteristic), to: manager)
        system.flush()
        #expect(characteristic.subscribedCentrals?.count == 1)
        #expect(characteristic.subscribedCentrals?.first?.maximumUpdateValueLength == 182)
        system.send(.unsubscribed(central, from: characteristic), to: manager)
        system.flush()
        #expect(characteristic.subscribedCentrals == nil)
        #expect(
            delegate.log.suffix(3) == [
                "peripheralManager(_:central:didSubscribeTo:)", "peripheralManager(_:central:didSubscribeTo:)",
                "peripheralManager(_:central:didUnsubscribeFrom:)",
            ])
    }

    @Test func belowPoweredOnAdvertisingStopsAndBelowPoweredOffTheDatabaseIsCleared() {
        let (_, characteristic) = publish()
        system.send(.advertisingStarted(error: nil), to: manager)
        system.send(.subscribed(central, to: characteristic), to: manager)
        system.send(.stateUpdated(.poweredOff), to: manager)
        system.flush()
        #expect(!manager.isAdvertising)
        #expect(characteristic.subscribedCentrals == nil)
        #expect(manager.publishedServices.count == 1)
        system.send(.stateUpdated(.resetting), to: manager)
        system.flush()
        #expect(manager.publishedServices.isEmpty)
        manager.add(CBMutableService(type: CBUUID(string: "180D"), primary: true))
        #expect(manager.apiMisuses.last?.contains("while powered on (state is resetting)") == true)
    }

    @Test func restorationComesFirstAndBringsThePublishedServices() {
        let service = CBMutableService(type: CBUUID(string: "180D"), primary: true)
        system.restoredState = [
            CBPeripheralManagerRestoredStateServicesKey: [service],
            CBPeripheralManagerRestoredStateAdvertisementDataKey: [CBAdvertisementDataLocalNameKey: "Sensor"],
        ]
        let restoring = EveryCallbackDelegate()
        let restored = BluetoothSystemContext.with(system) {
            CBPeripheralManager(
                delegate: restoring, queue: nil, options: [CBPeripheralManagerOptionRestoreIdentifierKey: "sensor"])
        }
        system.flush()
        #expect(restoring.log == ["peripheralManager(_:willRestoreState:)", "peripheralManagerDidUpdateState(_:)"])
        #expect(restored.publishedServices.map { $0 === service } == [true])
    }

    @Test func latencyAndL2CAPChannelsReachTheSystemAndTheirMethods() {
        manager.setDesiredConnectionLatency(.low, for: central)
        manager.publishL2CAPChannel(withEncryption: true)
        manager.unpublishL2CAPChannel(0x0081)
        system.send(.l2capChannelPublished(0x0081, error: nil), to: manager)
        system.send(.l2capChannelUnpublished(0x0081, error: nil), to: manager)
        system.send(.l2capChannelOpened(nil, error: CBError(.operationNotSupported)), to: manager)
        system.flush()
        #expect(system.calls.suffix(3) == ["latency 0", "publishL2CAPChannel true", "unpublishL2CAPChannel 129"])
        #expect(
            delegate.log.suffix(3) == [
                "peripheralManager(_:didPublishL2CAPChannel:error:)",
                "peripheralManager(_:didUnpublishL2CAPChannel:error:)",
                "peripheralManager(_:didOpen:error:)",
            ])
    }
}
