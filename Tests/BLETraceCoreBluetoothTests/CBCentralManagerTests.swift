import BLETraceCoreBluetooth
import Dispatch
import Foundation
import Testing
import Wire

@Suite struct CBCentralManagerTests {
    @Test func everyInitialiserFindsTheSystemOfItsContextAndReadsTheRestoreIdentifier() {
        let system = ScriptedSystem()
        let (plain, twoArguments, withOptions) = BluetoothSystemContext.with(system) {
            (
                CBCentralManager(),
                CBCentralManager(delegate: nil, queue: nil),
                CBCentralManager(
                    delegate: nil, queue: nil, options: [CBCentralManagerOptionRestoreIdentifierKey: "door-lock"])
            )
        }
        #expect(system.calls == Array(repeating: "init CBCentralManager", count: 3))
        #expect(plain.system === system && twoArguments.system === system && withOptions.system === system)
        #expect(withOptions.restoreIdentifier == "door-lock")
        #expect(plain.restoreIdentifier == nil)
        // The state comes later, as a callback; until then it is unknown.
        #expect(plain.state == .unknown)
        system.flush()
        #expect(plain.state == .poweredOn)
    }

    @Test func aReleasedBindingBindsNothing() {
        let system = ScriptedSystem()
        let binding = BluetoothSystemContext.Binding(system)
        let before = BluetoothSystemContext.with(binding) { CBCentralManager() }
        binding.release()
        let after = BluetoothSystemContext.with(binding) { CBCentralManager() }
        #expect(before.system === system)
        #expect(!(after.system is ScriptedSystem))
        #expect(system.calls == ["init CBCentralManager"])
    }

    @Test func aManagerOutsideAnySystemReportsUnsupportedOnItsQueue() async {
        let delegate = EveryCallbackDelegate()
        let queue = DispatchQueue(label: "outside")
        let central = CBCentralManager(delegate: delegate, queue: queue)
        for _ in 0..<200 where queue.sync(execute: { central.state }) != .unsupported {
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        queue.sync {
            #expect(central.state == .unsupported)
            #expect(delegate.log == ["centralManagerDidUpdateState(_:)"])
            central.scanForPeripherals(withServices: nil)
            #expect(central.isScanning == false)
            #expect(central.apiMisuses.count == 1)
        }
    }

    @Test func willRestoreStateComesBeforeDidUpdateState() {
        let system = ScriptedSystem()
        system.restoredState = [CBCentralManagerRestoredStateScanServicesKey: [CBUUID(string: "180D")]]
        let delegate = EveryCallbackDelegate()
        _ = poweredOnCentral(system, delegate: delegate)
        #expect(delegate.log == ["centralManager(_:willRestoreState:)", "centralManagerDidUpdateState(_:)"])
    }

    @Test func callsWhileNotPoweredOnAreAPIMisuseAndNeverReachTheSystem() {
        let system = ScriptedSystem()
        system.initialState = .poweredOff
        system.known = [.peerA]
        let central = poweredOnCentral(system, delegate: nil)
        let peripheral = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        central.scanForPeripherals(withServices: nil)
        central.stopScan()
        central.connect(peripheral)
        central.cancelPeripheralConnection(peripheral)
        #expect(central.retrievePeripherals(withIdentifiers: [peripheral.identifier]).isEmpty)
        #expect(central.retrieveConnectedPeripherals(withServices: [CBUUID(string: "180D")]).isEmpty)
        central.registerForConnectionEvents()
        #expect(system.calls == ["init CBCentralManager"])
        #expect(central.apiMisuses.count == 7)
        #expect(system.misuses == central.apiMisuses)
        #expect(
            central.apiMisuses[2]
                == "API MISUSE: <CBCentralManager> can only accept connect while powered on (state is poweredOff)")
        #expect(peripheral.state == .disconnected)
    }

