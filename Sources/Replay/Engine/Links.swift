import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Flow
import Foundation
import HCI
import Lifecycle
import Wire

/// The app's links to its peripherals as the system keeps them: the peripheral objects the app was
/// given, its connection attempts, which of the capture's connections completes each, the
/// capture's connection each connected peripheral is playing, and how a link ends (the peer's
/// disconnection, the app's cancel, the app letting go of the object). The rules follow
/// CoreBluetooth: a `connect` never times out, it completes when the capture's next connection to
/// that peer completes; a disconnection the app did not ask for carries an error, one it asked for
/// carries none; the capture's own local disconnections are the captured app's choices and are not
/// played back.
///
/// A part of the engine (``ReplayEngine``) with its own state and logic: the engine's
/// `BluetoothSystem` methods for connections forward to it. What a link plays once it is up (its
/// MTU, notifications, service changes, the answers to the app's requests) is the GATT client's
/// (`ClientPlayback`), which reads ``playing`` for every notification and request.
final class Links {
    let cassette: Cassette
    /// The engine running the replay: what this part uses of it (`LinkContext`). Unowned: the
    /// engine owns its parts and outlives them; set once, as the engine finishes its own
    /// initialization.
    unowned var replay: (any LinkContext)!
    /// The app's process: whom a link's events reach, and whether they wake it.
    unowned let process: AppProcess
    /// The GATT client's playback, which a link that comes up starts.
    unowned var client: ClientPlayback<ReplayEngine>!

    init(cassette: Cassette, process: AppProcess) {
        self.cassette = cassette
        self.process = process
    }

    // The properties marked `@exclusivity(unchecked)` are read for most events (the GATT client's
    // notifications and answers); only the replay's thread touches them.

    /// Peripheral objects the app was given and still holds (weakly, as iOS: an object the app
    /// lets go of while connected ends its connection), for termination and the end-of-capture
    /// summary.
    @exclusivity(unchecked) var given = GivenPeripherals()
    /// Peripherals the app asked to connect at least once: the end of the capture names their
    /// state, and that of any not disconnected then (restored ones), not that of every advertiser
    /// a scan gave the app.
    private var connectRequested: Set<BluetoothAddress> = []
    /// The connection each connected peripheral of the app is playing, with what the app did on it.
    @exclusivity(unchecked) var playing: [BluetoothAddress: LinkPlayback] = [:] {
        didSet { playingVersion &+= 1 }
    }
    /// Changes each time a link starts or ends (not when a link's own state changes): a closure
    /// that plays a link's notifications keeps its lookup while this stays the same.
    @exclusivity(unchecked) private(set) var playingVersion = 0
    /// Index of the next unused episode per peer.
    private var cursor: [BluetoothAddress: Int] = [:]
    /// Peers with a connection attempt of the app in progress.
    private var attempts: Set<BluetoothAddress> = []
    /// Peripherals the app connected with `CBConnectPeripheralOptionEnableAutoReconnect`: after a
    /// disconnection the system connects again by itself (iOS 17), until the app cancels.
    private var autoReconnect: Set<BluetoothAddress> = []
    /// Where the search for the connection that completes each attempt started: an attempt
    /// Bluetooth interrupted (``rewindAttempt(_:)``) searches again from there.
    private var attemptFrom: [BluetoothAddress: Int] = [:]
    /// Peers whose link a fault dropped (or whose attempt a fault failed) while the capture's
    /// connection went on: the app's next attempt gets that connection again, after the time it
    /// took to establish.
    private var resumable: [BluetoothAddress: Connection] = [:]

    private var now: Timestamp { replay.now }

    // MARK: The app's calls

    /// The GAP Device Names the system read, by peer: iOS keeps them across connections, app
    /// launches and peripheral objects (Formats/corebluetooth.md, "Central").
    var deviceNames: [BluetoothAddress: String] = [:]

    /// The peripheral object of `address` for `central`, given to the app.
    func peripheral(for address: BluetoothAddress, _ central: CBCentralManager) -> CBPeripheral {
        let peripheral = central.peripheral(
            identifier: CBPeer.identifier(for: address), address: address, name: deviceNames[address])
        given[address] = peripheral
        return peripheral
    }

