import BLETraceCoreBluetooth
import Dispatch
import Foundation
import TestSupport
import Testing

@testable import Replay

/// An app's own `asyncAfter` timers on the capture's clock in a virtual replay
/// (Formats/porting.md, "Timers in a replay").
@Suite struct CaptureTimeTimersTests {

    /// Gives up 0.1 s after connecting, through `DispatchQueue.main.asyncAfter` (a library's own
    /// connect or request timeout).
    final class DispatchTimeoutApp: NSObject, BluetoothApp, CBCentralManagerDelegate {
        var central: CBCentralManager?
        var known: [UUID] = []
        var target: CBPeripheral?
        let queue: DispatchQueue?
        init(queue: DispatchQueue? = nil) { self.queue = queue }
        func didFinishLaunching(_ launch: Launch) {
            known = launch.knownPeripherals
            central = CBCentralManager(delegate: self, queue: queue)
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            target = central.retrievePeripherals(withIdentifiers: known).first
            if let target { central.connect(target) }
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            nonisolated(unsafe) let (central, peripheral) = (central, peripheral)
            (queue ?? .main).asyncAfter(deadline: .now() + 0.1) {
                central.cancelPeripheralConnection(peripheral)
            }
        }
    }

    @Test(arguments: [false, true])
    func anAsyncAfterOfTheAppFiresAtCaptureTime(ownQueue: Bool) async {
        let flow = await ReplayEngine(
            cassette: cassette([
                episode(id: 0, attempt: 1, complete: 1.2, disconnect: 5, reason: 0x08)
            ])
        ).run(DispatchTimeoutApp(queue: ownQueue ? DispatchQueue(label: "ble") : nil), name: "timeout")
        #expect(
            signatures(flow).suffix(3) == [
                "central didConnect peripheral=F0:F1:F2:F3:F4:05",
                "app cancelPeripheralConnection peripheral=F0:F1:F2:F3:F4:05",
                "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=nil",
            ])
        #expect(flow.events.suffix(2).map(\.time) == [1.3, 1.3])
    }

    @Test func anAsyncAfterOfATerminatedProcessNeverFires() async {
        let engine = ReplayEngine(
            cassette: cassette([episode(id: 0, attempt: 1, complete: 1.2, disconnect: 5, reason: 0x08)]))
        engine.events = [SystemEvent(.terminate, at: 1.25)]
        let flow = await engine.run(name: "timeout") { DispatchTimeoutApp() }
        #expect(!flow.events.contains { $0.name == "cancelPeripheralConnection" })
    }

    @Test func outsideAReplayAsyncAfterIsDispatchs() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { done.resume() }
        }
    }

    @Test func aCancelWhileIOSRetriesEndsTheAttemptWithNoWordOfTheFailure() async {
        /// Cancels its attempt from a capture-time timer at +1.2, before the failure at +1.5.
        final class CancellingApp: NSObject, BluetoothApp, CBCentralManagerDelegate {
            var central: CBCentralManager?
            var target: CBPeripheral?
            var known: [UUID] = []
            func didFinishLaunching(_ launch: Launch) {
                known = launch.knownPeripherals
                central = CBCentralManager(delegate: self, queue: nil)
            }
            func centralManagerDidUpdateState(_ central: CBCentralManager) {
                guard let peripheral = central.retrievePeripherals(withIdentifiers: known).first else { return }
                target = peripheral
                central.connect(peripheral)
                nonisolated(unsafe) let (manager, attempted) = (central, peripheral)
                DispatchQueue.main.asyncAfter(deadline: .now() + 1.2) { manager.cancelPeripheralConnection(attempted) }
            }
        }
        let flow = await ReplayEngine(cassette: SplitEvidenceTests.failedThenConnected).run(
            CancellingApp(), name: "cancelling")
        #expect(signatures(flow).last == "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=nil")
        #expect(!flow.comments.contains { $0.contains("0x3E") })
    }
}
