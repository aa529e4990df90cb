import BLETraceCoreBluetooth
import Foundation
import Testing
import Wire

/// Every delegate method, called by name: a delegate written with CoreBluetooth's exact
/// signatures is really called, for every method of the three protocols.
@Suite struct DelegateMethodTests {
    static let centralMethods: Set<String> = [
        "centralManagerDidUpdateState(_:)", "centralManager(_:willRestoreState:)",
        "centralManager(_:didDiscover:advertisementData:rssi:)", "centralManager(_:didConnect:)",
        "centralManager(_:didFailToConnect:error:)", "centralManager(_:didDisconnectPeripheral:error:)",
        "centralManager(_:connectionEventDidOccur:for:)", "centralManager(_:didUpdateANCSAuthorizationFor:)",
    ]
    static let peripheralMethods: Set<String> = [
        "peripheralDidUpdateName(_:)", "peripheral(_:didModifyServices:)", "peripheral(_:didReadRSSI:error:)",
        "peripheral(_:didDiscoverServices:)", "peripheral(_:didDiscoverIncludedServicesFor:error:)",
        "peripheral(_:didDiscoverCharacteristicsFor:error:)", "peripheral(_:didUpdateValueFor:error:) characteristic",
        "peripheral(_:didWriteValueFor:error:) characteristic", "peripheral(_:didUpdateNotificationStateFor:error:)",
        "peripheral(_:didDiscoverDescriptorsFor:error:)", "peripheral(_:didUpdateValueFor:error:) descriptor",
        "peripheral(_:didWriteValueFor:error:) descriptor", "peripheralIsReady(toSendWriteWithoutResponse:)",
        "peripheral(_:didOpen:error:)",
    ]
    static let peripheralManagerMethods: Set<String> = [
        "peripheralManagerDidUpdateState(_:)", "peripheralManager(_:willRestoreState:)",
        "peripheralManagerDidStartAdvertising(_:error:)", "peripheralManager(_:didAdd:error:)",
        "peripheralManager(_:central:didSubscribeTo:)", "peripheralManager(_:central:didUnsubscribeFrom:)",
        "peripheralManager(_:didReceiveRead:)", "peripheralManager(_:didReceiveWrite:)",
        "peripheralManagerIsReady(toUpdateSubscribers:)", "peripheralManager(_:didPublishL2CAPChannel:error:)",
        "peripheralManager(_:didUnpublishL2CAPChannel:error:)", "peripheralManager(_:didOpen:error:)",
    ]

    @Test func everyCentralAndPeripheralDelegateMethodIsCalled() {
        let system = ScriptedSystem()
        system.restoredState = [:]
        let delegate = EveryCallbackDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let peripheral = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        peripheral.delegate = delegate
        central.scanForPeripherals(withServices: nil)
        system.send(.discovered(peripheral, advertisementData: [:], rssi: -40), to: central)
        central.connect(peripheral)
        system.send(.failedToConnect(peripheral, error: CBError(.connectionFailed)), to: central)
        system.flush()
        central.connect(peripheral)
        system.send(.connected(peripheral), to: central)
        system.send(.connectionEvent(.peerConnected, peripheral), to: central)
        system.send(.ancsAuthorizationUpdated(peripheral, authorized: false), to: central)
        system.flush()
        peripheral.discoverServices(nil)
        system.answer(.services([heartRate], error: nil))
        system.flush()
        let service = peripheral.services![0]
        peripheral.discoverIncludedServices(nil, for: service)
        peripheral.discoverCharacteristics(nil, for: service)
        system.answer(.services([], error: nil))
        system.flush()
        system.answer(.characteristics([location, measurement], error: nil))
        system.flush()
        let (measurementObject, locationObject) = (service.characteristics![0], service.characteristics![1])
        peripheral.discoverDescriptors(for: measurementObject)
        peripheral.readValue(for: locationObject)
        peripheral.writeValue(Data([1]), for: locationObject, type: .withResponse)
        peripheral.setNotifyValue(true, for: measurementObject)
        for response in [
            GATTResponse.descriptors([DescriptorDefinition(uuid: CBUUID(string: "2901"), handle: 0x000F)], error: nil),
            .value(Data([2]), error: nil), .written(error: nil), .notificationState(isNotifying: true, error: nil),
        ] {
            system.answer(response)
            system.flush()
        }
        let descriptor = measurementObject.descriptors![0]
        peripheral.readValue(for: descriptor)
        peripheral.writeValue(Data("x".utf8), for: descriptor)
        system.answer(.value(Data("name".utf8), error: nil))
        system.flush()
        system.answer(.written(error: nil))
        system.flush()
        for event: CBPeripheral.Event in [
            .nameUpdated("Strap"), .rssiRead(-40, error: nil), .readyToSendWriteWithoutResponse,
            .l2capChannelOpened(nil, error: nil), .servicesChanged(handles: 0x0001...0xFFFF),
        ] {
            peripheral.deliver(event)
        }
        system.send(.disconnected(peripheral, error: nil), to: central)
        system.flush()
        #expect(Set(delegate.log) == Self.centralMethods.union(Self.peripheralMethods))
    }

    @Test func everyPeripheralManagerDelegateMethodIsCalled() {
        let system = ScriptedSystem()
        system.restoredState = [:]
        let delegate = EveryCallbackDelegate()
        let manager = BluetoothSystemContext.with(system) { CBPeripheralManager(delegate: delegate, queue: nil) }
        system.flush()
        let service = CBMutableService(type: CBUUID(string: "FFF0"), primary: true)
        let characteristic = CBMutableCharacteristic(
            type: CBUUID(string: "FFF1"), properties: [.read, .notify], value: nil, permissions: [.readable])
        service.characteristics = [characteristic]
        manager.add(service)
        let central = CBCentral(identifier: CBPeer.identifier(for: .peerB))
        for event: CBPeripheralManager.Event in [
            .serviceAdded(service, error: nil), .advertisingStarted(error: nil),
            .subscribed(central, to: characteristic),
            .unsubscribed(central, from: characteristic),
            .readRequest(CBATTRequest(central: central, characteristic: characteristic, offset: 0, value: nil)),
            .writeRequests([CBATTRequest(central: central, characteristic: characteristic, offset: 0, value: Data([1]))]
            ),
            .l2capChannelPublished(0x80, error: nil), .l2capChannelUnpublished(0x80, error: nil),
            .l2capChannelOpened(nil, error: nil),
        ] {
            system.send(event, to: manager)
        }
        system.flush()
        system.updateRoom = 0
        _ = manager.updateValue(Data([1]), for: characteristic, onSubscribedCentrals: nil)
        manager.deliver(.readyToUpdateSubscribers)
        #expect(Set(delegate.log) == Self.peripheralManagerMethods)
    }
}