    func retrievePeripherals(withIdentifiers identifiers: [UUID], for central: CBCentralManager) -> [CBPeripheral] {
        identifiers.compactMap { identifier in
            CBPeer.address(in: identifier).flatMap { address in
                // The system knows the peripherals of the capture, and the remote centrals that
                // connected to this host (their GATT servers are reachable on their links).
                // An AccessorySetupKit app knows only the accessories it was granted.
                (cassette.peers.contains(address) || cassette.centralEpisodes[address] != nil)
                    && process.grants(address)
                    ? peripheral(for: address, central) : nil
            }
        }
    }

    /// Peers of connections that began before the capture and are still up, and remote centrals
    /// connected now, with one of `services` in the database the capture revealed: connected to
    /// the system, as by another app or as the central that connected to this host.
    func retrieveConnectedPeripherals(withServices services: [CBUUID], for central: CBCentralManager) -> [CBPeripheral]
    {
        let up =
            cassette.peers.filter { address in
                (cassette.episodes[address] ?? []).contains {
                    $0.beganBeforeCapture && ($0.disconnection.map { $0.time > now } ?? true)
                }
            }
            + cassette.centrals.filter { address in
                (cassette.centralEpisodes[address] ?? []).contains { episode in
                    episode.completion?.status == .success && (episode.completion.map { $0.time <= now } ?? false)
                        && (episode.disconnection.map { $0.time > now } ?? true)
                }
            }
        return up.filter { address in
            process.grants(address)
                && cassette.services(of: address).contains { service in
                    services.contains { $0.bluetoothUUID == service.uuid }
                }
        }.map { peripheral(for: $0, central) }
    }

    func connect(_ peripheral: CBPeripheral, options: [String: Any]?) {
        guard let address = peripheral.address else { return }
        let reconnects = options?[CBConnectPeripheralOptionEnableAutoReconnect] as? Bool == true
        replay.record(
            .app(.connect), [.init(.peripheral, "\(address)")] + (reconnects ? [.init(.autoReconnect, "true")] : []))
        connectRequested.insert(address)
        if reconnects { autoReconnect.insert(address) }
        // Connecting to a peripheral already connecting or connected changes nothing.
        guard peripheral.state != .connected else { return }
        startAttempt(peripheral, address)
    }

    /// The ATT MTU of the app's link when it comes up as `episode`: iOS exchanges its own MTU
    /// before telling the app, so it is the smaller of iOS's (``Platform/mtu``) and what the
    /// peer takes, as the capture's exchanges with it show (a capture that never exchanged says
    /// nothing of the peer: iOS's is taken, a hypothesis). A PacketLogger capture's host is
    /// Apple's stack: its own exchange on the link is the truth (Formats/corebluetooth.md).
    func mtuAtConnection(_ episode: Connection, _ address: BluetoothAddress) -> Int {
        let exchanged = cassette.link(connection: episode.id)?.mtu.map(Int.init)
        if cassette.hostIsApple { return exchanged ?? 23 }
        let peerTakes = exchanged ?? cassette.links(of: address).compactMap(\.mtu).max().map(Int.init)
        return min(process.platform.mtu, peerTakes ?? process.platform.mtu)
    }

    /// The manager refused `connect` with auto-reconnect itself: the delegate lacks the iOS 17
    /// disconnection method, so iOS fails the request inside the call and connects nothing.
    func connectRefused(_ peripheral: CBPeripheral, error: any Error, for central: CBCentralManager) {
        guard let address = peripheral.address else { return }
        replay.record(.app(.connect), [.init(.peripheral, "\(address)"), .init(.autoReconnect, "true")])
        replay.comment(
            "\(address): the delegate does not implement centralManager(_:didDisconnectPeripheral:timestamp:isReconnecting:error:), so iOS refuses auto-reconnect at once, inside connect, and connects nothing"
        )
        replay.record(
            .central(.didFailToConnect, manager: replay.number(central)),
            [.init(.peripheral, "\(address)"), .error(error)])
    }

