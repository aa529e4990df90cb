#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Foundation

/// What can go wrong that CoreBluetooth does not report as an error of its own.
public enum HeartRateError: Error, Equatable, Sendable {
    /// Bluetooth is not powered on (off, unauthorized, unsupported).
    case bluetoothUnavailable(CBManagerState)
    /// The sensor did not connect within the model's timeout.
    case connectTimedOut
    /// The connection ended (cancelled by the app) before it completed.
    case connectionCancelled
    /// The link ended while the request waited for its answer: CoreBluetooth makes no callback
    /// for a request in flight when the link drops.
    case disconnected
}

/// An `async` API over `CBCentralManager`: each request is a call that returns when its delegate
/// callback comes (a checked continuation resumed by the callback), and what the sensor sends on
/// its own — heart rates, the end of a connection — is an `AsyncStream` of ``Event``s.
///
/// One request of a kind at a time per sensor, as the model makes them; the callbacks come on the
/// main queue (`queue: nil`), where the model runs too.
public final class HeartRateCentral: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate, @unchecked Sendable {
    public static let heartRateService = CBUUID(string: "180D")
    public static let measurement = CBUUID(string: "2A37")
    public static let bodySensorLocation = CBUUID(string: "2A38")
    /// The vendor's settings service and its first characteristic (read once after connecting).
    public static let settingsService = CBUUID(string: "EEE0")
    public static let settings = CBUUID(string: "EEE1")

    /// What the sensor and the system do without being asked.
    public enum Event: Sendable {
        /// A Heart Rate Measurement (beats per minute).
        case heartRate(Int)
        /// The link ended; `error` is nil when the app asked for it.
        case disconnected(error: (any Error)?)
    }

    public private(set) var manager: CBCentralManager!
    /// The peripherals iOS gave back at a relaunch (`willRestoreState`).
    public private(set) var restoredPeripherals: [CBPeripheral] = []
    public let events: AsyncStream<Event>
    private let sink: AsyncStream<Event>.Continuation

    private var stateWaiters: [CheckedContinuation<CBManagerState, Never>] = []
    private var connecting: CheckedContinuation<Void, any Error>?
    private var discovering: CheckedContinuation<Void, any Error>?
    private var reading: [CBUUID: CheckedContinuation<Data, any Error>] = [:]
    private var subscribing: CheckedContinuation<Void, any Error>?

    /// `restoreIdentifier` opts into state restoration.
    public init(restoreIdentifier: String?) {
        (events, sink) = AsyncStream.makeStream()
        super.init()
        let options = restoreIdentifier.map { [CBCentralManagerOptionRestoreIdentifierKey: $0] }
        manager = CBCentralManager(delegate: self, queue: nil, options: options)
    }

    // MARK: Requests

    /// Returns once Bluetooth is powered on; throws when its first state is another.
    public nonisolated(nonsending) func poweredOn() async throws {
        var state = manager.state
        if state == .unknown || state == .resetting {
            state = await withCheckedContinuation { stateWaiters.append($0) }
        }
        guard state == .poweredOn else { throw HeartRateError.bluetoothUnavailable(state) }
    }

    public nonisolated(nonsending) func connect(_ sensor: CBPeripheral) async throws {
        try await withCheckedThrowingContinuation { continuation in
            connecting = continuation
            // A connection iOS restored as pending goes on: asking again changes nothing.
            if sensor.state != .connecting { manager.connect(sensor) }
        }
    }

    public func cancelConnection(_ sensor: CBPeripheral) {
        manager.cancelPeripheralConnection(sensor)
    }

    public nonisolated(nonsending) func discoverServices(_ uuids: [CBUUID], on sensor: CBPeripheral) async throws
        -> [CBService]
    {
        try await withCheckedThrowingContinuation { continuation in
            discovering = continuation
            sensor.discoverServices(uuids)
        }
        return sensor.services ?? []
    }

