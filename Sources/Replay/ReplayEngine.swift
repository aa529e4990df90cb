import CoreBluetoothCodes
import Foundation
import HCI
import Lifecycle
import BLETraceCoreBluetooth
import ConcurrencyExtras
import Wire

/// Plays a cassette to an app: what the peers did comes from the capture, what the app asks for
/// is matched against it, and both are written to a ``Flow``.
///
/// Time is the capture's clock. Events wait in a queue ordered by time (ties in the order they
/// were scheduled); the engine runs until the queue is empty. The rules follow CoreBluetooth:
/// a `connect` never times out, it completes when the capture's next connection to that peer
/// completes; a disconnection the app did not ask for carries an error, one it asked for carries
/// none; the capture's own local disconnections are the captured app's choices and are not
/// played back.
///
/// GATT requests, scans and the peripheral-manager role are written to the flow; until the
/// cassette holds the peers' answers (issue 11), they stay unanswered, as from a peer that went
/// silent, and each is noted as a divergence.
public final class ReplayEngine: BluetoothSystem {
    /// How the replay moves through the capture's time.
    public enum Pacing: Sendable {
        /// Capture time, as fast as the app answers: deterministic. App timers run on it through
        /// ``Launch/asyncAfter`` and ``Launch/clock``.
        case virtual
        /// The capture's own pace in wall time, with every callback on the main thread: for app
        /// code that uses `DispatchQueue.main.asyncAfter` or `Timer` directly.
        case realtime
    }

    public let cassette: Cassette
    public let pacing: Pacing
    /// The clock the app is given (``Launch/clock``).
    public let clock = ReplayClock()
    /// Things due later than this after the capture's last record do not happen: the replay ends
    /// (a timer that re-arms itself forever ends with it). The ATT transaction timeout, so that an
    /// app's own request timeouts after the last record still fire.
    public static let horizonSeconds: Int64 = 30
    public private(set) var flow = Flow()

    /// Where the replay is in capture time.
    public var now: Timestamp {
        switch pacing {
        case .virtual:
            // A task woken by the clock acts at the clock's time.
            let clockTime = cassette.start.adding(microseconds: microseconds(ReplayClock.offset(of: clock.now)))
            return max(eventTime, clockTime)
        case .realtime:
            guard let wallStart else { return eventTime }
            let elapsed = ContinuousClock.now - wallStart
            return max(eventTime, cassette.start.adding(microseconds: microseconds(elapsed)))
        }
    }

    /// The time of the event running, or last run.
    private var eventTime: Timestamp
    private var wallStart: ContinuousClock.Instant?

    private struct Scheduled {
        var time: Timestamp
        var sequence: Int
        var peripheral: CBPeripheral?
        var action: () -> Void
    }

    private var queue: [Scheduled] = []
    private var sequence = 0
    private var managers: [CBManager] = []
    private var centrals: [CBCentralManager] = []
    /// Peripheral objects the app was given, for the end-of-capture summary.
    private var given: [BluetoothAddress: CBPeripheral] = [:]
    /// Index of the next unused episode per peer.
    private var cursor: [BluetoothAddress: Int] = [:]
    /// Peers with a connection attempt of the app in progress.
    private var attempts: Set<BluetoothAddress> = []

    public init(cassette: Cassette, pacing: Pacing = .virtual) {
        self.cassette = cassette
        self.pacing = pacing
        self.eventTime = cassette.start
    }

    /// Launches `app` at the capture's start and plays the whole cassette to it.
    public func run(_ app: any BluetoothApp, name: String) async -> Flow {
        let horizon = cassette.end.adding(microseconds: Self.horizonSeconds * 1_000_000)
        let launch = Launch(
            knownPeripherals: cassette.peers.map(CBPeer.identifier(for:)),
            asyncAfter: { [unowned self] seconds, action in
                schedule(at: now.adding(microseconds: Int64((max(0, seconds) * 1e6).rounded())), for: nil, action)
            },
            clock: clock)
        switch pacing {
        case .virtual:
            BluetoothSystemContext.with(self) {
                record("system", "launch", ["app": name])
                app.didFinishLaunching(launch)
            }
            await playVirtually(until: horizon)
        case .realtime:
            nonisolated(unsafe) let engine = self
            nonisolated(unsafe) let app = app
            nonisolated(unsafe) let launch = launch
            await MainActor.run {
                // The capture's start is now, in wall time: when the main thread takes the app.
                engine.wallStart = .now
                BluetoothSystemContext.with(engine) {
                    engine.record("system", "launch", ["app": name])
                    app.didFinishLaunching(launch)
                }
            }
            await engine.playInRealTime(until: horizon)
        }
        for (address, peripheral) in given.sorted(by: { $0.key < $1.key }) {
            flow.comments.append("at the end of the capture: \(address) is \(peripheral.state)")
        }
        return flow
    }