    /// A connection attempt to `peripheral`: the peer's next connection in the capture completes
    /// it (or fails it); with none, it stays pending.
    func startAttempt(_ peripheral: CBPeripheral, _ address: BluetoothAddress) {
        guard attempts.insert(address).inserted else { return }
        let from = cursor[address, default: 0]
        // The capture's connection a fault interrupted comes back after the time it took to
        // establish, unless the peer ends it before then: the attempt waits for the next one.
        var resumed: (episode: Connection, at: Timestamp)?
        if let interrupted = resumable.removeValue(forKey: address) {
            let establishing = interrupted.completion.flatMap { complete in
                interrupted.attempt.map { complete.time.microseconds - $0.time.microseconds }
            }
            resumed = connectionResumed(at: now.adding(microseconds: max(0, establishing ?? 0)), address)
        }
        guard let episode = resumed?.episode ?? nextEpisode(for: address) else { return }  // stays pending
        attemptFrom[address] = from
        let at = resumed?.at ?? max(now, episode.completion?.time ?? now)
        if resumed == nil, let failed = episode.failedEstablishment, process.platform.establishmentFailure == .retry {
            // iOS tries again by itself and tells the app nothing: the attempt goes on.
            replay.scheduleSystem(at: max(now, failed), for: peripheral) { [unowned self] peripheral in
                replay.comment(
                    "\(address): the connection failed to be established (0x3E) at \(Wording.sinceStart(seconds: failed.seconds(since: cassette.origin))); iOS tries again by itself and tells the app nothing (--establishment-failure retry)"
                )
                attempts.remove(address)
                startAttempt(peripheral, address)
            }
        } else if episode.completion?.status == .success || episode.beganBeforeCapture {
            replay.scheduleSystem(at: at, for: peripheral) { [unowned self] peripheral in
                attempts.remove(address)
                if let status = injectedFailure(of: address) {
                    // The capture's connection is left for the next attempt: iOS's own, for a
                    // failed establishment it retries (the platform's reading), else the app's.
                    resumable[address] = episode
                    if status == .connectionFailedToBeEstablished, process.platform.establishmentFailure == .retry {
                        replay.comment(
                            "\(address): the connection failed to be established (0x3E); iOS tries again by itself and tells the app nothing (--establishment-failure retry)"
                        )
                        return startAttempt(peripheral, address)
                    }
                    return failAttempt(
                        peripheral, address, error: CoreBluetoothMapping.connectionFailureError(status: status).value)
                }
                // Scheduled before the app hears of the connection, so that a cancel from inside
                // didConnect withdraws it.
                scheduleRemoteDisconnection(of: episode, peripheral)
                startLink(episode, peripheral)
                let mtu = mtuAtConnection(episode, address)
                process.reach(peripheral, waking: "didConnect") { [unowned self] central in
                    replay.record(
                        .central(.didConnect, manager: replay.number(central)), [.init(.peripheral, "\(address)")])
                    central.deliver(.connected(peripheral, mtu: mtu))
                }
            }
        } else {
            // A failed establishment under `fail` carries that reading's error: the analysis
            // gives the default reading's (none).
            let error: any Error =
                episode.failedEstablishment != nil
                ? process.platform.establishmentFailure.error.map { $0.value as any Error } ?? CBError(.unknown)
                : (episode.cbError?.value ?? nil)?.error ?? CBError(.unknown)
            replay.scheduleSystem(at: at, for: peripheral) { [unowned self] peripheral in
                attempts.remove(address)
                failAttempt(peripheral, address, error: error)
            }
        }
    }

    /// The capture's connection to `address` that an attempt after a fault gets, completing at
    /// `at`: the one up then; else the next to complete, at its time; else the last one the
    /// captured app ended itself (its link stays up, as ``scheduleContinuation(after:at:_:)``
    /// keeps it). The cursor moves past it. Nil when the peer's every connection ended by `at`.
    private func connectionResumed(at: Timestamp, _ address: BluetoothAddress) -> (episode: Connection, at: Timestamp)?
    {
        let episodes = cassette.episodes[address] ?? cassette.centralEpisodes[address] ?? []
        let connected = episodes.indices.filter {
            episodes[$0].completion?.status == .success || episodes[$0].beganBeforeCapture
        }
        let found =
            connected.last { index in
                (episodes[index].completion.map { $0.time <= at } ?? true)
                    && (episodes[index].disconnection.map { $0.time > at } ?? true)
            }
            ?? connected.first { episodes[$0].completion.map { $0.time > at } ?? false }
            ?? connected.last { episodes[$0].disconnection?.initiator != .remote }
        guard let index = found else { return nil }
        cursor[address] = index + 1
        return (episodes[index], max(at, episodes[index].completion?.time ?? at))
    }

    /// The attempt to `peripheral` failed: the app hears `didFailToConnect` with `error`.
    private func failAttempt(_ peripheral: CBPeripheral, _ address: BluetoothAddress, error: any Error) {
        process.reach(peripheral, waking: "didFailToConnect") { [unowned self] central in
            replay.record(
                .central(.didFailToConnect, manager: replay.number(central)),
                [.init(.peripheral, "\(address)"), .error(error)])
            central.deliver(.failedToConnect(peripheral, error: error))
        }
    }

