import BLETraceCoreBluetooth
import Foundation
import TestSupport
import Wire
import Testing

@testable import Flow
@testable import Replay

/// `CBConnectPeripheralOptionEnableAutoReconnect` (iOS 17): after a disconnection the system
/// connects again by itself; the app hears `didDisconnectPeripheral(…isReconnecting: true…)`,
/// then `didConnect`, without calling `connect` again.
@Suite struct AutoReconnectTests {
    final class App: NSObject, BluetoothApp, CBCentralManagerDelegate {
        let autoReconnect: Bool
        var central: CBCentralManager?
        var peripheral: CBPeripheral?
        var heard: [String] = []
        init(autoReconnect: Bool) { self.autoReconnect = autoReconnect }
        func didFinishLaunching(_ launch: Launch) {
            central = CBCentralManager(delegate: self, queue: nil)
            peripheral = nil
            _ = launch
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn,
                let known = central.retrievePeripherals(withIdentifiers: [
                    CBPeer.identifier(for: BluetoothAddress("F0:F1:F2:F3:F4:05")!)
                ]).first
            else { return }
            peripheral = known
            central.connect(known, options: autoReconnect ? [CBConnectPeripheralOptionEnableAutoReconnect: true] : nil)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            heard.append("didConnect \(peripheral.state)")
        }
        func centralManager(
            _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
            isReconnecting: Bool, error: (any Error)?
        ) {
            heard.append("didDisconnect isReconnecting=\(isReconnecting) \(peripheral.state) \(timestamp > 0)")
        }
    }

    func replay(autoReconnect: Bool) async throws -> (App, Flow) {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        let app = App(autoReconnect: autoReconnect)
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "auto")
        return (app, flow)
    }

    @Test func theSystemReconnectsAndTheAppIsToldSo() async throws {
        let (app, flow) = try await replay(autoReconnect: true)
        // The peripheral is already connecting during the callback (review C-7).
        #expect(
            app.heard == [
                "didConnect connected", "didDisconnect isReconnecting=true connecting true", "didConnect connected",
            ])
        #expect(flow.events.filter { $0.actor == "app" && $0.name == "connect" }.count == 1)
        #expect(app.peripheral?.state == .connected)
        let disconnection = try #require(flow.events.first { $0.name == "didDisconnectPeripheral" })
        #expect(disconnection.argument("isReconnecting") == "true")
        #expect(disconnection.argument("error") == "CBError.connectionTimeout")
    }

    @Test func withoutTheOptionTheLinkStaysDown() async throws {
        let (app, flow) = try await replay(autoReconnect: false)
        #expect(app.heard == ["didConnect connected", "didDisconnect isReconnecting=false disconnected true"])
        #expect(flow.events.first { $0.name == "didDisconnectPeripheral" }?.argument("isReconnecting") == nil)
    }

    /// An app that implements only the older disconnection method (as AsyncBluetooth did, its
    /// issue 40): iOS refuses auto-reconnect inside `connect`, and the app never connects.
    final class OlderApp: NSObject, BluetoothApp, CBCentralManagerDelegate {
        var central: CBCentralManager?
        var heard: [String] = []
        func didFinishLaunching(_ launch: Launch) { central = CBCentralManager(delegate: self, queue: nil) }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn,
                let known = central.retrievePeripherals(withIdentifiers: [
                    CBPeer.identifier(for: BluetoothAddress("F0:F1:F2:F3:F4:05")!)
                ]).first
            else { return }
            heard.append("connect")
            central.connect(known, options: [CBConnectPeripheralOptionEnableAutoReconnect: true])
            heard.append("connect returned")
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            heard.append("didConnect")
        }
        func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?)
        {
            heard.append("didFailToConnect \(error.map { "\($0)" } ?? "nil")")
        }
        func centralManager(
            _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
        ) {
            heard.append("didDisconnect")
        }
    }

    @Test func withoutTheIOS17MethodTheOptionFailsTheConnectAtOnce() async throws {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        let app = OlderApp()
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "older")
        #expect(app.heard == ["connect", "didFailToConnect CBError.invalidParameters", "connect returned"])
        let failure = try #require(flow.events.first { $0.name == "didFailToConnect" })
        #expect(failure.argument("error") == "CBError.invalidParameters")
        #expect(!flow.events.contains { $0.name == "didConnect" })
        #expect(flow.events.first { $0.actor == "app" && $0.name == "connect" }?.argument("autoReconnect") == "true")
    }
}
