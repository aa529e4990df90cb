// An async/await layer over CoreBluetooth as the public wrapper libraries write it: each request
// suspends on a CheckedContinuation that the delegate callback resumes, the delegate is
// `nonisolated` and hops to the main actor, notifications arrive as an AsyncStream, and a
// `@MainActor` model drives it. Only the import lines differ from the code that builds on iOS;
// `@preconcurrency` there as here, since CoreBluetooth's classes are not Sendable in Apple's SDK
// either.
#if canImport(CoreBluetooth) && !BLETRACE
@preconcurrency import CoreBluetooth
#else
@preconcurrency import BLETraceCoreBluetooth
#endif

enum AsyncCentralError: Error, Equatable {
    case busy
    case notPoweredOn(CBManagerState)
    case serviceNotFound(CBUUID)
}

@MainActor
final class AsyncCentral: NSObject {
    private var central: CBCentralManager!
    private var stateWaiters: [CheckedContinuation<CBManagerState, Never>] = []
    /// Requests waiting for their callback, by peripheral identifier or attribute UUID string
    /// (values that cross from the delegate to the main actor are Sendable ones only).
    private var connecting: [UUID: CheckedContinuation<Void, Error>] = [:]
    private var discovering: [String: CheckedContinuation<Void, Error>] = [:]
    private var reading: [String: CheckedContinuation<Data, Error>] = [:]
    private var notifying: [String: CheckedContinuation<Void, Error>] = [:]
    private var streams: [String: AsyncStream<Data>.Continuation] = [:]
    private(set) var disconnections: [String] = []

    override init() {
        super.init()
        central = CBCentralManager(delegate: self, queue: nil)
    }

    /// The state once it is known.
    func poweredOn() async throws {
        let state =
            central.state == .unknown ? await withCheckedContinuation { stateWaiters.append($0) } : central.state
        guard state == .poweredOn else { throw AsyncCentralError.notPoweredOn(state) }
    }

    func peripheral(_ identifier: UUID) -> CBPeripheral? {
        central.retrievePeripherals(withIdentifiers: [identifier]).first
    }

    func connect(_ peripheral: CBPeripheral) async throws {
        guard connecting[peripheral.identifier] == nil else { throw AsyncCentralError.busy }
        peripheral.delegate = self
        try await withCheckedThrowingContinuation { continuation in
            connecting[peripheral.identifier] = continuation
            central.connect(peripheral, options: nil)
        }
    }

    func discoverServices(_ uuids: [CBUUID]?, on peripheral: CBPeripheral) async throws -> [CBService] {
        try await withCheckedThrowingContinuation { continuation in
            discovering[peripheral.identifier.uuidString] = continuation
            peripheral.discoverServices(uuids)
        }
        return peripheral.services ?? []
    }

    func discoverCharacteristics(_ uuids: [CBUUID]?, for service: CBService) async throws -> [CBCharacteristic] {
        try await withCheckedThrowingContinuation { continuation in
            discovering[service.uuid.uuidString] = continuation
            service.peripheral?.discoverCharacteristics(uuids, for: service)
        }
        return service.characteristics ?? []
    }

    func read(_ characteristic: CBCharacteristic) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            reading[characteristic.uuid.uuidString] = continuation
            characteristic.service?.peripheral?.readValue(for: characteristic)
        }
    }

    /// The characteristic's notifications, once the peer confirmed the subscription.
    func notifications(of characteristic: CBCharacteristic) async throws -> AsyncStream<Data> {
        let (stream, continuation) = AsyncStream.makeStream(of: Data.self, bufferingPolicy: .bufferingNewest(64))
        streams[characteristic.uuid.uuidString] = continuation
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, Error>) in
            notifying[characteristic.uuid.uuidString] = done
            characteristic.service?.peripheral?.setNotifyValue(true, for: characteristic)
        }
        return stream
    }

    private func finish(_ key: String, _ error: Error?) {
        guard let continuation = discovering.removeValue(forKey: key) else { return }
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }

    private func failEverything(of identifier: UUID, with error: Error) {
        connecting.removeValue(forKey: identifier)?.resume(throwing: error)
        for continuation in discovering.values { continuation.resume(throwing: error) }
        for continuation in reading.values { continuation.resume(throwing: error) }
        for continuation in notifying.values { continuation.resume(throwing: error) }
        for stream in streams.values { stream.finish() }
        (discovering, reading, notifying, streams) = ([:], [:], [:], [:])
    }
}