    /// The HCI status an injected fault fails the attempt to `address` with, completing now
    /// (``Fault/Kind/linkLoss(_:)`` with 0x3E, ``Fault/Kind/bondLost``): a lost bond only to a
    /// peer the capture shows encrypted (iOS encrypts a bonded peer's link as it connects).
    private func injectedFailure(of address: BluetoothAddress) -> HCIStatus? {
        guard let injector = replay.injector, let status = injector.attemptFailure else { return nil }
        injector.attemptFailure = nil
        if status == .pinOrKeyMissing {
            let bonded = cassette.links(of: address).contains { link in
                link.security.contains { if case .encryptionChanged(true, _) = $0.kind { true } else { false } }
            }
            guard bonded else {
                replay.comment(
                    "fault bond-lost: the capture never shows \(address)'s link encrypted, so there is no bond to lose; the connection completes"
                )
                return nil
            }
        }
        return status
    }

    /// A fault drops the link of `peripheral` with `reason` (``Fault/Kind/linkLoss(_:)``): the app
    /// is told as for any disconnection it did not ask for. The capture's connection goes on,
    /// so the app's next attempt gets it back.
    func injectLinkLoss(_ peripheral: CBPeripheral, reason: HCIStatus) {
        endByFault(peripheral) {
            disconnect(
                peripheral,
                error: CoreBluetoothMapping.disconnectionError(reason: reason, requestedByApp: false).value?.error)
        }
    }

    /// A fault ends the link of `peripheral` as `end` tells the app, while the capture's
    /// connection goes on: the app's next attempt gets it back.
    func endByFault(_ peripheral: CBPeripheral, _ end: () -> Void) {
        if let address = peripheral.address, let playback = playing[address] { resumable[address] = playback.episode }
        end()
    }

    func cancelConnection(_ peripheral: CBPeripheral, for central: CBCentralManager) {
        guard let address = peripheral.address else { return }
        replay.record(.app(.cancelPeripheralConnection), [.init(.peripheral, "\(address)")])
        autoReconnect.remove(address)
        replay.withdraw(peripheral)
        // The connection the cancelled attempt would have got is free for the app's next attempt.
        rewindAttempt(address)
        attempts.remove(address)
        if let playback = playing.removeValue(forKey: address) { noteUndelivered(playback, address) }
        guard peripheral.state != .disconnected else { return }
        // CoreBluetooth reports every cancel, of a connection or of an attempt, through
        // didDisconnectPeripheral with no error.
        replay.schedule(at: now, for: peripheral) { [unowned self] peripheral in
            peripheral.deliver(.linkLost)
            replay.record(
                .central(.didDisconnectPeripheral, manager: replay.number(central)),
                [.init(.peripheral, "\(address)"), .noError])
            central.deliver(.disconnected(peripheral, error: nil))
        }
    }

    /// The app let go of a connected or connecting peripheral object of its running process: it
    /// loses its connection or attempt with no callback, as on iOS (the decompiled framework's
    /// `CBPeripheral` dealloc: "Forcing disconnection of unused peripheral";
    /// Formats/corebluetooth.md). Called from the object's deinit, so nothing here calls the app.
    func released(_ peripheral: ReleasedPeripheral, _ address: BluetoothAddress) {
        replay.record(
            .system(.unusedPeripheral), [.init(.peripheral, "\(address)"), .init(.state, "\(peripheral.state)")])
        attempts.remove(address)
        autoReconnect.remove(address)
        if let playback = playing.removeValue(forKey: address) { noteUndelivered(playback, address) }
    }

    // MARK: Playback

    /// The next episode that completes (connected or failed), skipping attempts the captured app
    /// cancelled or that never completed (an attempt of this app would still be waiting then),
    /// and episodes that were over before the app asked. A connection that came up earlier and is
    /// still up is this app's at once.
    private func nextEpisode(for peer: BluetoothAddress) -> Connection? {
        // A remote central that connected to this host is connected to as a peripheral on its
        // own link (iOS gives a central app the link that is up when the peer serves GATT too).
        let episodes = cassette.episodes[peer] ?? cassette.centralEpisodes[peer] ?? []
        var index = cursor[peer, default: 0]
        defer { cursor[peer] = index }
        while index < episodes.count {
            let episode = episodes[index]
            index += 1
            guard episode.outcome == .failed || episode.completion?.status == .success || episode.beganBeforeCapture
            else {
                continue
            }
            let over = episode.outcome == .failed ? episode.completion?.time : episode.disconnection?.time
            if let over, over < now { continue }
            return episode
        }
        return nil
    }

