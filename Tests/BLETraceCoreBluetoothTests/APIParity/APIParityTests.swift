import BLETraceCoreBluetooth
import Foundation
import Testing

/// Runs CoreBluetoothAPIParity.swift (every symbol of Apple's interface, with Apple's spelling)
/// against a scripted system, and checks what each part does where it is cheap to check.
@Suite struct APIParityTests {
    /// A powered-on central with a connected peripheral whose Heart Rate service, Measurement
    /// characteristic and its CCCD are discovered.
    private func discoveredPeripheral(_ system: ScriptedSystem, _ delegate: any CBPeripheralDelegate)
        throws -> (CBCentralManager, CBPeripheral, CBCharacteristic, CBDescriptor)
    {
        let central = poweredOnCentral(system, delegate: nil)
        let peripheral = connectedPeripheral(system, central, delegate: delegate)
        peripheral.discoverServices(nil)
        system.answer(.services([heartRate], error: nil))
        system.flush()
        let service = try #require(peripheral.services?.first)
        peripheral.discoverCharacteristics(nil, for: service)
        system.answer(.characteristics([measurement], error: nil))
        system.flush()
        let characteristic = try #require(service.characteristics?.first)
        peripheral.discoverDescriptors(for: characteristic)
        system.answer(.descriptors([cccd], error: nil))
        system.flush()
        return (central, peripheral, characteristic, try #require(characteristic.descriptors?.first))
    }

    @Test func constantsHoldTheStringsOfApplesFramework() {
        #expect(parityConstants.count == 38)
        #expect(parityConstants["CBAdvertisementDataLocalNameKey"] == "kCBAdvDataLocalName")
        #expect(parityConstants["CBCentralManagerOptionRestoreIdentifierKey"] == "kCBInitOptionRestoreIdentifier")
        #expect(parityConstants["CBConnectPeripheralOptionEnableAutoReconnect"] == "kCBConnectOptionAutoReconnect")
        #expect(parityConstants["CBUUIDCharacteristicUserDescriptionString"] == "2901")
        #expect(parityConstants["CBErrorDomain"] == "CBErrorDomain")
        // Keys of one dictionary must differ, or one option would stand for another.
        let centralKeys = parityConstants.filter {
            $0.key.hasPrefix("CBConnectPeripheralOption") || $0.key.hasPrefix("CBAdvertisementData")
        }
        #expect(Set(centralKeys.values).count == centralKeys.count)
    }

    @Test func enumerationsHaveApplesRawValues() {
        #expect(
            parityNames(.poweredOn, .allowedAlways, .disconnecting) == ["poweredOn", "allowedAlways", "disconnecting"])
        let values = Dictionary(uniqueKeysWithValues: parityRawValues)
        #expect(values["CBCharacteristicWriteType.withoutResponse"] == 1)
        #expect(values["CBPeripheralManagerConnectionLatency.high"] == 2)
        #expect(values["CBConnectionEvent.peerConnected"] == 1)
        #expect(values["CBCharacteristicProperties.indicateEncryptionRequired"] == 0x200)
        #expect(values["CBAttributePermissions.writeEncryptionRequired"] == 0x08)
        #expect(values["CBCentralManager.Feature.extendedScanAndConnect"] == 1)
    }

    @Test @available(*, deprecated) func deprecatedNamesStillAnswer() throws {
        let system = ScriptedSystem()
        system.authorization = .denied
        let delegate = ParityPeripheralDelegate()
        let (central, peripheral, characteristic, _) = try discoveredPeripheral(system, delegate)
        let names = BluetoothSystemContext.with(system) { parityDeprecatedNames(characteristic, peripheral, central) }
        #expect(names[0] == "5")
        #expect(names[2] == "2", "CBPeripheralManager.authorizationStatus() follows CBManager.authorization (.denied)")
        #expect(names[3] == "false", "isBroadcasted: systems do not report the Server Characteristic Configuration")
    }

    @Test func uuidsAndAttributesReadAsOnIOS() {
        let uuids = parityUUIDs()
        #expect(uuids[0] == uuids[1])
        #expect(uuids[2].uuidString == "E20A39F4-73F5-4BC4-A12F-17D1AD07A961")
        let lines = parityDescribe(parityMutableService())
        #expect(lines[0] == "FFF0 primary=true included=0 peripheral=false")
        #expect(lines[1] == "FFF1 58 value=-1 notifying=false service=true", "read|write|notify|indicate = 0x3A")
        #expect(lines[2] == "permissions=7 subscribed=0")
        #expect(lines[3] == "Characteristic User Description Level of=true", "a CBUUID prints its assigned name")
        #expect(lines[4].hasPrefix("FFF2 2 value=2"))
    }