    @Test func theSamePeerIsTheSameObjectOnEveryCall() {
        let system = ScriptedSystem()
        system.known = [.peerA, .peerB]
        let central = poweredOnCentral(system, delegate: nil)
        let first = central.retrievePeripherals(withIdentifiers: [CBPeer.identifier(for: .peerA)])
        let second = central.retrievePeripherals(withIdentifiers: [
            CBPeer.identifier(for: .peerB), CBPeer.identifier(for: .peerA),
        ])
        #expect(first.count == 1 && second.count == 2)
        #expect(first[0] === second[1])
        #expect(first[0] !== second[0])
        #expect(first[0].identifier == CBPeer.identifier(for: .peerA))
        #expect(first[0].identifier.uuidString == "B1E7AACE-0000-4000-8000-F0F1F2F3F405")
    }

    @Test func anIdentifierGivesBackTheAddressItWasMadeFromAndNoOtherUUIDDoes() throws {
        for raw: UInt64 in [0, 1, 0xF0F1_F2F3_F405, 0xFFFF_FFFF_FFFF, 0x0000_0A00_0000] {
            let address = BluetoothAddress(rawValue: raw)
            let identifier = CBPeer.identifier(for: address)
            #expect(CBPeer.address(in: identifier) == address)
            #expect(identifier.uuidString.hasPrefix("B1E7AACE-0000-4000-8000-"))
        }
        #expect(CBPeer.address(in: try #require(UUID(uuidString: "B1E7AACE-0000-4000-8001-F0F1F2F3F405"))) == nil)
        #expect(CBPeer.address(in: UUID()) == nil)
    }

