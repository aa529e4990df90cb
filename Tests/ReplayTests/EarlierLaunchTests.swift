import BLETraceCoreBluetooth
import Dispatch
import Foundation
import TestSupport
import Testing

@testable import Replay

/// A launch is a new process on iOS: a manager kept from an earlier launch is said in the flow
/// (Formats/porting.md, "A launch is a new process").
@Suite struct EarlierLaunchTests {

    /// Keeps one central manager for the whole process, as libraries' shared instances do.
    final class SingletonApp: NSObject, BluetoothApp, CBCentralManagerDelegate {
        nonisolated(unsafe) static var shared: CBCentralManager?
        var known: [UUID] = []
        func didFinishLaunching(_ launch: Launch) {
            known = launch.knownPeripherals
            if let central = Self.shared {
                central.delegate = self
                if central.state == .poweredOn { centralManagerDidUpdateState(central) }
            } else {
                Self.shared = CBCentralManager(delegate: self, queue: nil)
            }
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            central.scanForPeripherals(withServices: nil)
        }
    }

    @Test func aManagerKeptFromAnEarlierLaunchIsSaidInTheFlow() async {
        // Only this test uses SingletonApp's shared manager.
        SingletonApp.shared = nil
        let capture = cassette([episode(id: 0, attempt: 1, complete: 1.2)])
        // The same replay: iOS terminates the app, and the user opens it again.
        let engine = ReplayEngine(cassette: capture)
        engine.events = [SystemEvent(.terminate, at: 1), SystemEvent(.launch, at: 2)]
        let relaunched = await engine.run(name: "singleton") { SingletonApp() }
        #expect(relaunched.events.filter { $0.name == "scanForPeripherals" }.count == 1)
        #expect(signatures(relaunched).suffix(1) == ["system relaunch reason=user"])
        let warning = "porting: a central manager of an earlier launch was used (scanForPeripherals)"
        #expect(relaunched.comments.contains { $0.hasPrefix(warning) })
        // A later replay in the same test process: the shared manager is the first replay's.
        let later = await ReplayEngine(cassette: capture).run(SingletonApp(), name: "singleton")
        #expect(signatures(later) == ["system launch app=singleton"])
        #expect(later.comments.contains { $0.hasPrefix(warning) })
        SingletonApp.shared = nil
    }
}
