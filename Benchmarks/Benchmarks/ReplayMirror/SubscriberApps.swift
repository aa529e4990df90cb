// The same app twice, for replay_1M_records_subscriber_callbacks and _async: it connects to every
// peripheral it knows, discovers every service and characteristic, subscribes to every one that
// notifies and counts the notifications. Once written with delegate callbacks, once as iOS apps
// are written since Swift concurrency: a task per peripheral that awaits each step (checked
// continuations resumed by the callbacks) and reads the notifications from an AsyncStream.
import BLETrace
import Foundation

/// Delegate callbacks only.
final class CallbackSubscriber: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
    private var central: CBCentralManager?
    private var known: [UUID] = []
    private var peripherals: [CBPeripheral] = []
    private(set) var notifications = 0

    func didFinishLaunching(_ launch: Launch) {
        known = launch.knownPeripherals
        central = CBCentralManager(delegate: self, queue: nil)
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        peripherals = central.retrievePeripherals(withIdentifiers: known)
        for peripheral in peripherals {
            peripheral.delegate = self
            central.connect(peripheral)
        }
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.discoverServices(nil)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        for service in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: service) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        for characteristic in service.characteristics ?? [] where characteristic.properties.contains(.notify) {
            peripheral.setNotifyValue(true, for: characteristic)
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        notifications += 1
    }
}

/// Swift concurrency: one task per peripheral.
final class AsyncSubscriber: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate, @unchecked Sendable {
    private var central: CBCentralManager?
    private var poweredOn: CheckedContinuation<Void, Never>?
    private var connecting: [UUID: CheckedContinuation<Void, any Error>] = [:]
    private var discovering: [UUID: CheckedContinuation<Void, any Error>] = [:]
    private var values: [UUID: AsyncStream<Data>.Continuation] = [:]
    private(set) var notifications = 0

    func didFinishLaunching(_ launch: Launch) {
        central = CBCentralManager(delegate: self, queue: nil)
        let known = launch.knownPeripherals
        Task {
            await withCheckedContinuation { poweredOn = $0 }
            for peripheral in central!.retrievePeripherals(withIdentifiers: known) {
                nonisolated(unsafe) let peripheral = peripheral
                Task { try await follow(peripheral) }
            }
        }
    }

    private func follow(_ peripheral: CBPeripheral) async throws {
        peripheral.delegate = self
        let (stream, sink) = AsyncStream<Data>.makeStream()
        values[peripheral.identifier] = sink
        try await withCheckedThrowingContinuation { connecting[peripheral.identifier] = $0; central!.connect(peripheral) }
        try await withCheckedThrowingContinuation { discovering[peripheral.identifier] = $0; peripheral.discoverServices(nil) }
        for service in peripheral.services ?? [] {
            try await withCheckedThrowingContinuation {
                discovering[peripheral.identifier] = $0
                peripheral.discoverCharacteristics(nil, for: service)
            }
            for characteristic in service.characteristics ?? [] where characteristic.properties.contains(.notify) {
                peripheral.setNotifyValue(true, for: characteristic)
            }
        }
        for await _ in stream { notifications += 1 }
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
        values.removeValue(forKey: peripheral.identifier)?.finish()
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        discovering.removeValue(forKey: peripheral.identifier)?.resume()
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        discovering.removeValue(forKey: peripheral.identifier)?.resume()
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        if let value = characteristic.value { values[peripheral.identifier]?.yield(value) }
    }
}
