#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Foundation

/// The app's heart-rate screen model, on the main actor: it connects to the sensor (within a
/// timeout on an injected clock), reads its body location and settings once, subscribes to the
/// measurements, keeps the beats, and connects again after a drop it did not ask for. After iOS
/// relaunched the app (state restoration), it takes the restored sensor back as it is.
@MainActor public final class HeartRateModel {
    public enum Status: Equatable, Sendable {
        case idle, connecting, connected, reconnecting
        case failed(String)
    }

    public private(set) var status: Status = .idle
    /// Beats per minute, as measured.
    public private(set) var heartRates: [Int] = []
    /// Every error the layer met, in order.
    public private(set) var errors: [any Error] = []
    /// The Body Sensor Location (2A38), once read.
    public private(set) var bodyLocation: UInt8?
    /// The model took a sensor iOS restored.
    public private(set) var wasRestored = false
    /// How many times the sensor connected.
    public private(set) var connections = 0

    public let central: HeartRateCentral
    private let clock: any Clock<Duration>
    /// How long a connection attempt may take before the model gives it up.
    public let connectTimeout: Duration
    private var sensor: CBPeripheral?
    private var settingsRead = false

    public init(central: HeartRateCentral, clock: any Clock<Duration>, connectTimeout: Duration = .seconds(5)) {
        self.central = central
        self.clock = clock
        self.connectTimeout = connectTimeout
    }

    /// Runs until the layer's events end: at launch, with the sensor the app knew.
    public func run(knownSensor: UUID?) async {
        do {
            try await central.poweredOn()
        } catch {
            return fail(error)
        }
        if let restored = central.restoredPeripherals.first {
            wasRestored = true
            sensor = restored
        } else if let knownSensor {
            sensor = central.manager.retrievePeripherals(withIdentifiers: [knownSensor]).first
        }
        guard sensor != nil else { return fail(nil, "no sensor known") }
        await setUp()
        for await event in central.events {
            switch event {
            case .heartRate(let bpm):
                heartRates.append(bpm)
            case .disconnected(let error):
                // The model cancels only an attempt that timed out, which ends before it
                // connects: every disconnection here is one it did not ask for. ATT's
                // transaction timeout ends a link with no error on iOS (bletrace's fault sweep
                // found the model going idle on it).
                if let error { errors.append(error) }
                status = .reconnecting
                await setUp()
            }
        }
    }

    /// Connects when not connected, then discovers and subscribes what is still missing.
    private func setUp() async {
        guard let sensor else { return }
        if sensor.state != .connected {
            if status != .reconnecting { status = .connecting }
            // An attempt that fails (rather than timing out) is tried again, a few times: a
            // connection that failed to be established is transient.
            var attempts = 0
            while true {
                do {
                    try await connectWithinTimeout()
                    break
                } catch HeartRateError.connectTimedOut {
                    return fail(HeartRateError.connectTimedOut)
                } catch {
                    attempts += 1
                    guard attempts < Self.connectAttempts else { return fail(error) }
                    errors.append(error)
                }
            }
        }
        connections += 1
        status = .connected
        do {
            let heartRate = try await service(HeartRateCentral.heartRateService, of: sensor)
            var characteristics = heartRate?.characteristics ?? []
            if let heartRate, !characteristics.contains(where: { $0.uuid == HeartRateCentral.measurement }) {
                characteristics = try await central.discoverCharacteristics(
                    [HeartRateCentral.measurement, HeartRateCentral.bodySensorLocation], of: heartRate, on: sensor)
            }
            if let measurement = characteristics.first(where: { $0.uuid == HeartRateCentral.measurement }),
                !measurement.isNotifying
            {
                do { try await central.subscribe(to: measurement, on: sensor) } catch { errors.append(error) }
            }
            if !settingsRead,
                let settings = sensor.services?.first(where: { $0.uuid == HeartRateCentral.settingsService })
            {
                _ = try await central.discoverCharacteristics([HeartRateCentral.settings], of: settings, on: sensor)
            }
        } catch {
            return errors.append(error)
        }
        // The reads wait in a task of their own: a read the sensor never answers (CoreBluetooth has
        // no timeout for it) must not keep the beats, which come through ``run(knownSensor:)``'s
        // loop, away.
        Task { await readDetails(of: sensor) }
    }

    /// The service `uuid` of `sensor`, discovered unless a restored sensor still has it.
    private func service(_ uuid: CBUUID, of sensor: CBPeripheral) async throws -> CBService? {
        if let known = sensor.services?.first(where: { $0.uuid == uuid }) { return known }
        let services = try await central.discoverServices([uuid, HeartRateCentral.settingsService], on: sensor)
        return services.first { $0.uuid == uuid }
    }

    /// Reads the vendor's settings and the body location once each; a refusal is kept as an error.
    private func readDetails(of sensor: CBPeripheral) async {
        let characteristics = (sensor.services ?? []).flatMap { $0.characteristics ?? [] }
        if !settingsRead, let settings = characteristics.first(where: { $0.uuid == HeartRateCentral.settings }) {
            settingsRead = true
            do { _ = try await central.read(settings, on: sensor) } catch { errors.append(error) }
        }
        if bodyLocation == nil,
            let location = characteristics.first(where: { $0.uuid == HeartRateCentral.bodySensorLocation })
        {
            do { bodyLocation = try await central.read(location, on: sensor).first } catch { errors.append(error) }
        }
    }

    /// How many failed connection attempts in a row the model makes before it gives up.
    static let connectAttempts = 3

    /// `connect` never times out in CoreBluetooth: a timer task on the injected clock cancels the
    /// attempt when it takes longer than ``connectTimeout``.
    private func connectWithinTimeout() async throws {
        let timeout = connectTimeout
        var timedOut = false
        let timer = Task {
            try await clock.sleep(for: timeout)
            timedOut = true
            if let sensor { central.cancelConnection(sensor) }
        }
        defer { timer.cancel() }
        do {
            try await central.connect(sensor!)
        } catch {
            throw timedOut ? HeartRateError.connectTimedOut : error
        }
    }

    private func fail(_ error: (any Error)?, _ reason: String? = nil) {
        if let error { errors.append(error) }
        status = .failed(reason ?? error.map { "\($0)" } ?? "unknown")
    }
}
