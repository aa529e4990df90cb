// Formats/porting.md, "A delegate subclass": a method the subclass adds is not called through a
// conformance its superclass declared; implemented in the superclass and overridden, it is.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Testing

/// The trap: the conformance is the base class's, the disconnection handler the subclass's.
class TrapBaseCentral: NSObject, CBCentralManagerDelegate {
    var heard: [String] = []
    func centralManagerDidUpdateState(_ central: CBCentralManager) {}
}

final class TrapSensorCentral: TrapBaseCentral {
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {
        heard.append("didDisconnectPeripheral")
    }
}

/// The fix: the base class implements every delegate method the app uses (empty is enough), and
/// the subclass overrides it.
class BaseCentral: NSObject, CBCentralManagerDelegate {
    var heard: [String] = []
    func centralManagerDidUpdateState(_ central: CBCentralManager) {}
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {}
}

final class SensorCentral: BaseCentral {
    override func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {
        heard.append("didDisconnectPeripheral")
    }
}

@Suite struct DelegateSubclassTests {
    /// Calls the method as a manager does: through the protocol.
    func disconnect(_ delegate: any CBCentralManagerDelegate) {
        let central = CBCentralManager()
        let peripheral = central.peripheral(identifier: UUID())
        delegate.centralManager(central, didDisconnectPeripheral: peripheral, error: nil)
    }

    @Test func aMethodOnlyTheSubclassHasIsNotCalledThroughTheProtocol() {
        let trap = TrapSensorCentral()
        disconnect(trap)
        #if canImport(CoreBluetooth) && !BLETRACE
        #expect(trap.heard == ["didDisconnectPeripheral"], "Objective-C finds the subclass's method")
        #else
        #expect(trap.heard.isEmpty, "the protocol's default, chosen for the base class, runs instead")
        #endif
    }

    @Test func anOverrideOfTheBaseClassesMethodIs() {
        let fixed = SensorCentral()
        disconnect(fixed)
        #expect(fixed.heard == ["didDisconnectPeripheral"])
    }
}