    /// An attempt to `address` that will be made again later (Bluetooth went off while the system
    /// held it for a terminated app): the connection that was to complete it is free again.
    func rewindAttempt(_ address: BluetoothAddress) {
        if attempts.contains(address), let from = attemptFrom[address] { cursor[address] = from }
    }

    /// The connection `episode` is now the app's: the GATT client plays its MTU, Service Changed
    /// indications and notifications from now on.
    private func startLink(_ episode: Connection, _ peripheral: CBPeripheral) {
        guard let address = peripheral.address else { return }
        let link = cassette.link(connection: episode.id)
        playing[address] = LinkPlayback(episode: episode, link: link)
        guard let link else { return }
        client.play(link, peripheral)
    }

    private func scheduleRemoteDisconnection(of episode: Connection, _ peripheral: CBPeripheral) {
        guard let disconnection = episode.disconnection else { return }
        if disconnection.initiator != .remote {
            return scheduleContinuation(after: episode, at: disconnection.time, peripheral)
        }
        let (time, reason) = (disconnection.time, disconnection.reason)
        // A link lost before its first exchange, played under `fail`: that reading's error.
        let error =
            episode.failedEstablishment != nil
            ? process.platform.establishmentFailure.error.map { $0.value as any Error }
            : (episode.cbError?.value
                ?? CoreBluetoothMapping.disconnectionError(
                    reason: reason, requestedByApp: false
                ).value)?.error
        replay.scheduleSystem(at: max(now, time), for: peripheral) { [unowned self] peripheral in
            disconnect(peripheral, error: error)
        }
    }

    /// The link to `peripheral` ends now, not by the app's cancel: the app hears
    /// `didDisconnectPeripheral` with `error` (a terminated app kept for restoration is
    /// relaunched for it), and its requests in flight get no callback.
    func disconnect(_ peripheral: CBPeripheral, error: (any Error)?) {
        endLink(of: peripheral)
        process.reach(peripheral, waking: "didDisconnectPeripheral") { [unowned self] central in
            // Answers to what a relaunched app asked before hearing of it go with the link.
            replay.withdraw(peripheral)
            peripheral.deliver(.linkLost)
            // With auto-reconnect the system connects again by itself, and says so (iOS 17).
            let reconnecting = peripheral.address.map { autoReconnect.contains($0) } ?? false
            replay.record(
                .central(.didDisconnectPeripheral, manager: replay.number(central)),
                [.init(.peripheral, "\(peripheral.address.map { "\($0)" } ?? "?")"), .error(error)]
                    + (reconnecting ? [.init(.isReconnecting, "true")] : []))
            // The peripheral is `.connecting` during the callback; unless the app cancelled
            // there, the system's attempt goes on from it.
            central.deliver(
                .disconnected(peripheral, error: error, timestamp: absoluteTime(now), isReconnecting: reconnecting))
            if reconnecting, let address = peripheral.address, autoReconnect.contains(address),
                peripheral.state == .connecting
            {
                startAttempt(peripheral, address)
            }
        }
    }

    /// `CFAbsoluteTime` (seconds since 1 January 2001) of a capture time.
    private func absoluteTime(_ time: Timestamp) -> CFAbsoluteTime {
        Double(time.rawValue) / 1_000_000 - 978_307_200
    }

    /// The captured app ended `episode` itself at `time`, but this app still holds the link: the
    /// peer's next connection in the capture continues it (its notifications, service changes and
    /// remote disconnection reach the app), as if the link had never dropped. With none, the link
    /// stays up to the end.
    private func scheduleContinuation(after episode: Connection, at time: Timestamp, _ peripheral: CBPeripheral) {
        guard let address = peripheral.address else { return }
        replay.scheduleSystem(at: max(now, time), for: peripheral) { [unowned self] peripheral in
            let subscribed = playing[address]?.subscribed ?? []
            playing[address]?.link = nil  // the old connection has nothing more to play
            guard let next = nextEpisode(for: address), next.outcome != .failed else {
                replay.comment(
                    "\(address): the capture's app disconnected at \(Wording.sinceStart(seconds: time.seconds(since: cassette.origin))) and never connected again; this app's link stays up"
                )
                return
            }
            let at = max(now, next.completion?.time ?? now)
            replay.comment(
                "\(address): the capture's app disconnected at \(Wording.sinceStart(seconds: time.seconds(since: cassette.origin))); this app's link continues as the capture's next connection, from \(Wording.sinceStart(seconds: at.seconds(since: cassette.origin)))"
            )
            replay.scheduleSystem(at: at, for: peripheral) { [unowned self] peripheral in
                startLink(next, peripheral)
                playing[address]?.subscribed = subscribed
                scheduleRemoteDisconnection(of: next, peripheral)
            }
        }
    }