extension AsyncCentral: CBCentralManagerDelegate {
    nonisolated func centralManagerDidUpdateState(_ central: CBCentralManager) {
        let state = central.state
        MainActor.assumeIsolated {
            let waiters = stateWaiters
            stateWaiters = []
            for waiter in waiters { waiter.resume(returning: state) }
        }
    }

    nonisolated func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        let identifier = peripheral.identifier
        MainActor.assumeIsolated { connecting.removeValue(forKey: identifier)?.resume() }
    }

    nonisolated func centralManager(
        _ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?
    ) {
        let identifier = peripheral.identifier
        let failure = error ?? CBError(.connectionFailed)
        MainActor.assumeIsolated { connecting.removeValue(forKey: identifier)?.resume(throwing: failure) }
    }

    nonisolated func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime,
        isReconnecting: Bool, error: Error?
    ) {
        let identifier = peripheral.identifier
        MainActor.assumeIsolated {
            disconnections.append(error.map { ($0 as NSError).localizedDescription } ?? "cancelled")
            failEverything(of: identifier, with: error ?? CBError(.peripheralDisconnected))
        }
    }
}

extension AsyncCentral: CBPeripheralDelegate {
    nonisolated func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        let key = peripheral.identifier.uuidString
        MainActor.assumeIsolated { finish(key, error) }
    }

    nonisolated func peripheral(
        _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?
    ) {
        let key = service.uuid.uuidString
        MainActor.assumeIsolated { finish(key, error) }
    }

    nonisolated func peripheral(
        _ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?
    ) {
        let (key, value) = (characteristic.uuid.uuidString, characteristic.value)
        MainActor.assumeIsolated {
            if let continuation = reading.removeValue(forKey: key) {
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume(returning: value ?? Data())
                }
            } else if let value {
                streams[key]?.yield(value)
            }
        }
    }

    nonisolated func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?
    ) {
        let key = characteristic.uuid.uuidString
        MainActor.assumeIsolated {
            guard let continuation = notifying.removeValue(forKey: key) else { return }
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
    }
}

/// A view model as SwiftUI apps write one: it connects, reads, and collects heart rates.
@MainActor
final class HeartRateModel {
    private let bluetooth: AsyncCentral
    private(set) var status = "idle"
    private(set) var bodyLocation: UInt8?
    private(set) var rates: [UInt8] = []

    init(bluetooth: AsyncCentral) { self.bluetooth = bluetooth }

    func run(device: UUID, readings: Int) async {
        do {
            try await bluetooth.poweredOn()
            guard let peripheral = bluetooth.peripheral(device) else { status = "unknown device"; return }
            status = "connecting"
            try await bluetooth.connect(peripheral)
            let heartRate = CBUUID(string: "180D")
            guard let service = try await bluetooth.discoverServices([heartRate], on: peripheral).first else {
                throw AsyncCentralError.serviceNotFound(heartRate)
            }
            let characteristics = try await bluetooth.discoverCharacteristics(nil, for: service)
            if let location = characteristics.first(where: { $0.uuid == CBUUID(string: "2A38") }) {
                bodyLocation = try await bluetooth.read(location).first
            }
            if let measurement = characteristics.first(where: { $0.uuid == CBUUID(string: "2A37") }) {
                status = "measuring"
                for await value in try await bluetooth.notifications(of: measurement).prefix(readings)
                where value.count > 1 {
                    rates.append(value[1])
                }
            }
            status = "done"
        } catch let error as CBATTError {
            status = "ATT error \(error.code.rawValue): \(error.localizedDescription)"
        } catch {
            status = "failed: \(error.localizedDescription)"
        }
    }
}
