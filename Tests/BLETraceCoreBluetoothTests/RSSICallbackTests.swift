import BLETraceCoreBluetooth
import Foundation
import Testing
import Wire

/// `readRSSI()`'s answer (review D-7): the decompiled `handleRSSIUpdated:` (iOS 18.2) calls
/// `peripheral(_:didReadRSSI:error:)` when the delegate implements it, and the deprecated
/// `peripheralDidUpdateRSSI(_:error:)` only otherwise.
@Suite struct RSSICallbackTests {
    /// An app written before iOS 8: only the deprecated method.
    final class OldRSSIDelegate: NSObject, CBPeripheralDelegate {
        var log: [String] = []
        @available(*, deprecated)
        func peripheralDidUpdateRSSI(_ peripheral: CBPeripheral, error: (any Error)?) {
            log.append("peripheralDidUpdateRSSI \((peripheral.rssi?.intValue).map { "\($0)" } ?? "nil")")
        }
    }

    /// Both methods: the newer one wins.
    final class BothRSSIDelegate: NSObject, CBPeripheralDelegate {
        var log: [String] = []
        @available(*, deprecated)
        func peripheralDidUpdateRSSI(_ peripheral: CBPeripheral, error: (any Error)?) {
            log.append("peripheralDidUpdateRSSI")
        }
        func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?) {
            log.append("didReadRSSI \(RSSI)")
        }
    }

    @Test func aDelegateWithOnlyTheDeprecatedMethodGetsIt() {
        let system = ScriptedSystem()
        let central = poweredOnCentral(system, delegate: nil)
        let delegate = OldRSSIDelegate()
        let peripheral = connectedPeripheral(system, central, delegate: delegate)
        peripheral.readRSSI()
        peripheral.deliver(.rssiRead(-61, error: nil))
        #expect(delegate.log == ["peripheralDidUpdateRSSI -61"])
    }

    @Test func aDelegateWithBothGetsTheNewerOneOnly() {
        let system = ScriptedSystem()
        let central = poweredOnCentral(system, delegate: nil)
        let delegate = BothRSSIDelegate()
        let peripheral = connectedPeripheral(system, central, delegate: delegate)
        peripheral.readRSSI()
        peripheral.deliver(.rssiRead(-61, error: nil))
        #expect(delegate.log == ["didReadRSSI -61"])
    }
}