    /// Runs the queue in time order, waking the clock's sleepers between events at their moments.
    private func playVirtually(until horizon: Timestamp) async {
        while true {
            let nextEvent = queue.first.map(\.time)
            if clock.isInUse, nextEvent.map({ $0 > eventTime }) ?? true {
                // Before time moves on (or the replay ends), let the tasks the app started reach
                // their sleeps, as TestClock.advance does; at the end, give them longer.
                await Task.megaYield(count: 50)
                if nextEvent == nil {
                    for _ in 0..<8 where clock.earliestDeadline == nil { await Task.megaYield(count: 50) }
                }
            }
            if let deadline = clock.earliestDeadline {
                let at = cassette.start.adding(microseconds: microseconds(ReplayClock.offset(of: deadline)))
                if at <= horizon, nextEvent.map({ at <= $0 }) ?? true {
                    eventTime = max(eventTime, at)
                    await BluetoothSystemContext.with(self) { await clock.advance(to: deadline) }
                    continue
                }
            }
            guard let nextEvent, nextEvent <= horizon else { return }
            if clock.isInUse { await clock.advance(to: ReplayClock.Instant(offset: .microseconds(nextEvent.microseconds - cassette.start.microseconds))) }
            let next = queue.removeFirst()
            eventTime = nextEvent
            BluetoothSystemContext.with(self) { next.action() }
        }
    }

    /// Runs each event at its capture time in wall time, on the main thread, where the app's own
    /// `DispatchQueue.main` timers run between them.
    private func playInRealTime(until horizon: Timestamp) async {
        nonisolated(unsafe) let engine = self
        while let next = await MainActor.run(body: { engine.queue.first.map(\.time) }), next <= horizon {
            try? await Task.sleep(until: wallStart! + .microseconds(next.microseconds - cassette.start.microseconds), clock: .continuous)
            await MainActor.run {
                BluetoothSystemContext.with(engine) {
                    while let due = engine.queue.first, due.time <= engine.now {
                        engine.queue.removeFirst()
                        engine.eventTime = due.time
                        due.action()
                    }
                }
            }
        }
    }

