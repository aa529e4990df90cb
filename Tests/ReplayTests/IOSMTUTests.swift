import BLETraceCoreBluetooth
import Foundation
import TestSupport
import Testing
import Wire

@testable import Flow
@testable import Replay

/// iOS exchanges its own ATT MTU when it connects (issue 41 item 8, review §4.4): a link's MTU is
/// the smaller of iOS's (185 by default) and what the peer takes, known at `didConnect`, whatever
/// the capture's host asked for; a PacketLogger capture's host is Apple's stack, whose own
/// exchange is the truth.
@Suite struct IOSMTUTests {
    final class App: NSObject, BluetoothApp, CBCentralManagerDelegate {
        let peer: BluetoothAddress
        var central: CBCentralManager?
        var peripheral: CBPeripheral?
        /// `maximumWriteValueLength(for: .withoutResponse)` inside `didConnect`.
        var atConnection: Int?
        init(peer: BluetoothAddress) { self.peer = peer }
        func didFinishLaunching(_ launch: Launch) { central = CBCentralManager(delegate: self, queue: nil) }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn,
                let known = central.retrievePeripherals(withIdentifiers: [CBPeer.identifier(for: peer)]).first
            else { return }
            peripheral = known
            central.connect(known)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            atConnection = atConnection ?? peripheral.maximumWriteValueLength(for: .withoutResponse)
        }
    }

    func replay(_ capture: String, platform: Platform = Platform()) async throws -> (App, Flow) {
        let (cassette, _) = try Cassette.load(path: Fixtures.capture(capture))
        let peer = try #require(cassette.peers.first)
        let exchanged = try #require(cassette.links(of: peer).compactMap(\.mtu).first)
        #expect(exchanged == 247, "the capture's host and peer agreed on 247")
        let app = App(peer: peer)
        let engine = ReplayEngine(cassette: cassette)
        engine.platform = platform
        let flow = await engine.run(app, name: "mtu")
        return (app, flow)
    }

    @Test func anotherHostsExchangeGivesWayToIOSsOwn() async throws {
        let (app, _) = try await replay("att-errors.btsnoop")
        #expect(app.atConnection == 182, "min(185, 247) − 3")
        #expect(app.peripheral?.mtu == 185, "the capture's later exchange of 247 is not iOS's")
    }

    @Test func aLargerIOSProposalMeetsThePeersLimit() async throws {
        let (app, _) = try await replay("att-errors.btsnoop", platform: Platform(mtu: 527))
        #expect(app.atConnection == 244, "min(527, 247) − 3")
    }

    @Test func anApplehostsCaptureKeepsItsOwnExchange() async throws {
        let (app, _) = try await replay("att-errors.pklg")
        #expect(app.atConnection == 244)
        #expect(app.peripheral?.mtu == 247)
    }
}
