import CoreBluetoothCodes
import Foundation
import HCI
import Lifecycle
import Managers
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
public final class ReplayEngine: BluetoothSystem {
    public let cassette: Cassette
    public private(set) var flow = Flow()
    public private(set) var now: Timestamp

    private struct Scheduled {
        var time: Timestamp
        var sequence: Int
        var peripheral: Peripheral?
        var action: () -> Void
    }

    private var queue: [Scheduled] = []
    private var sequence = 0
    private var centrals: [CentralManager] = []
    private var peripherals: [BluetoothAddress: Peripheral] = [:]
    /// Index of the next unused episode per peer.
    private var cursor: [BluetoothAddress: Int] = [:]
    /// Peers with a connection attempt of the app in progress.
    private var attempts: Set<BluetoothAddress> = []

    public init(cassette: Cassette) {
        self.cassette = cassette
        self.now = cassette.start
    }

    /// Launches `app` at the capture's start and plays the whole cassette to it.
    public func run(_ app: any BluetoothApp, name: String) -> Flow {
        record("system", "launch", ["app": name])
        app.didFinishLaunching(
            Launch(
                system: self, knownPeripherals: cassette.peers.map(Peripheral.identifier(for:)),
                asyncAfter: { [unowned self] seconds, action in
                    schedule(at: now.adding(microseconds: Int64((max(0, seconds) * 1e6).rounded())), for: nil, action)
                }))
        while !queue.isEmpty {
            let next = queue.removeFirst()
            now = next.time
            next.action()
        }
        for peripheral in peripherals.values.sorted(by: { $0.address < $1.address }) {
            flow.comments.append("at the end of the capture: \(peripheral.address) is \(peripheral.state)")
        }
        return flow
    }

    // MARK: BluetoothSystem

    public func register(_ central: CentralManager) {
        centrals.append(central)
        schedule(at: now, for: nil) { [unowned self] in
            record(label(central), "didUpdateState", ["state": "\(CBManagerState.poweredOn)"])
            central.deliver(.stateUpdated(.poweredOn))
        }
    }

    public func retrievePeripherals(withIdentifiers identifiers: [UUID], for central: CentralManager) -> [Peripheral] {
        identifiers.compactMap { identifier in
            cassette.peers.first { Peripheral.identifier(for: $0) == identifier }.map(peripheral(for:))
        }
    }

    public func connect(_ peripheral: Peripheral, from central: CentralManager) {
        record("app", "connect", ["peripheral": "\(peripheral.address)"])
        guard central.state == .poweredOn else {
            flow.comments.append("API misuse: connect while the central is \(central.state); ignored, as CoreBluetooth does")
            return
        }
        // Connecting to a peripheral already connecting or connected changes nothing.
        guard peripheral.state != .connected, attempts.insert(peripheral.address).inserted else {
            return
        }
        guard let episode = nextEpisode(for: peripheral.address) else { return }  // stays pending
        let at = max(now, episode.completeTime ?? now)
        if episode.status == .success {
            schedule(at: at, for: peripheral) { [unowned self] in
                attempts.remove(peripheral.address)
                record(label(central), "didConnect", ["peripheral": "\(peripheral.address)"])
                // Scheduled before the app hears of the connection, so that a cancel from inside
                // didConnect withdraws it.
                scheduleRemoteDisconnection(of: episode, peripheral, central)
                central.deliver(.connected(peripheral))
            }
        } else {
            let error: CBError = (episode.cbError?.value ?? nil) ?? CBError(.unknown)
            schedule(at: at, for: peripheral) { [unowned self] in
                attempts.remove(peripheral.address)
                record(label(central), "didFailToConnect", ["peripheral": "\(peripheral.address)", "error": "\(error)"])
                central.deliver(.failedToConnect(peripheral, error: error))
            }
        }
    }

    public func cancelPeripheralConnection(_ peripheral: Peripheral, from central: CentralManager) {
        record("app", "cancelPeripheralConnection", ["peripheral": "\(peripheral.address)"])
        queue.removeAll { $0.peripheral === peripheral }
        attempts.remove(peripheral.address)
        guard peripheral.state != .disconnected else { return }
        // CoreBluetooth reports every cancel, of a connection or of an attempt, through
        // didDisconnectPeripheral with no error.
        schedule(at: now, for: peripheral) { [unowned self] in
            record(label(central), "didDisconnectPeripheral", ["peripheral": "\(peripheral.address)", "error": "nil"])
            central.deliver(.disconnected(peripheral, error: nil))
        }
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
        of episode: Connection, _ peripheral: Peripheral, _ central: CentralManager
    ) {
        guard let time = episode.disconnectTime, episode.initiator == .remote,
            let reason = episode.reason
        else { return }
        let error = episode.cbError?.value ?? CoreBluetoothMapping.disconnectionError(
            reason: reason, requestedByApp: false).value
        schedule(at: max(now, time), for: peripheral) { [unowned self] in
            record(
                label(central), "didDisconnectPeripheral",
                ["peripheral": "\(peripheral.address)", "error": error.map { "\($0)" } ?? "nil"])
            central.deliver(.disconnected(peripheral, error: error))
        }
    }

    private func peripheral(for address: BluetoothAddress) -> Peripheral {
        if let known = peripherals[address] { return known }
        let created = Peripheral(address: address)
        peripherals[address] = created
        return created
    }

    private func schedule(at time: Timestamp, for peripheral: Peripheral?, _ action: @escaping () -> Void) {
        sequence += 1
        let item = Scheduled(time: time, sequence: sequence, peripheral: peripheral, action: action)
        let index = queue.firstIndex { ($0.time, $0.sequence) > (time, sequence) } ?? queue.count
        queue.insert(item, at: index)
    }

    private func label(_ central: CentralManager) -> String {
        let index = centrals.firstIndex { $0 === central } ?? 0
        return index == 0 ? "central" : "central\(index + 1)"
    }

    private func record(_ actor: String, _ name: String, _ arguments: KeyValuePairs<String, String>) {
        flow.events.append(
            FlowEvent(
                time: now.seconds(since: cassette.start), actor: actor, name: name,
                arguments: arguments.map { FlowEvent.Argument($0.key, $0.value) }))
    }
}