    // MARK: Ends

    /// The link of `peripheral` ended: what it still had to play is dropped.
    func endLink(of peripheral: CBPeripheral) {
        guard let address = peripheral.address, let playback = playing.removeValue(forKey: address) else { return }
        replay.withdraw(peripheral)
        noteUndelivered(playback, address)
    }

    /// The system ends `peripheral`'s connection or connection attempt with no callback: what its
    /// link had to play and the answers owed on it are dropped.
    func endConnection(of peripheral: CBPeripheral, _ address: BluetoothAddress) {
        replay.withdraw(peripheral)
        attempts.remove(address)
        if let playback = playing.removeValue(forKey: address) { noteUndelivered(playback, address) }
    }

    /// The links still up at the end of the replay.
    func endLinks() {
        for (address, playback) in playing.sorted(by: { $0.key < $1.key }) { noteUndelivered(playback, address) }
        playing = [:]
    }

    /// At the end of the replay, each peripheral object the app was given and asked to connect,
    /// or that is not disconnected (a restored one), with its state, by address; each noted in the
    /// flow's comments.
    func finalStates() -> [String: CBPeripheralState] {
        var states: [String: CBPeripheralState] = [:]
        for (address, peripheral) in given.sorted(by: { $0.key < $1.key })
        where connectRequested.contains(address) || peripheral.state != .disconnected {
            replay.comment("at the end of the capture: \(address) is \(peripheral.state)")
            states["\(address)"] = peripheral.state
        }
        return states
    }

    /// The link's notifications that reached no app, said in the flow: those to characteristics
    /// the app had not subscribed to, and those the capture shows after the link ended in the
    /// replay (the app cancelled it, or the system ended it, before the capture's link ended).
    private func noteUndelivered(_ playback: LinkPlayback, _ address: BluetoothAddress) {
        func count(_ n: Int) -> String {
            Wording.count(n, "notification or indication", plural: "notifications or indications")
        }
        if playback.undelivered > 0 {
            let to = playback.undelivered == 1 ? "a characteristic" : "characteristics"
            replay.comment(
                "\(address): \(count(playback.undelivered)) of the capture went to \(to) the app had not subscribed to; not delivered"
            )
        }
        let notifications = playback.link?.notifications ?? []
        let next = min(playback.notifications?.index ?? notifications.endIndex, notifications.endIndex)
        let after = notifications[next...].count { $0.sender != .host }
        if after > 0 {
            replay.comment(
                "\(address): \(count(after)) of the capture came after the link ended in the replay (\(Wording.sinceStart(seconds: now.seconds(since: cassette.origin)))); not delivered"
            )
        }
    }
}

/// What the app did on the connection it is playing: the capture's link, and how far the app's
/// requests have used its answers. A class: the replay reads it for every notification, and a
/// reference is cheaper to look up than a copy of the whole.
final class LinkPlayback {
    var episode: Connection
    var link: Cassette.Link?
    /// Requests of the app so far, by kind and handle: the n-th gets the capture's n-th answer.
    @exclusivity(unchecked) var occurrences: [Int: Int] = [:]
    /// Value handles of the characteristics the app subscribed to.
    @exclusivity(unchecked) var subscribed: Set<UInt16> = [] {
        didSet { subscribedVersion &+= 1 }
    }
    /// Counts the changes of ``subscribed``: an answer found there stays true while it is the same.
    @exclusivity(unchecked) private(set) var subscribedVersion = 0
    /// Notifications and indications of the capture the app was not subscribed to.
    @exclusivity(unchecked) var undelivered = 0
    /// How far the link's notifications have played.
    var notifications: NotificationCursor?
    /// The app's writes without response in the controller's buffers (flow control).
    var transmit = TransmitQueue()

    init(episode: Connection, link: Cassette.Link?) {
        self.episode = episode
        self.link = link
    }
}
