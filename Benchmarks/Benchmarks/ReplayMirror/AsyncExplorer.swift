// The reference app "explorer" (Sources/Replay/ReferenceApps.swift) written again as iOS apps are
// written since Swift concurrency, for replay_1M_records_explorer_async: a task per peripheral
// awaits the connection and the service discovery (checked continuations resumed by the
// callbacks), then reads the characteristics' discoveries and the values from AsyncStreams. It
// asks for what the explorer asks for, in the same order, at the same capture times.
import BLETrace
import Foundation

final class AsyncExplorer: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate, @unchecked Sendable {
    private var central: CBCentralManager?
    private var poweredOn: CheckedContinuation<Void, Never>?
    private var connecting: [UUID: CheckedContinuation<Void, any Error>] = [:]
    private var discovering: [UUID: CheckedContinuation<Void, any Error>] = [:]
    private var discovered: [UUID: AsyncStream<CBService>.Continuation] = [:]
    private var values: [UUID: AsyncStream<Void>.Continuation] = [:]
    private(set) var valuesSeen = 0

    func didFinishLaunching(_ launch: Launch) {
        central = CBCentralManager(delegate: self, queue: nil)
        let known = launch.knownPeripherals
        Task {
            await withCheckedContinuation { poweredOn = $0 }
            for peripheral in central!.retrievePeripherals(withIdentifiers: known) {
                nonisolated(unsafe) let peripheral = peripheral
                peripheral.delegate = self
                let (services, servicesSink) = AsyncStream<CBService>.makeStream()
                let (updates, updatesSink) = AsyncStream<Void>.makeStream()
                (discovered[peripheral.identifier], values[peripheral.identifier]) = (servicesSink, updatesSink)
                Task { try await explore(peripheral, services, updates) }
            }
        }
    }

    private func explore(_ peripheral: CBPeripheral, _ services: AsyncStream<CBService>, _ updates: AsyncStream<Void>) async throws {
        try await withCheckedThrowingContinuation { connecting[peripheral.identifier] = $0; central!.connect(peripheral) }
        try await withCheckedThrowingContinuation { discovering[peripheral.identifier] = $0; peripheral.discoverServices(nil) }
        var remaining = peripheral.services?.count ?? 0
        for service in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: service) }
        for await service in services where remaining > 0 {
            remaining -= 1
            for characteristic in service.characteristics ?? [] {
                peripheral.discoverDescriptors(for: characteristic)
                if characteristic.properties.contains(.read) { peripheral.readValue(for: characteristic) }
                if !characteristic.properties.isDisjoint(with: [.notify, .indicate]) {
                    peripheral.setNotifyValue(true, for: characteristic)
                }
            }
            if remaining == 0 { break }
        }
        for await _ in updates { valuesSeen += 1 }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn { poweredOn?.resume() }
        poweredOn = nil
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        connecting.removeValue(forKey: peripheral.identifier)?.resume()
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        connecting.removeValue(forKey: peripheral.identifier)?.resume(throwing: error ?? CBError(.connectionFailed))
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) {
        discovering.removeValue(forKey: peripheral.identifier)?.resume(throwing: error ?? CBError(.peripheralDisconnected))
        discovered.removeValue(forKey: peripheral.identifier)?.finish()
        values.removeValue(forKey: peripheral.identifier)?.finish()
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        discovering.removeValue(forKey: peripheral.identifier)?.resume()
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        discovered[peripheral.identifier]?.yield(service)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        values[peripheral.identifier]?.yield()
    }
}
