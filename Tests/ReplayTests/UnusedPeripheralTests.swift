import BLETraceCoreBluetooth
import Foundation
import TestSupport
import Wire
import Testing

@testable import Flow
@testable import Replay

/// iOS keeps the app's `CBPeripheral` objects weakly: a connected or connecting peripheral the app
/// lets go of loses its connection, with no callback ("API MISUSE: Forcing disconnection of
/// unused peripheral", Formats/corebluetooth.md). On `reconnect-supervision-timeout.btsnoop` the
/// peer's connection completes at +0.37 s, a notification stream follows, and the link is lost to
/// a supervision timeout; it connects again later.
@Suite struct UnusedPeripheralTests {
    static let peer = BluetoothAddress("F0:F1:F2:F3:F4:05")!

    /// Connects to the peer and keeps the object or not; `dropAfterConnect` lets go of a kept
    /// one in `didConnect`.
    final class App: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
        let keeps: Bool
        let dropAfterConnect: Bool
        var central: CBCentralManager?
        var peripheral: CBPeripheral?
        var heard: [String] = []
        init(keeps: Bool, dropAfterConnect: Bool = false) {
            self.keeps = keeps
            self.dropAfterConnect = dropAfterConnect
        }
        func didFinishLaunching(_ launch: Launch) { central = CBCentralManager(delegate: self, queue: nil) }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn,
                let known = central.retrievePeripherals(withIdentifiers: [
                    CBPeer.identifier(for: UnusedPeripheralTests.peer)
                ]).first
            else { return }
            if keeps { peripheral = known }
            central.connect(known)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            heard.append("didConnect")
            if dropAfterConnect { self.peripheral = nil }
        }
        func centralManager(
            _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
        ) {
            heard.append("didDisconnect")
        }
    }

    func replay(_ app: App) async throws -> Flow {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        return await ReplayEngine(cassette: cassette).run(app, name: "unused")
    }

    @Test func aPendingConnectTheAppDoesNotHoldIsCancelledAtOnce() async throws {
        let app = App(keeps: false)
        let flow = try await replay(app)
        #expect(app.heard.isEmpty)
        let released = try #require(flow.events.first { $0.name == "unusedPeripheral" })
        #expect(released.actor == "system")
        #expect(released.argument("peripheral") == "\(Self.peer)")
        #expect(released.argument("state") == "connecting")
        #expect(released.time == 0)
        #expect(!flow.events.contains { $0.name == "didConnect" })
        #expect(
            flow.comments.contains {
                $0.contains("API MISUSE") && $0.contains("Cancelling connection for unused peripheral")
            })
    }

    @Test func aConnectedPeripheralTheAppLetsGoOfIsDisconnectedWithNoCallback() async throws {
        let app = App(keeps: true, dropAfterConnect: true)
        let flow = try await replay(app)
        #expect(app.heard == ["didConnect"])
        let connected = try #require(flow.events.firstIndex { $0.name == "didConnect" })
        let released = try #require(flow.events.firstIndex { $0.name == "unusedPeripheral" })
        #expect(released == connected + 1)
        #expect(flow.events[released].argument("state") == "connected")
        #expect(flow.events[released].time == flow.events[connected].time)
        // Nothing more of that link reaches the app: no disconnection callback, no reconnection.
        #expect(!flow.events[released...].contains { $0.actor != "system" })
        #expect(flow.comments.contains { $0.contains("Forcing disconnection of unused peripheral") })
    }

    @Test func anAppThatKeepsItsPeripheralKeepsItsConnection() async throws {
        let app = App(keeps: true)
        let flow = try await replay(app)
        #expect(app.heard == ["didConnect", "didDisconnect"])
        #expect(!flow.events.contains { $0.name == "unusedPeripheral" })
        #expect(app.peripheral?.state == .disconnected)
    }

    /// The manager's map is weak, as the framework's: the same object while the app holds it, a
    /// new one after.
    @Test func theSameObjectOnlyWhileTheAppHoldsIt() {
        let central = CBCentralManager()
        let identifier = CBPeer.identifier(for: Self.peer)
        var first: CBPeripheral? = central.peripheral(identifier: identifier, address: Self.peer)
        #expect(central.peripheral(identifier: identifier, address: Self.peer) === first)
        weak var gone = first
        first = nil
        #expect(gone == nil)
    }
}