    @Test func everyCentralCallReachesTheSystem() throws {
        let system = ScriptedSystem()
        let delegate = ParityCentralDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let peripheral = connectedPeripheral(system, central, delegate: nil)
        BluetoothSystemContext.with(system) { parityCentralCalls(central, peripheral, delegate: delegate) }
        system.flush()
        #expect(central.apiMisuses.isEmpty, "\(central.apiMisuses)")
        for call in ["scan 180D", "stopScan", "connect F0:F1:F2:F3:F4:05"] {
            #expect(system.calls.contains(call), "\(call) in \(system.calls)")
        }
        #expect(!CBCentralManager.supports(.extendedScanAndConnect), "bletrace's systems model no extended scans")
    }

    @Test func everyPeripheralCallIsQueuedOrSentAsOnIOS() throws {
        let system = ScriptedSystem()
        let delegate = ParityPeripheralDelegate()
        let (_, peripheral, characteristic, descriptor) = try discoveredPeripheral(system, delegate)
        let facts = parityPeripheralCalls(peripheral, characteristic, descriptor, delegate: delegate)
        #expect(facts == [peripheral.identifier.uuidString, "(no name)", "2", "1", "true", "false", "512", "true"])
        #expect(system.calls.contains("readRSSI"))
        #expect(system.calls.contains("openL2CAPChannel 128"))
    }

    @Test func everyPeripheralManagerCallReachesTheSystem() throws {
        let system = ScriptedSystem()
        let delegate = ParityPeripheralManagerDelegate()
        let manager = BluetoothSystemContext.with(system) { CBPeripheralManager(delegate: delegate, queue: nil) }
        system.flush()
        let service = parityMutableService()
        let central = CBCentral(identifier: UUID(), maximumUpdateValueLength: 182)
        let sent = BluetoothSystemContext.with(system) {
            parityPeripheralManagerCalls(manager, service, nil, central: central, delegate: delegate)
        }
        #expect(!sent, "the service was not yet published when updateValue was called (didAdd comes later)")
        for call in ["removeAllServices", "stopAdvertising", "unpublishL2CAPChannel 128"] {
            #expect(system.calls.contains(call), "\(call) in \(system.calls)")
        }
    }

    // Deprecated itself: it calls `peripheralDidUpdateRSSI(_:error:)`, deprecated in Apple's SDK.
    @Test @available(*, deprecated) func delegateMethodsWithApplesSignaturesAreTheProtocolsMethods() throws {
        let system = ScriptedSystem()
        let centralDelegate = ParityCentralDelegate()
        let peripheralDelegate = ParityPeripheralDelegate()
        let (central, peripheral, characteristic, descriptor) = try discoveredPeripheral(system, peripheralDelegate)
        peripheralDelegate.called = []
        parityCallEveryCentralMethod(centralDelegate, central, peripheral)
        #expect(Set(centralDelegate.called).count == 9, "\(centralDelegate.called)")
        parityCallEveryPeripheralMethod(
            peripheralDelegate, peripheral, characteristic.service!, characteristic, descriptor)
        #expect(Set(peripheralDelegate.called).count == 15, "\(peripheralDelegate.called)")

        let managerDelegate = ParityPeripheralManagerDelegate()
        let manager = BluetoothSystemContext.with(system) { CBPeripheralManager(delegate: nil, queue: nil) }
        let service = parityMutableService()
        let remote = CBCentral(identifier: UUID())
        let request = CBATTRequest(central: remote, characteristic: service.characteristics![0], offset: 0, value: nil)
        parityCallEveryPeripheralManagerMethod(managerDelegate, manager, remote, service, request)
        #expect(Set(managerDelegate.called).count == 12, "\(managerDelegate.called)")
    }

    @Test func errorsHaveApplesBridgedShapeAndTexts() {
        let lines = parityErrors()
        #expect(lines[0] == "CBErrorDomain")
        #expect(lines[1] == "CBATTErrorDomain")
        #expect(lines[2] == "6" && lines[3] == "6")
        #expect(lines[4] == "The connection has timed out unexpectedly.")
        #expect(lines[5] == "test")
        #expect(lines[6] == "true", "CBError(_nsError:) keeps the NSError's code")
        #expect(lines[7] == "6")
        #expect(lines[8] == "1", "the framework's description is the user info")
        #expect(lines[9] == "Encryption is insufficient.")
        #expect(lines[10] == "true")
        #expect(lines.suffix(3) == ["caught peripheralDisconnected", "cast", "CBErrorDomain 7"])
    }

    @Test func objectsFormatWithPercentAtAsTheirDescription() throws {
        let system = ScriptedSystem()
        let central = poweredOnCentral(system, delegate: nil)
        let peripheral = connectedPeripheral(system, central, delegate: nil)
        let text = parityFormat(peripheral, CBUUID(string: "180D"), central)
        #expect(text == "\(peripheral.description) has Heart Rate (\(central.description)), RSSI -60")
        // Many times over, as a logger does: the strings passed stay alive for each call.
        for index in 0..<200 {
            #expect(String(format: "%d %@", index, peripheral) == "\(index) \(peripheral.description)")
        }
    }
}
