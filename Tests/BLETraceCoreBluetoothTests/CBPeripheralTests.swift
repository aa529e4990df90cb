import BLETraceCoreBluetooth
import Foundation
import Testing
import Wire

@Suite struct CBPeripheralTests {
    let system = ScriptedSystem()
    let delegate = EveryCallbackDelegate()
    let central: CBCentralManager
    let peripheral: CBPeripheral

    init() {
        central = poweredOnCentral(system, delegate: delegate)
        peripheral = connectedPeripheral(system, central, delegate: delegate)
        delegate.log = []
    }

    /// Discovers the heart rate and battery services, the heart rate characteristics and the
    /// measurement's CCCD.
    func discoverAll() -> (heart: CBService, measurement: CBCharacteristic, location: CBCharacteristic) {
        peripheral.discoverServices(nil)
        system.answer(.services([heartRate, battery], error: nil))
        system.flush()
        let heart = peripheral.services![0]
        peripheral.discoverCharacteristics(nil, for: heart)
        system.answer(.characteristics([measurement, location], error: nil))
        system.flush()
        peripheral.discoverDescriptors(for: heart.characteristics![0])
        system.answer(.descriptors([cccd], error: nil))
        system.flush()
        return (heart, heart.characteristics![0], heart.characteristics![1])
    }

