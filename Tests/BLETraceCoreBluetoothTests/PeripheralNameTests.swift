import BLETraceCoreBluetooth
import Foundation
import Testing
import Wire

/// `peripheral.name` (review C-4): Apple's `CBPeripheral.name` returns the GAP Device Name when a
/// peripheral has both; iOS caches it across connections (capacitor-community/bluetooth-le 60,
/// steamclock/bluejay 215). The advertised name names a peripheral only until then.
@Suite struct PeripheralNameTests {
    let system = ScriptedSystem()
    let delegate = EveryCallbackDelegate()
    let central: CBCentralManager
    let peripheral: CBPeripheral

    init() {
        central = poweredOnCentral(system, delegate: delegate)
        peripheral = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        peripheral.delegate = delegate
        central.scanForPeripherals(withServices: nil, options: [CBCentralManagerScanOptionAllowDuplicatesKey: true])
    }

    private func advertise(_ name: String) {
        central.deliver(.discovered(peripheral, advertisementData: [CBAdvertisementDataLocalNameKey: name], rssi: -50))
    }

    private var nameUpdates: Int { delegate.log.filter { $0 == "peripheralDidUpdateName(_:)" }.count }

    @Test func theGAPNameOnceReadWinsOverTheAdvertisedNameAcrossDisconnections() {
        advertise("Strap")
        #expect(peripheral.name == "Strap", "before the system reads the GAP name, the advertised one names it")
        advertise("Strap-2")
        #expect(peripheral.name == "Strap-2", "and it follows the advertisements")
        central.connect(peripheral)
        system.send(.connected(peripheral), to: central)
        system.flush()
        peripheral.deliver(.nameUpdated("Polar H10"))
        #expect(peripheral.name == "Polar H10")
        #expect(nameUpdates == 1)
        system.send(.disconnected(peripheral, error: CBError(.connectionTimeout)), to: central)
        system.flush()
        advertise("Strap-3")
        #expect(
            peripheral.name == "Polar H10", "iOS keeps the GAP name it read; the new advertisement does not rename it")
    }

    @Test func didUpdateNameComesOnlyWhenTheGAPNameChanges() {
        advertise("Polar H10")
        central.connect(peripheral)
        system.send(.connected(peripheral), to: central)
        system.flush()
        peripheral.deliver(.nameUpdated("Polar H10"))
        #expect(nameUpdates == 0, "the GAP name is the name already shown")
        system.send(.disconnected(peripheral, error: nil), to: central)
        system.flush()
        advertise("Renamed by the advertiser")
        #expect(peripheral.name == "Polar H10")
        central.connect(peripheral)
        system.send(.connected(peripheral), to: central)
        system.flush()
        peripheral.deliver(.nameUpdated("Polar H10"))
        #expect(nameUpdates == 0, "reading the same GAP name again changes nothing")
        peripheral.deliver(.nameUpdated("Polar H10 B"))
        #expect(nameUpdates == 1)
        #expect(peripheral.name == "Polar H10 B")
    }

    @Test func aNewObjectForAPeerWhoseGAPNameTheSystemKnowsIsNamedByIt() {
        let fresh = central.peripheral(identifier: CBPeer.identifier(for: .peerB), address: .peerB, name: "Lock")
        central.deliver(.discovered(fresh, advertisementData: [CBAdvertisementDataLocalNameKey: "LK-01"], rssi: -50))
        #expect(fresh.name == "Lock")
    }
}
