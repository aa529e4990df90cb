import CoreBluetoothCodes
import Foundation
import Testing
import Wire

@testable import Managers

/// A system that records what the manager asks of it.
final class RecordingSystem: BluetoothSystem {
    var calls: [String] = []
    var known: [Peripheral] = []

    func register(_ central: CentralManager) { calls.append("register") }
    func connect(_ peripheral: Peripheral, from central: CentralManager) { calls.append("connect \(peripheral.address)") }
    func cancelPeripheralConnection(_ peripheral: Peripheral, from central: CentralManager) {
        calls.append("cancel \(peripheral.address)")
    }
    func retrievePeripherals(withIdentifiers identifiers: [UUID], for central: CentralManager) -> [Peripheral] {
        known.filter { identifiers.contains($0.identifier) }
    }
}

/// A delegate that writes down every callback.
final class RecordingDelegate: CentralManagerDelegate {
    var log: [String] = []
    func centralManagerDidUpdateState(_ central: CentralManager) { log.append("state \(central.state)") }
    func centralManager(_ central: CentralManager, didConnect peripheral: Peripheral) { log.append("connected \(peripheral.state)") }
    func centralManager(_ central: CentralManager, didFailToConnect peripheral: Peripheral, error: (any Error)?) {
        log.append("failed \((error as? CBError)?.code.name ?? "nil")")
    }
    func centralManager(_ central: CentralManager, didDisconnectPeripheral peripheral: Peripheral, error: (any Error)?) {
        log.append("disconnected \((error as? CBError).map { "\($0)" } ?? "nil") \(peripheral.state)")
    }
}

@Suite struct CentralManagerTests {
    let peer = Peripheral(address: BluetoothAddress("F0:F1:F2:F3:F4:05")!)

    @Test func registersWithItsSystemAndReadsTheRestoreIdentifier() {
        let system = RecordingSystem()
        let central = CentralManager(
            delegate: nil, queue: nil, options: [CBCentralManagerOptionRestoreIdentifierKey: "door-lock"], system: system)
        #expect(system.calls == ["register"])
        #expect(central.restoreIdentifier == "door-lock")
        #expect(central.state == .unknown)
    }

    @Test func forwardsRequestsAndTracksThePeripheralState() {
        let system = RecordingSystem()
        let central = CentralManager(delegate: nil, system: system)
        central.connect(peer)
        #expect(peer.state == .connecting)
        central.cancelPeripheralConnection(peer)
        #expect(peer.state == .disconnecting)
        #expect(system.calls == ["register", "connect F0:F1:F2:F3:F4:05", "cancel F0:F1:F2:F3:F4:05"])
    }

    @Test func deliversEventsToTheDelegateAfterUpdatingState() {
        let delegate = RecordingDelegate()
        let central = CentralManager(delegate: delegate, system: RecordingSystem())
        central.deliver(.stateUpdated(.poweredOn))
        central.deliver(.connected(peer))
        central.deliver(.disconnected(peer, error: CBError(.connectionTimeout)))
        central.deliver(.failedToConnect(peer, error: CBError(.connectionFailed)))
        #expect(central.state == .poweredOn)
        #expect(delegate.log == [
            "state poweredOn", "connected connected", "disconnected CBError.connectionTimeout disconnected",
            "failed connectionFailed",
        ])
    }

    @Test func theDelegateIsHeldWeakly() {
        var delegate: RecordingDelegate? = RecordingDelegate()
        let central = CentralManager(delegate: delegate, system: RecordingSystem())
        delegate = nil
        #expect(central.delegate == nil)
    }

    @Test func retrievesKnownPeripheralsByIdentifier() {
        let system = RecordingSystem()
        system.known = [peer]
        let central = CentralManager(delegate: nil, system: system)
        #expect(central.retrievePeripherals(withIdentifiers: [peer.identifier]) == [peer])
        #expect(central.retrievePeripherals(withIdentifiers: [UUID()]).isEmpty)
    }

    @Test func identifiersAreStableAndDistinctPerAddress() {
        let again = Peripheral(address: BluetoothAddress("F0:F1:F2:F3:F4:05")!)
        let other = Peripheral(address: BluetoothAddress("F0:F1:F2:F3:F4:06")!)
        #expect(again.identifier == peer.identifier)
        #expect(other.identifier != peer.identifier)
        #expect(peer.identifier.uuidString == "B1E7AACE-0000-4000-8000-F0F1F2F3F405")
        #expect(again != peer)  // objects compare by identity, as CBPeripheral does
    }

    @Test func coreBluetoothNamesAreTheSameTypes() {
        let central: CBCentralManager = CentralManager(delegate: nil, system: RecordingSystem())
        let state: CBPeripheralState = .disconnected
        #expect(type(of: central) == CentralManager.self)
        #expect(state.rawValue == 0)
    }
}