    @Test func discoveryBuildsTheServiceTreeInHandleOrder() {
        let (heart, measurementObject, locationObject) = discoverAll()
        #expect(system.requestNames.isEmpty)
        #expect(peripheral.services?.map(\.uuid.uuidString) == ["180D", "180F"])
        #expect(heart.peripheral === peripheral)
        #expect(heart.isPrimary)
        #expect(heart.characteristics?.map(\.uuid.uuidString) == ["2A37", "2A38"])
        #expect(measurementObject.service === heart)
        #expect(measurementObject.properties == [.notify])
        #expect(locationObject.properties.contains(.read))
        #expect(measurementObject.descriptors?.map(\.uuid.uuidString) == ["2902"])
        #expect(measurementObject.descriptors?[0].characteristic === measurementObject)
        #expect(
            delegate.log == [
                "peripheral(_:didDiscoverServices:)", "peripheral(_:didDiscoverCharacteristicsFor:error:)",
                "peripheral(_:didDiscoverDescriptorsFor:error:)",
            ])
    }

    /// The references back up the tree hold as weakly as CoreBluetooth's `weak` properties
    /// (through each object's back reference, not `weak`): each reads nil once its object is gone,
    /// and not before.
    @Test func referencesUpTheTreeReadNilOnceTheirObjectIsGone() throws {
        var (service, characteristic, descriptor): (CBService?, CBCharacteristic?, CBDescriptor?)
        weak var (peripheralGone, centralGone): (CBPeripheral?, CBCentralManager?)
        do {
            let system = ScriptedSystem()
            let central = poweredOnCentral(system, delegate: nil)
            let peripheral = connectedPeripheral(system, central, delegate: nil, address: .peerB)
            peripheral.discoverServices(nil)
            system.answer(.services([heartRate], error: nil))
            system.flush()
            service = peripheral.services?.first
            peripheral.discoverCharacteristics(nil, for: try #require(service))
            system.answer(.characteristics([measurement], error: nil))
            system.flush()
            characteristic = service?.characteristics?.first
            peripheral.discoverDescriptors(for: try #require(characteristic))
            system.answer(.descriptors([cccd], error: nil))
            system.flush()
            descriptor = characteristic?.descriptors?.first
            #expect(peripheral.centralManager === central)
            #expect(service?.peripheral === peripheral)
            (peripheralGone, centralGone) = (peripheral, central)
            central.detachFromSystem()  // the test's system holds its managers
        }
        try #require(peripheralGone == nil && centralGone == nil, "the test's system let go of the objects")
        #expect(service?.peripheral == nil)
        #expect(characteristic?.service === service)
        #expect(descriptor?.characteristic === characteristic)
        service = nil
        #expect(characteristic?.service == nil)
        #expect(descriptor?.characteristic === characteristic)
        characteristic = nil
        #expect(descriptor?.characteristic == nil)
    }

    @Test func rediscoveryKeepsTheObjectsOfValidAttributes() {
        let (heart, measurementObject, _) = discoverAll()
        peripheral.discoverServices([CBUUID(string: "180D")])
        system.answer(.services([heartRate], error: nil))
        peripheral.discoverCharacteristics(nil, for: heart)
        system.flush()
        system.answer(.characteristics([measurement, location], error: nil))
        system.flush()
        #expect(peripheral.services![0] === heart)
        #expect(heart.characteristics![0] === measurementObject)
        #expect(peripheral.services!.count == 2)
    }

    @Test func requestsGoToTheSystemOneAtATimeAndAreAnsweredInOrder() {
        let (_, measurementObject, locationObject) = discoverAll()
        peripheral.readValue(for: locationObject)
        peripheral.writeValue(Data([1]), for: locationObject, type: .withResponse)
        peripheral.setNotifyValue(true, for: measurementObject)
        // Only the first is with the system.
        #expect(system.requestNames == ["readValue"])
        system.answer(.value(Data([0x02]), error: nil))
        system.flush()
        #expect(system.requestNames == ["writeValue"])
        system.answer(.written(error: CBATTError(.writeNotPermitted)))
        system.flush()
        #expect(system.requestNames == ["setNotifyValue"])
        system.answer(.notificationState(isNotifying: true, error: nil))
        system.flush()
        #expect(
            delegate.log.suffix(3) == [
                "peripheral(_:didUpdateValueFor:error:) characteristic",
                "peripheral(_:didWriteValueFor:error:) characteristic",
                "peripheral(_:didUpdateNotificationStateFor:error:)",
            ])
        #expect(
            delegate.errors == ["peripheral(_:didWriteValueFor:error:) characteristic CBATTError.writeNotPermitted"])
        #expect(locationObject.value == Data([0x02]))
        #expect(measurementObject.isNotifying)
    }

    @Test func aFailedReadKeepsTheOldValueAndGivesTheError() {
        let (_, _, locationObject) = discoverAll()
        peripheral.readValue(for: locationObject)
        system.answer(.value(Data([7]), error: nil))
        system.flush()
        peripheral.readValue(for: locationObject)
        system.answer(.value(nil, error: CBATTError(.insufficientAuthentication)))
        system.flush()
        #expect(locationObject.value == Data([7]))
        #expect(
            delegate.errors == [
                "peripheral(_:didUpdateValueFor:error:) characteristic CBATTError.insufficientAuthentication"
            ])
    }

    @Test func notificationsReachOnlyCharacteristicsThatAreNotifyingInTheReadCallback() {
        let (_, measurementObject, _) = discoverAll()
        #expect(!peripheral.deliver(.valueUpdated(valueHandle: 0x000E, Data([0x00, 0x48]))), "not subscribed yet")
        peripheral.setNotifyValue(true, for: measurementObject)
        system.answer(.notificationState(isNotifying: true, error: nil))
        system.flush()
        #expect(peripheral.deliver(.valueUpdated(valueHandle: 0x000E, Data([0x00, 0x49]))))
        #expect(!peripheral.deliver(.valueUpdated(valueHandle: 0x0099, Data([1]))), "no such characteristic")
        #expect(measurementObject.value == Data([0x00, 0x49]))
        #expect(delegate.log.last == "peripheral(_:didUpdateValueFor:error:) characteristic")
    }

    @Test func subscribingWhereTheCharacteristicCannotNotifyFailsLaterWithRequestNotSupported() {
        let (_, _, locationObject) = discoverAll()
        peripheral.setNotifyValue(true, for: locationObject)
        #expect(delegate.errors.isEmpty, "the answer comes after the call returns")
        system.flush()
        #expect(
            delegate.errors == ["peripheral(_:didUpdateNotificationStateFor:error:) CBATTError.requestNotSupported"])
        #expect(system.requestNames.isEmpty)
        #expect(!locationObject.isNotifying)
    }

    @Test func writeLengthsFollowTheMTU() {
        let (_, _, locationObject) = discoverAll()
        #expect(peripheral.maximumWriteValueLength(for: .withoutResponse) == 20)
        #expect(peripheral.maximumWriteValueLength(for: .withResponse) == 512)
        peripheral.deliver(.mtuChanged(247))
        #expect(peripheral.maximumWriteValueLength(for: .withoutResponse) == 244)
        peripheral.writeValue(Data(count: 245), for: locationObject, type: .withoutResponse)
        #expect(central.apiMisuses.last?.contains("more than maximumWriteValueLength 244") == true)
        peripheral.writeValue(Data(count: 244), for: locationObject, type: .withoutResponse)
        #expect(system.calls.last == "writeWithoutResponse 2A38 244")
        // With response, more than an attribute can hold fails in the callback.
        peripheral.writeValue(Data(count: 513), for: locationObject, type: .withResponse)
        system.flush()
        #expect(
            delegate.errors.last
                == "peripheral(_:didWriteValueFor:error:) characteristic CBATTError.invalidAttributeValueLength")
    }

    @Test func writesWithoutResponseWhenTheQueueIsFullAreSentBestEffortThenTheReadyCallbackComes() {
        let (_, measurementObject, locationObject) = discoverAll()
        system.writeRoom = 2
        peripheral.writeValue(Data([1]), for: locationObject, type: .withoutResponse)
        #expect(peripheral.canSendWriteWithoutResponse)
        peripheral.writeValue(Data([2]), for: locationObject, type: .withoutResponse)
        #expect(!peripheral.canSendWriteWithoutResponse)
        // Apple's header: with canSendWriteWithoutResponse false, delivery is best-effort; the
        // decompiled framework passes the write on. Not refused, not API misuse.
        let misuses = central.apiMisuses.count
        peripheral.writeValue(Data([3]), for: locationObject, type: .withoutResponse)
        #expect(central.apiMisuses.count == misuses)
        #expect(system.calls.filter { $0.hasPrefix("writeWithoutResponse") }.count == 3)
        #expect(!peripheral.canSendWriteWithoutResponse)
        peripheral.deliver(.readyToSendWriteWithoutResponse)
        #expect(peripheral.canSendWriteWithoutResponse)
        #expect(delegate.log.last == "peripheralIsReady(toSendWriteWithoutResponse:)")
        // A characteristic that does not take Write Commands is not written.
        peripheral.writeValue(Data([4]), for: measurementObject, type: .withoutResponse)
        #expect(central.apiMisuses.last?.contains("does not allow writes without response") == true)
    }

    @Test func descriptorValuesHaveTheTypesCoreBluetoothDocuments() throws {
        let (_, measurementObject, _) = discoverAll()
        let configuration = measurementObject.descriptors![0]
        peripheral.readValue(for: configuration)
        system.answer(.value(Data([0x01, 0x00]), error: nil))
        system.flush()
        #expect((configuration.value as? NSNumber)?.intValue == 1)
        #expect(delegate.log.last == "peripheral(_:didUpdateValueFor:error:) descriptor")
        // The CCCD is written with setNotifyValue only: writing it directly is an exception on
        // iOS (the decompiled framework; dotnet-bluetooth-le 448), so the app crashes.
        peripheral.writeValue(Data([0x01, 0x00]), for: configuration)
        #expect(system.crashes == ["cccdWrittenDirectly"])
        #expect(central.apiMisuses.last?.contains("must be configured using setNotifyValue") == true)
        #expect(system.requestNames.isEmpty)
        // Other descriptors are written and answered in their own callback.
        peripheral.discoverDescriptors(for: measurementObject)
        system.answer(
            .descriptors([cccd, DescriptorDefinition(uuid: CBUUID(string: "2901"), handle: 0x0010)], error: nil))
        system.flush()
        let userDescription = try #require(measurementObject.descriptors?.last)
        #expect(measurementObject.descriptors?.first === configuration)
        peripheral.readValue(for: userDescription)
        system.answer(.value(Data("Strap".utf8), error: nil))
        system.flush()
        #expect(userDescription.value as? String == "Strap")
        peripheral.writeValue(Data("Chest".utf8), for: userDescription)
        system.answer(.written(error: nil))
        system.flush()
        #expect(delegate.log.last == "peripheral(_:didWriteValueFor:error:) descriptor")
    }

    @Test func aDisconnectionDropsWhatIsPendingWithoutACallbackThenInvalidatesEveryAttribute() {
        let (heart, measurementObject, locationObject) = discoverAll()
        peripheral.setNotifyValue(true, for: measurementObject)
        system.answer(.notificationState(isNotifying: true, error: nil))
        system.flush()
        system.send(.mtuChanged(247), to: peripheral)
        peripheral.readValue(for: locationObject)
        peripheral.writeValue(Data([1]), for: locationObject, type: .withResponse)
        delegate.log = []
        system.send(.disconnected(peripheral, error: CBError(.connectionTimeout)), to: central)
        system.flush()
        // Apple's header: once didDisconnectPeripheral is called, no more CBPeripheralDelegate
        // methods come for the peripheral; the requests in flight or queued get none.
        #expect(delegate.log == ["centralManager(_:didDisconnectPeripheral:error:)"])
        #expect(!delegate.errors.contains { $0.contains("peripheralDisconnected") })
        #expect(system.calls.filter { $0.hasPrefix("failed") }.isEmpty)
        // An answer that comes anyway goes nowhere.
        system.answer(.value(Data([9]), error: nil))
        system.flush()
        #expect(delegate.log == ["centralManager(_:didDisconnectPeripheral:error:)"])
        #expect(peripheral.services == nil)
        #expect(peripheral.mtu == 23)
        #expect(!peripheral.canSendWriteWithoutResponse)
        #expect(heart.peripheral == nil)
        #expect(!measurementObject.isNotifying)
        // After reconnecting, the old objects are refused and discovery makes new ones.
        central.connect(peripheral)
        system.send(.connected(peripheral), to: central)
        system.flush()
        #expect(peripheral.canSendWriteWithoutResponse)
        peripheral.readValue(for: locationObject)
        #expect(central.apiMisuses.last?.contains("not a valid one of this peripheral") == true)
        peripheral.discoverServices(nil)
        system.answer(.services([heartRate], error: nil))
        system.flush()
        #expect(peripheral.services![0] !== heart)
    }

    @Test func aLostLinkDropsTheUnansweredRequestsBeforeTheDisconnectionEvent() {
        let (_, _, locationObject) = discoverAll()
        peripheral.readValue(for: locationObject)
        peripheral.deliver(.linkLost)
        #expect(peripheral.state == .disconnected)
        #expect(delegate.errors.isEmpty)
        system.send(.disconnected(peripheral, error: CBError(.connectionTimeout)), to: central)
        system.flush()
        #expect(delegate.errors == ["centralManager(_:didDisconnectPeripheral:error:) CBError.connectionTimeout"])
    }

    @Test(arguments: [(23, 20), (247, 244), (517, 512)])
    func aWriteWithoutResponseHoldsMTUMinusThreeAndNeverMoreThanAnAttribute(_ mtu: Int, _ length: Int) {
        _ = discoverAll()
        system.send(.mtuChanged(mtu), to: peripheral)
        system.flush()
        #expect(peripheral.maximumWriteValueLength(for: .withoutResponse) == length)
        #expect(peripheral.maximumWriteValueLength(for: .withResponse) == 512)
    }

    @Test func aNotifiedValueReadsBackAsDeliveredAndTheAppsEarlierCopyStays() {
        let (_, measurementObject, _) = discoverAll()
        peripheral.setNotifyValue(true, for: measurementObject)
        system.answer(.notificationState(isNotifying: true, error: nil))
        system.flush()
        let twenty = [UInt8](0..<20)
        #expect(peripheral.deliverValue(twenty, valueHandle: 0x000E))
        let kept = measurementObject.value
        // The same length, longer, shorter, empty: each read back as delivered.
        for bytes in [[UInt8](100..<120), [UInt8](0..<200), [0x01, 0x02], [], [UInt8](50..<70)] {
            #expect(peripheral.deliverValue(bytes, valueHandle: 0x000E))
            #expect(measurementObject.value == Data(bytes))
        }
        #expect(kept == Data(twenty), "the app's copy of an earlier value does not change")
        #expect(delegate.log.suffix(6).allSatisfy { $0 == "peripheral(_:didUpdateValueFor:error:) characteristic" })
        #expect(!peripheral.deliverValue([1], valueHandle: 0x0099), "no such characteristic")
    }

    @Test func notificationsFindTheCharacteristicAgainAfterItsServiceChanged() {
        let (heart, measurementObject, _) = discoverAll()
        peripheral.setNotifyValue(true, for: measurementObject)
        system.answer(.notificationState(isNotifying: true, error: nil))
        system.flush()
        #expect(peripheral.deliverValue([1], valueHandle: 0x000E))
        #expect(peripheral.characteristic(valueHandle: 0x000E) === measurementObject)
        // The service goes: the characteristic found last is no longer one of the peripheral's.
        peripheral.deliver(.servicesChanged(handles: heart.handles))
        #expect(peripheral.characteristic(valueHandle: 0x000E) == nil)
        #expect(!peripheral.deliverValue([2], valueHandle: 0x000E))
        #expect(measurementObject.value == Data([1]))
        // Discovered again: the new object is found, not the invalidated one.
        peripheral.discoverServices(nil)
        system.answer(.services([heartRate, battery], error: nil))
        system.flush()
        let again = peripheral.services!.first { $0.uuid.uuidString == "180D" }!
        #expect(peripheral.characteristic(valueHandle: 0x000E) == nil, "characteristics not discovered yet")
        peripheral.discoverCharacteristics(nil, for: again)
        system.answer(.characteristics([measurement, location], error: nil))
        system.flush()
        let found = peripheral.characteristic(valueHandle: 0x000E)
        #expect(found != nil && found !== measurementObject && found?.service === again)
    }

    @Test func aServiceChangeRemovesTheServicesItCoversAndSaysWhich() {
        final class Capture: NSObject, CBPeripheralDelegate {
            var invalidated: [String] = []
            func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
                invalidated = invalidatedServices.map(\.uuid.uuidString)
            }
        }
        let (heart, measurementObject, _) = discoverAll()
        let capture = Capture()
        peripheral.delegate = capture
        peripheral.deliver(.servicesChanged(handles: 0x0010...0x0012))
        #expect(capture.invalidated == ["180D"])
        #expect(peripheral.services?.map(\.uuid.uuidString) == ["180F"])
        #expect(heart.peripheral == nil && !measurementObject.isNotifying)
    }

    @Test func requestsOnADisconnectedPeripheralAreAPIMisuse() {
        let other = central.peripheral(identifier: CBPeer.identifier(for: .peerB), address: .peerB)
        other.discoverServices(nil)
        other.readRSSI()
        #expect(system.requestNames.isEmpty)
        #expect(central.apiMisuses.count == 2)
        #expect(
            central.apiMisuses[0].contains(
                "<CBPeripheral C0:C1:C2:C3:C4:C5> discoverServices can only be used while the peripheral is connected"))
    }

    @Test func rssiNameIncludedServicesAndChannelsReachTheirMethods() {
        let (heart, _, _) = discoverAll()
        peripheral.readRSSI()
        peripheral.deliver(.rssiRead(-48, error: nil))
        peripheral.deliver(.nameUpdated("Strap 2"))
        peripheral.discoverIncludedServices(nil, for: heart)
        system.answer(.services([battery], error: nil))
        system.flush()
        peripheral.openL2CAPChannel(0x0080)
        peripheral.deliver(.l2capChannelOpened(nil, error: CBError(.operationNotSupported)))
        #expect(system.calls.contains("readRSSI") && system.calls.contains("openL2CAPChannel 128"))
        #expect(peripheral.name == "Strap 2")
        #expect(heart.includedServices?.map(\.uuid.uuidString) == ["180F"])
        #expect(
            delegate.log.suffix(4) == [
                "peripheral(_:didReadRSSI:error:)", "peripheralDidUpdateName(_:)",
                "peripheral(_:didDiscoverIncludedServicesFor:error:)",
                "peripheral(_:didOpen:error:)",
            ])
    }
}