    @Test func aScanReportsEachMatchingPeripheralOncePerScan() {
        let system = ScriptedSystem()
        let delegate = EveryCallbackDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let a = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        let b = central.peripheral(identifier: CBPeer.identifier(for: .peerB), address: .peerB)
        let heart: [String: Any] = [
            CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180D")], CBAdvertisementDataLocalNameKey: "Strap",
        ]
        let other: [String: Any] = [CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "FEAA")]]
        // Outside a scan nothing is reported.
        #expect(!central.deliver(.discovered(a, advertisementData: heart, rssi: -60)))
        central.scanForPeripherals(withServices: [CBUUID(string: "0000180D-0000-1000-8000-00805F9B34FB")])
        #expect(central.isScanning)
        #expect(system.calls.last == "scan 180D")
        #expect(central.deliver(.discovered(a, advertisementData: heart, rssi: -60)))
        #expect(!central.deliver(.discovered(a, advertisementData: heart, rssi: -58)), "a duplicate is coalesced")
        #expect(
            !central.deliver(.discovered(b, advertisementData: other, rssi: -70)), "another service is filtered out")
        #expect(a.name == "Strap", "the advertised name names a peripheral with none")
        // A new scan with duplicates allowed reports every advertisement.
        central.scanForPeripherals(withServices: nil, options: [CBCentralManagerScanOptionAllowDuplicatesKey: true])
        #expect(central.deliver(.discovered(a, advertisementData: heart, rssi: -60)))
        #expect(central.deliver(.discovered(a, advertisementData: heart, rssi: -61)))
        #expect(central.deliver(.discovered(b, advertisementData: other, rssi: -70)))
        central.stopScan()
        #expect(!central.isScanning)
        #expect(!central.deliver(.discovered(b, advertisementData: other, rssi: -70)))
        #expect(delegate.log.filter { $0.hasPrefix("centralManager(_:didDiscover") }.count == 4)
    }

    @Test func aScanForServicesAlsoMatchesOverflowAndSolicitedServices() {
        let system = ScriptedSystem()
        let central = poweredOnCentral(system, delegate: nil)
        let a = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        let b = central.peripheral(identifier: CBPeer.identifier(for: .peerB), address: .peerB)
        central.scanForPeripherals(
            withServices: [CBUUID(string: "180D")],
            options: [CBCentralManagerScanOptionSolicitedServiceUUIDsKey: [CBUUID(string: "1812")]])
        #expect(
            central.deliver(
                .discovered(
                    a, advertisementData: [CBAdvertisementDataOverflowServiceUUIDsKey: [CBUUID(string: "180D")]],
                    rssi: -50)))
        #expect(
            central.deliver(
                .discovered(
                    b, advertisementData: [CBAdvertisementDataSolicitedServiceUUIDsKey: [CBUUID(string: "1812")]],
                    rssi: -50)))
    }

    @Test func connectMovesToConnectingAndNeverTimesOut() {
        let system = ScriptedSystem()
        let delegate = EveryCallbackDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let peripheral = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        central.connect(peripheral)
        #expect(peripheral.state == .connecting)
        // Nothing the system says: the attempt stays pending, with no callback and no timeout.
        system.flush()
        #expect(peripheral.state == .connecting)
        #expect(delegate.log == ["centralManagerDidUpdateState(_:)"])
        // Asking again changes nothing (the system is told, and starts no second attempt).
        central.connect(peripheral)
        #expect(peripheral.state == .connecting)
        #expect(system.calls.filter { $0.hasPrefix("connect") }.count == 2)
        system.send(.connected(peripheral), to: central)
        system.flush()
        #expect(peripheral.state == .connected)
        #expect(peripheral.mtu == 23)
        #expect(delegate.log.last == "centralManager(_:didConnect:)")
    }

    @Test func aFailedAttemptLeavesThePeripheralDisconnectedWithTheError() {
        let system = ScriptedSystem()
        let delegate = EveryCallbackDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let peripheral = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        central.connect(peripheral)
        system.send(.failedToConnect(peripheral, error: CBError(.connectionFailed)), to: central)
        system.flush()
        #expect(peripheral.state == .disconnected)
        #expect(delegate.errors == ["centralManager(_:didFailToConnect:error:) CBError.connectionFailed"])
    }

    @Test func aCancelIsAnsweredWithNoErrorWhateverTheLinkSaid() {
        let system = ScriptedSystem()
        let delegate = EveryCallbackDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let peripheral = connectedPeripheral(system, central, delegate: nil)
        central.cancelPeripheralConnection(peripheral)
        #expect(peripheral.state == .disconnecting)
        #expect(system.calls.last == "cancel F0:F1:F2:F3:F4:05")
        system.send(.disconnected(peripheral, error: CBError(.peripheralDisconnected)), to: central)
        system.flush()
        #expect(peripheral.state == .disconnected)
        #expect(delegate.log.last == "centralManager(_:didDisconnectPeripheral:error:)")
        #expect(delegate.errors.isEmpty)
    }

    @Test func aDisconnectionTheAppDidNotAskForCarriesItsError() {
        let system = ScriptedSystem()
        let delegate = EveryCallbackDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let peripheral = connectedPeripheral(system, central, delegate: nil)
        system.send(.disconnected(peripheral, error: CBError(.connectionTimeout)), to: central)
        system.flush()
        #expect(delegate.errors == ["centralManager(_:didDisconnectPeripheral:error:) CBError.connectionTimeout"])
    }

    @Test func aDelegateWithTheIOS17FormIsCalledThereOnly() {
        let system = ScriptedSystem()
        let delegate = NewDisconnectionDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let peripheral = connectedPeripheral(system, central, delegate: nil)
        system.send(
            .disconnected(peripheral, error: CBError(.connectionTimeout), timestamp: 12.5, isReconnecting: true),
            to: central)
        system.flush()
        #expect(delegate.log == ["new form timestamp=12.5 isReconnecting=true error=CBError.connectionTimeout"])
    }

    /// The decompiled framework (CBCentralManager's state observer), Nordic's mock and field
    /// reports (flutter_blue_plus, kable): at power-off only `centralManagerDidUpdateState` comes,
    /// and each peripheral is already disconnected when it does.
    @Test func poweredOffEndsTheScanAndTheConnectionsBeforeTheStateUpdateWithNoDisconnectionCallback() {
        let system = ScriptedSystem()
        let delegate = EveryCallbackDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let connected = connectedPeripheral(system, central, delegate: nil)
        let connecting = central.peripheral(identifier: CBPeer.identifier(for: .peerB), address: .peerB)
        central.connect(connecting)
        central.scanForPeripherals(withServices: nil)
        delegate.log = []
        var seenInTheCallback: (CBPeripheralState, Bool, Int)?
        delegate.onStateUpdate = { seenInTheCallback = (connected.state, connected.services == nil, connected.mtu) }
        system.send(.stateUpdated(.poweredOff), to: central)
        system.flush()
        #expect(!central.isScanning)
        #expect(connected.state == .disconnected && connecting.state == .disconnected)
        #expect(seenInTheCallback?.0 == .disconnected && seenInTheCallback?.1 == true && seenInTheCallback?.2 == 23)
        #expect(delegate.log == ["centralManagerDidUpdateState(_:)"])
        #expect(delegate.errors.isEmpty)
        #expect(!connected.canSendWriteWithoutResponse)
        // poweredOff keeps the peripheral objects.
        #expect(central.peripheral(identifier: connected.identifier) === connected)
    }

    @Test(arguments: [CBManagerState.resetting, .unsupported, .unauthorized, .unknown])
    func anyOtherStateInvalidatesEveryPeripheralObject(_ state: CBManagerState) {
        let system = ScriptedSystem()
        system.known = [.peerA]
        let central = poweredOnCentral(system, delegate: nil)
        let before = connectedPeripheral(system, central, delegate: nil)
        system.send(.stateUpdated(state), to: central)
        system.send(.stateUpdated(.poweredOn), to: central)
        system.flush()
        #expect(before.state == .disconnected)
        let after = central.retrievePeripherals(withIdentifiers: [before.identifier])
        #expect(after.count == 1 && after[0] !== before)
        // The old object is refused.
        central.connect(before)
        #expect(central.apiMisuses.last?.contains("not a valid one of this central manager") == true)
    }

    @Test func callbacksRunOnTheDelegatesQueue() {
        final class QueueCheckingDelegate: NSObject, CBCentralManagerDelegate {
            let key = DispatchSpecificKey<String>()
            var seen: [String?] = []
            func centralManagerDidUpdateState(_ central: CBCentralManager) {
                seen.append(DispatchQueue.getSpecific(key: key))
            }
        }
        let delegate = QueueCheckingDelegate()
        let queue = DispatchQueue(label: "ble")
        queue.setSpecific(key: delegate.key, value: "ble")
        let system = ScriptedSystem()
        _ = poweredOnCentral(system, delegate: delegate, queue: queue)
        #expect(delegate.seen == ["ble"])
    }

    @Test func theDelegateIsHeldWeakly() {
        let system = ScriptedSystem()
        var delegate: EveryCallbackDelegate? = EveryCallbackDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        delegate = nil
        #expect(central.delegate == nil)
    }

    @Test func connectionEventsANCSAndConnectedPeripheralsReachTheirMethods() {
        let system = ScriptedSystem()
        let delegate = EveryCallbackDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let peripheral = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        central.registerForConnectionEvents(options: [.serviceUUIDs: [CBUUID(string: "180D")]])
        _ = central.retrieveConnectedPeripherals(withServices: [CBUUID(string: "180D")])
        system.send(.connectionEvent(.peerConnected, peripheral), to: central)
        system.send(.ancsAuthorizationUpdated(peripheral, authorized: true), to: central)
        system.flush()
        #expect(system.calls.suffix(2) == ["registerForConnectionEvents", "retrieveConnected 180D"])
        #expect(
            delegate.log.suffix(2) == [
                "centralManager(_:connectionEventDidOccur:for:)", "centralManager(_:didUpdateANCSAuthorizationFor:)",
            ])
        #expect(peripheral.ancsAuthorized)
    }

    @Test func authorizationAndFeaturesComeFromTheSystem() {
        let system = ScriptedSystem()
        system.authorization = .denied
        #expect(BluetoothSystemContext.with(system) { CBManager.authorization } == .denied)
        #expect(CBManager.authorization == .allowedAlways)
        #expect(!CBCentralManager.supports(.extendedScanAndConnect))
    }
}
