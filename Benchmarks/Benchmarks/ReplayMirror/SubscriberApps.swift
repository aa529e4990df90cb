// One app written twice, for replay_1M_records_subscriber_callbacks and _async: it connects to
// every peripheral it knew, discovers the services and the characteristics of the first one,
// subscribes to those that notify and counts what they send. Once with delegate callbacks; once
// as iOS apps are written since Swift concurrency: a task per peripheral awaits each step (checked
// continuations resumed by the callbacks) and reads the values from an AsyncStream. Both ask for
// the same things in the same order at the same capture times, so their flows are the same.
import BLETrace
import Foundation

/// Delegate callbacks only.
final class CallbackSubscriber: NSObject, BluetoothApp, CountsValues, CBCentralManagerDelegate, CBPeripheralDelegate {
    private var central: CBCentralManager?
    private var known: [UUID] = []
    /// Kept, as iOS code must keep them: iOS ends the connection of a peripheral the app lets go of.
    private var peripherals: [CBPeripheral] = []
    private(set) var values = 0

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
        if let first = peripheral.services?.first { peripheral.discoverCharacteristics(nil, for: first) }
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        Subscriber.subscribe(to: service, on: peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        values += 1
    }
}

/// The values an app read, printed beside its flow's count.
protocol CountsValues { var values: Int { get } }

enum Subscriber {
    static func subscribe(to service: CBService, on peripheral: CBPeripheral) {
        for characteristic in service.characteristics ?? [] where characteristic.properties.contains(.notify) {
            peripheral.setNotifyValue(true, for: characteristic)
        }
    }
}

/// Swift concurrency: a task per peripheral.
final class AsyncSubscriber: NSObject, BluetoothApp, CountsValues, CBCentralManagerDelegate, CBPeripheralDelegate,
    @unchecked Sendable
{
    private var central: CBCentralManager?
    private var poweredOn: CheckedContinuation<Void, Never>?
    private var waiting: [UUID: CheckedContinuation<Void, any Error>] = [:]
    private var updates: [UUID: AsyncStream<Void>.Continuation] = [:]
    private(set) var values = 0

    func didFinishLaunching(_ launch: Launch) {
        central = CBCentralManager(delegate: self, queue: nil)
        let known = launch.knownPeripherals
        Task {
            await withCheckedContinuation { poweredOn = $0 }
            for peripheral in central!.retrievePeripherals(withIdentifiers: known) {
                nonisolated(unsafe) let peripheral = peripheral
                peripheral.delegate = self
                let (stream, sink) = AsyncStream<Void>.makeStream()
                updates[peripheral.identifier] = sink
                Task { try await follow(peripheral, stream) }
            }
        }
    }

    /// Connects, discovers, subscribes, then counts what comes.
    private func follow(_ peripheral: CBPeripheral, _ stream: AsyncStream<Void>) async throws {
        try await step(peripheral) { central!.connect(peripheral) }
        try await step(peripheral) { peripheral.discoverServices(nil) }
        guard let first = peripheral.services?.first else { return }
        try await step(peripheral) { peripheral.discoverCharacteristics(nil, for: first) }
        Subscriber.subscribe(to: first, on: peripheral)
        for await _ in stream { values += 1 }
    }

    /// Makes the request and waits for its callback.
    private func step(_ peripheral: CBPeripheral, _ request: () -> Void) async throws {
        try await withCheckedThrowingContinuation {
            waiting[peripheral.identifier] = $0; request()
        }
    }

    private func resume(_ peripheral: CBPeripheral, throwing error: (any Error)? = nil) {
        guard let continuation = waiting.removeValue(forKey: peripheral.identifier) else { return }
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        if central.state == .poweredOn { poweredOn?.resume() }
        poweredOn = nil
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) { resume(peripheral) }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        resume(peripheral, throwing: error ?? CBError(.connectionFailed))
    }

    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {
        resume(peripheral, throwing: error ?? CBError(.peripheralDisconnected))
        updates.removeValue(forKey: peripheral.identifier)?.finish()
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) { resume(peripheral) }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        resume(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    {
        updates[peripheral.identifier]?.yield()
    }
}