    public nonisolated(nonsending) func discoverCharacteristics(
        _ uuids: [CBUUID], of service: CBService, on sensor: CBPeripheral
    ) async throws -> [CBCharacteristic] {
        try await withCheckedThrowingContinuation { continuation in
            discovering = continuation
            sensor.discoverCharacteristics(uuids, for: service)
        }
        return service.characteristics ?? []
    }

    public nonisolated(nonsending) func read(_ characteristic: CBCharacteristic, on sensor: CBPeripheral) async throws
        -> Data
    {
        try await withCheckedThrowingContinuation { continuation in
            reading[characteristic.uuid] = continuation
            sensor.readValue(for: characteristic)
        }
    }

    public nonisolated(nonsending) func subscribe(to characteristic: CBCharacteristic, on sensor: CBPeripheral)
        async throws
    {
        try await withCheckedThrowingContinuation { continuation in
            subscribing = continuation
            sensor.setNotifyValue(true, for: characteristic)
        }
    }

    // MARK: CBCentralManagerDelegate

    public func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        restoredPeripherals = dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? []
        for peripheral in restoredPeripherals { peripheral.delegate = self }
    }

    public func centralManagerDidUpdateState(_ central: CBCentralManager) {
        let waiting = stateWaiters
        stateWaiters = []
        for waiter in waiting { waiter.resume(returning: central.state) }
    }

    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        connecting?.resume()
        connecting = nil
    }

    public func centralManager(
        _ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?
    ) {
        connecting?.resume(throwing: error ?? CBError(.connectionFailed))
        connecting = nil
    }

    public func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {
        if let connecting {
            // A connection attempt the app cancelled (its timeout) ends here.
            self.connecting = nil
            connecting.resume(throwing: error ?? HeartRateError.connectionCancelled)
            return
        }
        // The requests in flight get no callback from CoreBluetooth: they fail here, or their
        // callers would wait for ever (bletrace's fault sweep found the model stuck in a
        // discovery when the link dropped during it).
        let pending = (discovering.map { [$0] } ?? []) + (subscribing.map { [$0] } ?? [])
        (discovering, subscribing) = (nil, nil)
        for continuation in pending { continuation.resume(throwing: error ?? HeartRateError.disconnected) }
        let readers = reading.values
        reading = [:]
        for reader in readers { reader.resume(throwing: error ?? HeartRateError.disconnected) }
        sink.yield(.disconnected(error: error))
    }

    // MARK: CBPeripheralDelegate

    public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        finishDiscovery(error)
    }

    public func peripheral(
        _ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?
    ) {
        finishDiscovery(error)
    }

    public func peripheral(
        _ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        if let reader = reading.removeValue(forKey: characteristic.uuid) {
            if let error {
                reader.resume(throwing: error)
            } else {
                reader.resume(returning: characteristic.value ?? Data())
            }
            return
        }
        guard error == nil, characteristic.uuid == Self.measurement, let value = characteristic.value,
            let bpm = Self.beatsPerMinute(value)
        else { return }
        sink.yield(.heartRate(bpm))
    }

    public func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        if let error { subscribing?.resume(throwing: error) } else { subscribing?.resume() }
        subscribing = nil
    }

    private func finishDiscovery(_ error: (any Error)?) {
        if let error { discovering?.resume(throwing: error) } else { discovering?.resume() }
        discovering = nil
    }

    /// The beats per minute of a Heart Rate Measurement (GATT Specification Supplement §3.106):
    /// flags bit 0 clear, a UInt8 follows; set, a little-endian UInt16.
    public static func beatsPerMinute(_ value: Data) -> Int? {
        let bytes = [UInt8](value)
        guard let flags = bytes.first else { return nil }
        if flags & 1 == 0 { return bytes.count >= 2 ? Int(bytes[1]) : nil }
        return bytes.count >= 3 ? Int(bytes[1]) | Int(bytes[2]) << 8 : nil
    }
}