    private func microseconds(_ duration: Swift.Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000).partialValue &+ attoseconds / 1_000_000_000_000
    }

    // MARK: BluetoothSystem: managers

    public var authorization: CBManagerAuthorization { .allowedAlways }

    public func managerDidInit(_ manager: CBManager) {
        managers.append(manager)
        if let central = manager as? CBCentralManager { centrals.append(central) }
        schedule(at: now, for: nil) { [unowned self] in
            record(label(manager), "didUpdateState", ["state": "\(CBManagerState.poweredOn)"])
            switch manager {
            case let central as CBCentralManager: central.deliver(.stateUpdated(.poweredOn))
            case let peripheralManager as CBPeripheralManager: peripheralManager.deliver(.stateUpdated(.poweredOn))
            default: break
            }
        }
    }

    public func apiMisuse(_ message: String, by manager: CBManager) {
        flow.comments.append(message)
    }

    public func later(_ action: @escaping () -> Void) {
        schedule(at: now, for: nil, action)
    }

    // MARK: BluetoothSystem: central

    public func retrievePeripherals(withIdentifiers identifiers: [UUID], for central: CBCentralManager) -> [CBPeripheral] {
        identifiers.compactMap { identifier in
            cassette.peers.first { CBPeer.identifier(for: $0) == identifier }.map { peripheral(for: $0, central) }
        }
    }

    public func retrieveConnectedPeripherals(withServices services: [CBUUID], for central: CBCentralManager) -> [CBPeripheral] {
        []
    }

    public func scanForPeripherals(withServices services: [CBUUID]?, options: [String: Any]?, for central: CBCentralManager) {
        record("app", "scanForPeripherals", ["services": services.map { $0.map(\.uuidString).joined(separator: ",") } ?? "nil"])
        flow.comments.append("divergence: scanForPeripherals is not played back yet; no didDiscover follows")
    }

    public func stopScan(for central: CBCentralManager) {
        record("app", "stopScan", [:])
    }

    public func registerForConnectionEvents(options: [CBConnectionEventMatchingOption: Any]?, for central: CBCentralManager) {
        record("app", "registerForConnectionEvents", [:])
    }

    public func connect(_ peripheral: CBPeripheral, options: [String: Any]?, for central: CBCentralManager) {
        guard let address = peripheral.address else { return }
        record("app", "connect", ["peripheral": "\(address)"])
        // Connecting to a peripheral already connecting or connected changes nothing.
        guard peripheral.state != .connected, attempts.insert(address).inserted else { return }
        guard let episode = nextEpisode(for: address) else { return }  // stays pending
        let at = max(now, episode.completeTime ?? now)
        if episode.status == .success {
            schedule(at: at, for: peripheral) { [unowned self] in
                attempts.remove(address)
                record(label(central), "didConnect", ["peripheral": "\(address)"])
                // Scheduled before the app hears of the connection, so that a cancel from inside
                // didConnect withdraws it.
                scheduleRemoteDisconnection(of: episode, peripheral, central)
                central.deliver(.connected(peripheral))
            }
        } else {
            let error: CBError = (episode.cbError?.value ?? nil) ?? CBError(.unknown)
            schedule(at: at, for: peripheral) { [unowned self] in
                attempts.remove(address)
                record(label(central), "didFailToConnect", ["peripheral": "\(address)", "error": "\(error)"])
                central.deliver(.failedToConnect(peripheral, error: error))
            }
        }
    }

    public func cancelPeripheralConnection(_ peripheral: CBPeripheral, for central: CBCentralManager) {
        guard let address = peripheral.address else { return }
        record("app", "cancelPeripheralConnection", ["peripheral": "\(address)"])
        queue.removeAll { $0.peripheral === peripheral }
        attempts.remove(address)
        guard peripheral.state != .disconnected else { return }
        // CoreBluetooth reports every cancel, of a connection or of an attempt, through
        // didDisconnectPeripheral with no error.
        schedule(at: now, for: peripheral) { [unowned self] in
            record(label(central), "didDisconnectPeripheral", ["peripheral": "\(address)", "error": "nil"])
            central.deliver(.disconnected(peripheral, error: nil))
        }
    }

    // MARK: BluetoothSystem: GATT client and server (not answered from the cassette yet)

    public func perform(_ request: GATTRequest, on peripheral: CBPeripheral) {
        unanswered("app", request.methodName, peripheral)
    }

    public func writeWithoutResponse(_ value: Data, for characteristic: CBCharacteristic, on peripheral: CBPeripheral) -> Bool {
        unanswered("app", "writeValue", peripheral)
        return true
    }

    public func readRSSI(of peripheral: CBPeripheral) { unanswered("app", "readRSSI", peripheral) }
    public func openL2CAPChannel(_ psm: CBL2CAPPSM, on peripheral: CBPeripheral) { unanswered("app", "openL2CAPChannel", peripheral) }
    public func add(_ service: CBMutableService, for manager: CBPeripheralManager) { unanswered("app", "add", nil) }
    public func remove(_ service: CBMutableService, for manager: CBPeripheralManager) { record("app", "remove", [:]) }
    public func removeAllServices(for manager: CBPeripheralManager) { record("app", "removeAllServices", [:]) }
    public func startAdvertising(_ advertisementData: [String: Any]?, for manager: CBPeripheralManager) {
        unanswered("app", "startAdvertising", nil)
    }
    public func stopAdvertising(for manager: CBPeripheralManager) { record("app", "stopAdvertising", [:]) }
    public func respond(to request: CBATTRequest, withResult result: CBATTError.Code, for manager: CBPeripheralManager) {
        record("app", "respond", ["result": "\(result)"])
    }
    public func updateValue(
        _ value: Data, for characteristic: CBMutableCharacteristic, onSubscribedCentrals centrals: [CBCentral]?,
        for manager: CBPeripheralManager
    ) -> Bool {
        record("app", "updateValue", ["characteristic": characteristic.uuid.uuidString])
        return true
    }
    public func setDesiredConnectionLatency(_ latency: CBPeripheralManagerConnectionLatency, for central: CBCentral, manager: CBPeripheralManager) {}
    public func publishL2CAPChannel(withEncryption encryptionRequired: Bool, for manager: CBPeripheralManager) {
        unanswered("app", "publishL2CAPChannel", nil)
    }
    public func unpublishL2CAPChannel(_ psm: CBL2CAPPSM, for manager: CBPeripheralManager) {}

    /// A request the cassette cannot answer yet: written to the flow, and left pending.
    private func unanswered(_ actor: String, _ name: String, _ peripheral: CBPeripheral?) {
        record(actor, name, peripheral?.address.map { ["peripheral": "\($0)"] } ?? [:])
        flow.comments.append("divergence: \(name) is not answered from the capture yet; it stays pending")
    }

    // MARK: Playback

    /// The next episode that completes (connected or failed), skipping attempts the captured app
    /// cancelled or that never completed (an attempt of this app would still be waiting then),
    /// and episodes that were over before the app asked. A connection that came up earlier and is
    /// still up is this app's at once.
    private func nextEpisode(for peer: BluetoothAddress) -> Connection? {
        let episodes = cassette.episodes[peer] ?? []
        var index = cursor[peer, default: 0]
        defer { cursor[peer] = index }
        while index < episodes.count {
            let episode = episodes[index]
            index += 1
            guard episode.outcome == .failed || episode.status == .success else { continue }
            let over = episode.status == .success ? episode.disconnectTime : episode.completeTime
            if let over, over < now { continue }
            return episode
        }
        return nil
    }

    private func scheduleRemoteDisconnection(
        of episode: Connection, _ peripheral: CBPeripheral, _ central: CBCentralManager
    ) {
        guard let time = episode.disconnectTime, episode.initiator == .remote,
            let reason = episode.reason
        else { return }
        let error = episode.cbError?.value ?? CoreBluetoothMapping.disconnectionError(
            reason: reason, requestedByApp: false).value
        schedule(at: max(now, time), for: peripheral) { [unowned self] in
            record(
                label(central), "didDisconnectPeripheral",
                ["peripheral": "\(episode.peer.map { "\($0)" } ?? "?")", "error": error.map { "\($0)" } ?? "nil"])
            central.deliver(.disconnected(peripheral, error: error))
        }
    }

    private func peripheral(for address: BluetoothAddress, _ central: CBCentralManager) -> CBPeripheral {
        let peripheral = central.peripheral(identifier: CBPeer.identifier(for: address), address: address)
        given[address] = peripheral
        return peripheral
    }

    private func schedule(at time: Timestamp, for peripheral: CBPeripheral?, _ action: @escaping () -> Void) {
        sequence += 1
        let item = Scheduled(time: time, sequence: sequence, peripheral: peripheral, action: action)
        let index = queue.firstIndex { ($0.time, $0.sequence) > (time, sequence) } ?? queue.count
        queue.insert(item, at: index)
    }

    /// `central`, `central2`, … and `peripheralManager`, `peripheralManager2`, … in creation order.
    private func label(_ manager: CBManager) -> String {
        let kind = manager is CBCentralManager ? "central" : "peripheralManager"
        let same = managers.filter { ($0 is CBCentralManager) == (manager is CBCentralManager) }
        let index = same.firstIndex { $0 === manager } ?? 0
        return index == 0 ? kind : "\(kind)\(index + 1)"
    }

    private func record(_ actor: String, _ name: String, _ arguments: KeyValuePairs<String, String>) {
        flow.events.append(
            FlowEvent(
                time: now.seconds(since: cassette.start), actor: actor, name: name,
                arguments: arguments.map { FlowEvent.Argument($0.key, $0.value) }))
    }
}
