import BLETraceCoreBluetooth
import Foundation
import TestSupport
import Testing
import Wire

@testable import Flow
@testable import Replay

/// AccessorySetupKit's effect on Core Bluetooth (issue 41 item 10, review §4.2): an app that
/// uses it (`--accessory-setup-kit`) has its central managers `.poweredOff` until an accessory is
/// set up for it (`--accessories`), and sees only the accessories it was granted.
@Suite struct AccessorySetupKitTests {
    /// Retrieves every peripheral it knows and connects to the first; scans for everything.
    final class App: NSObject, BluetoothApp, CBCentralManagerDelegate {
        var central: CBCentralManager?
        var known: [UUID] = []
        var retrieved: [CBPeripheral] = []
        var states: [CBManagerState] = []
        var discovered: Set<UUID> = []
        func didFinishLaunching(_ launch: Launch) {
            known = launch.knownPeripherals
            central = CBCentralManager(delegate: self, queue: nil)
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            states.append(central.state)
            guard central.state == .poweredOn else { return }
            retrieved = central.retrievePeripherals(withIdentifiers: known)
            if let first = retrieved.first { central.connect(first) }
            central.scanForPeripherals(withServices: nil)
        }
        func centralManager(
            _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
            rssi RSSI: NSNumber
        ) {
            discovered.insert(peripheral.identifier)
        }
    }

    func replay(_ capture: String, _ platform: Platform) async throws -> (App, Flow, BluetoothAddress) {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture(capture))
        // The peer connected to, or the advertiser heard.
        let peer = try #require(cassette.peers.first ?? cassette.discoveries(allowDuplicates: true).first?.peer)
        let app = App()
        let engine = ReplayEngine(cassette: cassette)
        engine.platform = platform
        let flow = await engine.run(app, name: "ask")
        return (app, flow, peer)
    }

    static func ask(_ accessories: [BluetoothAddress]?) -> Platform {
        var platform = Platform(accessorySetupKit: true)
        platform.accessories = accessories
        return platform
    }

    @Test func withoutAnAccessorySetUpTheCentralStaysPoweredOff() async throws {
        let (app, flow, _) = try await replay("reconnect-supervision-timeout.btsnoop", Self.ask([]))
        let (byDefault, _, _) = try await replay(
            "reconnect-supervision-timeout.btsnoop", Platform(accessorySetupKit: true))
        #expect(byDefault.states == [.poweredOn], "by default the capture's peers are the app's accessories")
        #expect(byDefault.retrieved.count == 1)
        #expect(app.states == [.poweredOff])
        #expect(!flow.events.contains { $0.actor == "app" && $0.name == "connect" })
        #expect(flow.comments.contains { $0.contains("no accessory set up") })
        let (without, _, _) = try await replay("reconnect-supervision-timeout.btsnoop", Platform())
        #expect(without.states == [.poweredOn], "without AccessorySetupKit nothing changes")
    }

    @Test func theAppSeesOnlyTheAccessoriesItWasGranted() async throws {
        let (granted, grantedFlow, peer) = try await replay(
            "reconnect-supervision-timeout.btsnoop", Self.ask([BluetoothAddress("F0:F1:F2:F3:F4:05")!]))
        #expect(peer == BluetoothAddress("F0:F1:F2:F3:F4:05")!)
        #expect(granted.states == [.poweredOn])
        #expect(granted.retrieved.map(\.identifier) == [CBPeer.identifier(for: peer)])
        #expect(grantedFlow.events.contains { $0.actor == "central" && $0.name == "didConnect" })

        let other = BluetoothAddress("C0:FF:EE:00:00:01")!
        let (app, flow, _) = try await replay("reconnect-supervision-timeout.btsnoop", Self.ask([other]))
        #expect(app.states == [.poweredOn], "an accessory is set up: the manager is on")
        #expect(app.retrieved.isEmpty)
        #expect(!flow.events.contains { $0.actor == "app" && $0.name == "connect" })
    }

    @Test func scansReportOnlyGrantedAccessories() async throws {
        let (open, _, peer) = try await replay("scan.btsnoop", Platform())
        #expect(open.discovered == [CBPeer.identifier(for: peer)])
        let (other, _, _) = try await replay("scan.btsnoop", Self.ask([BluetoothAddress("C0:FF:EE:00:00:01")!]))
        #expect(other.discovered.isEmpty)
        let (noPeers, _, _) = try await replay("scan.btsnoop", Self.ask(nil))
        #expect(noPeers.states == [.poweredOff], "a capture that connects to nothing has no accessory")
        let (granted, _, _) = try await replay("scan.btsnoop", Self.ask([peer]))
        #expect(granted.discovered == [CBPeer.identifier(for: peer)])
    }
}
