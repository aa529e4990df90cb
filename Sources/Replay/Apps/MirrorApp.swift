import BLETraceCoreBluetooth
import Flow
import Foundation
import Lifecycle
import Wire

/// The captured app, played again through CoreBluetooth: it makes the requests the capture's
/// central made, at their capture times — connections, cancels, discovery, reads, writes,
/// subscriptions — so that its flow is what CoreBluetooth would have told the captured app.
///
/// Discovery is made as CoreBluetooth apps make it (services, then the characteristics and
/// descriptors the capture discovered); a read or write is made on the object with the capture's
/// handle — after the discovery under way, when it has not reached that object yet — and skipped
/// when discovery never gives the app that object. A connection on which the captured stack used
/// handles cached from an earlier one, with no discovery, is discovered first, as a CoreBluetooth
/// app discovers on every connection.
/// Scans are made when the captured host scanned, as a CoreBluetooth app scans by default (every
/// service, each peripheral once a scan: the capture does not show the app's filter or options);
/// connections do not wait for them (the mirror holds every peer's object). A request the captured stack sent
/// again after pairing (refused for security first) is made once: iOS retries by itself. When the
/// capture was taken on a peripheral host, ``MirrorServer`` plays its GATT server to the remote
/// centrals as well.
final class MirrorApp: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
    private let cassette: Cassette
    private var central: CBCentralManager?
    private var server: MirrorServer?
    private var launch: Launch?
    /// Discovery requests made and not yet answered, per peripheral with any (empty while none
    /// is under way, as for most requests).
    private var discovering: [UUID: Int] = [:]
    /// Operations waiting for the discovery under way, or for the connection being made, per
    /// peripheral.
    private var waiting: [UUID: [Cassette.Operation]] = [:]
    /// Peripherals whose discovery comes once their connection, completing at the same capture
    /// time (a link that began before the capture, whose first record is a discovery request), is
    /// up.
    private var discoverOnConnect: Set<UUID> = []

    init(cassette: Cassette) { self.cassette = cassette }

    func didFinishLaunching(_ launch: Launch) {
        self.launch = launch
        central = CBCentralManager(delegate: self, queue: nil)
        // A capture taken on a peripheral host: its GATT server is played too (MirrorServer).
        if MirrorServer.isNeeded(for: cassette) { server = MirrorServer(cassette: cassette, launch: launch) }
    }

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard central.state == .poweredOn else { return }
        var script: [Step] = []
        for scan in cassette.scans {
            guard let start = scan.startTime ?? (scan.beganBeforeCapture ? cassette.start : nil) else { continue }
            script.append(Step(time: start, kind: .scan, peer: -1))
            if let stop = scan.stopTime { script.append(Step(time: stop, kind: .stopScan, peer: -1)) }
        }
        for address in cassette.peers {
            guard let peripheral = central.retrievePeripherals(withIdentifiers: [CBPeer.identifier(for: address)]).first
            else { continue }
            peripheral.delegate = self
            peripherals.append(peripheral)
            for episode in cassette.episodes[address] ?? [] where episode.role != .peripheral {
                follow(episode, peer: peripherals.count - 1, into: &script)
            }
        }
        // A peripheral host that was also a GATT client of a remote central: the app reaches the
        // central's server through its central manager, on the link the central made.
        for address in cassette.centrals where cassette.links(of: address).contains(where: Self.hasClientRequests) {
            guard let peripheral = central.retrievePeripherals(withIdentifiers: [CBPeer.identifier(for: address)]).first
            else { continue }
            peripheral.delegate = self
            peripherals.append(peripheral)
            for episode in cassette.centralEpisodes[address] ?? []
            where cassette.link(connection: episode.id).map(Self.hasClientRequests) == true {
                follow(episode, peer: peripherals.count - 1, into: &script)
            }
        }
        play(script, central)
    }

    /// One thing the captured app did, at its capture time: what, on which of ``peripherals``
    /// (-1 for a scan), and for an operation where it is in the cassette (``Cassette/links``,
    /// operation index).
    private struct Step {
        enum Kind: UInt8 { case connect, cancel, discover, issue, scan, stopScan }
        var time: Timestamp
        var kind: Kind
        var peer: Int32
        var link: Int32 = -1
        var operation: Int32 = -1
    }

    /// Whether this host's GATT client asked anything of `link`'s peer (discovery, reads, writes).
    private static func hasClientRequests(_ link: Cassette.Link) -> Bool {
        link.operations.contains {
            $0.sender == .host && $0.kind != .mtu && $0.kind != .indication && $0.kind != .other
        }
    }

    /// Schedules every step at launch through the launch's timers, as on a system other than the
    /// replay engine (tests compare the two).
    var schedulesAllAtLaunch = false

    /// Peripherals the app retrieved, one per peer of the capture, in order.
    private var peripherals: [CBPeripheral] = []

    /// What the captured app did on `episode`, in the order it is scheduled.
    private func follow(_ episode: Connection, peer: Int, into script: inout [Step]) {
        let peer = Int32(peer)
        // A link a remote central made is the app's once it is up.
        let connect = episode.role == .peripheral ? episode.completion?.time : episode.attempt?.time
        script.append(Step(time: connect ?? cassette.start, kind: .connect, peer: peer))
        if let cancel = episode.cancelTime { script.append(Step(time: cancel, kind: .cancel, peer: peer)) }
        // This host ending a link is the app's cancel, unless its Bluetooth was going off (0x15,
        // Power Off: the replay turns Bluetooth off there, ReplayEngine.scheduleCapturedPowerOffs).
        // It cancels when this host sent HCI Disconnect, not when the controller completed it.
        if let disconnection = episode.disconnection, disconnection.initiator == .local,
            disconnection.reason != .remoteDeviceTerminatedPowerOff
        {
            script.append(Step(time: disconnection.request?.time ?? disconnection.time, kind: .cancel, peer: peer))
        }
        guard let linkIndex = cassette.linkIndex(connection: episode.id) else { return }
        var discovered = false
        var refusedForSecurity: Set<Int> = []
        // Each operation's fields read in place: a copy of an operation retains its arrays.
        let operations = cassette.links[linkIndex].operations
        for index in operations.indices where operations[index].sender != .peer {
            // The captured stack's own retry of a request refused for security after pairing:
            // iOS retries by itself, so the app makes the request once.
            let key = PeerIndex.key(operations[index].kind, operations[index].handle ?? 0)
            if refusedForSecurity.remove(key) != nil { continue }
            if let code = operations[index].error?.rawValue, [0x05, 0x0C, 0x0F].contains(code) {
                refusedForSecurity.insert(key)
            }
            let time = operations[index].time
            switch operations[index].kind {
            case .discovery where !discovered:
                discovered = true
                script.append(Step(time: time, kind: .discover, peer: peer))
            case .read, .write, .longWrite, .writeWithoutResponse, .signedWrite:
                if !discovered {
                    // The captured stack used handles it had cached from an earlier connection; a
                    // CoreBluetooth app discovers on every connection (iOS answers from its own
                    // cache), so the mirror discovers first.
                    discovered = true
                    script.append(Step(time: time, kind: .discover, peer: peer))
                }
                script.append(
                    Step(time: time, kind: .issue, peer: peer, link: Int32(linkIndex), operation: Int32(index)))
            default:
                break
            }
        }
    }

    /// Plays `script`, each step at its capture time (at once when that is past). The replay's
    /// queue holds one step at a time, the next taken when one has run, with the place in the
    /// queue's order each would have had if all were scheduled now: the same flow as scheduling
    /// them all at launch, without a queue of the whole capture. One action plays every step,
    /// scheduled again for the next (no closure made a step).
    private func play(_ script: [Step], _ central: CBCentralManager) {
        guard !schedulesAllAtLaunch, let engine = BluetoothSystemContext.current as? ReplayEngine else {
            // Another system: every step through the launch's timers.
            for step in script { at(step.time) { [unowned self] in perform(step, central) } }
            return
        }
        // From the capture time of the launch, not `now`: in real time that is a few
        // milliseconds later, and the captured app's cancel would come after the capture's
        // own end of the link instead of at it.
        let launchTime = engine.process.launchedAt
        // The steps are this app process's timers: a termination withdraws them.
        let process = engine.queue.liveProcess
        let sequences = engine.queue.reserve(script.count)
        // In the queue's order: by time, then by when each was scheduled.
        let order = script.indices.map { index in
            (
                time: launchTime.adding(
                    microseconds: ReplayEngine.microseconds(max(0, script[index].time.seconds(since: cassette.start)))),
                index: index
            )
        }.sorted { ($0.time, $0.index) < ($1.time, $1.index) }
        guard let first = order.first else { return }
        let cursor = ScriptCursor()
        // unowned(unsafe): only the replay's queue runs this action, and it drops the actions of
        // an app process that ended, so the app is alive whenever it runs.
        engine.queue.schedule(at: first.time, sequence: sequences.lowerBound + first.index, for: nil, process: process)
        {
            [unowned(unsafe) self, unowned(unsafe) engine] in
            let position = cursor.position
            cursor.position += 1
            // The next first, so that a replay stopped by this step stops them all.
            if position + 1 < order.count {
                let (time, index) = order[position + 1]
                engine.queue.scheduleRunningAgain(at: time, sequence: sequences.lowerBound + index, for: nil)
            }
            perform(script[order[position].index], central)
        }
    }

    /// Where ``play(_:_:)`` is in its script.
    private final class ScriptCursor {
        var position = 0
    }

    private func perform(_ step: Step, _ central: CBCentralManager) {
        var peripheral: CBPeripheral { peripherals[Int(step.peer)] }
        switch step.kind {
        case .scan:
            central.scanForPeripherals(withServices: nil)
        case .stopScan:
            central.stopScan()
        case .connect:
            central.connect(peripheral)
        case .cancel:
            // A link iOS ended already (after a cancelled pairing) needs no cancel: the captured
            // host's disconnection was the system's.
            guard peripheral.state != .disconnected else { return }
            central.cancelPeripheralConnection(peripheral)
        case .discover:
            guard peripheral.state != .connecting else {
                discoverOnConnect.insert(peripheral.identifier)
                return
            }
            discovering[peripheral.identifier, default: 0] += 1
            peripheral.discoverServices(nil)
        case .issue:
            issue(cassette.links[Int(step.link)].operations[Int(step.operation)], on: peripheral)
        }
    }

    /// The CoreBluetooth call for one of the captured app's operations.
    private func issue(_ operation: Cassette.Operation, on peripheral: CBPeripheral) {
        guard let handle = operation.handle else { return }
        guard peripheral.state == .connected else {
            if peripheral.state == .connecting {
                waiting[peripheral.identifier, default: []].append(operation)
            } else {
                skipped(operation, on: peripheral, "the link was not up in the replay (\(peripheral.state))")
            }
            return
        }
        guard discovering.isEmpty || discovering[peripheral.identifier] == nil else {
            waiting[peripheral.identifier, default: []].append(operation)
            return
        }
        let services = peripheral.services ?? []
        if let address = peripheral.address,
            let service = cassette.services(of: address).last(where: {
                handleRange($0.handle, $0.endHandle).contains(handle)
            }),
            ClientPlayback<ReplayEngine>.hiddenByIOS(service.uuid)
        {
            let name = CBUUID(bluetoothUUID: service.uuid).uuidString
            return skipped(
                operation, on: peripheral,
                service.uuid.isStackService
                    ? "the stack's own request to \(name) (iOS keeps Generic Access and Generic Attribute to itself)"
                    : "a request to \(name), a service iOS keeps to itself (HID)")
        }
        for service in services {
            guard let characteristic = service.characteristics?.first(where: { $0.valueHandle == handle }) else {
                continue
            }
            switch operation.kind {
            case .read: peripheral.readValue(for: characteristic)
            case .writeWithoutResponse, .signedWrite:
                peripheral.writeValue(Data(operation.value), for: characteristic, type: .withoutResponse)
            default: peripheral.writeValue(Data(operation.value), for: characteristic, type: .withResponse)
            }
            return
        }
        for service in services {
            for characteristic in service.characteristics ?? [] {
                guard let descriptor = characteristic.descriptors?.first(where: { $0.handle == handle }) else {
                    continue
                }
                switch operation.kind {
                case .read: peripheral.readValue(for: descriptor)
                case _ where descriptor.uuid.uuidString == "2902":
                    // CoreBluetooth writes a Client Characteristic Configuration only through
                    // setNotifyValue, with a Write Request, for a characteristic that notifies or
                    // indicates.
                    guard operation.kind == .write, !characteristic.properties.isDisjoint(with: [.notify, .indicate])
                    else {
                        return skipped(
                            operation, on: peripheral,
                            "a CoreBluetooth app writes a Client Characteristic Configuration only by setNotifyValue (a Write Request, on a characteristic that notifies or indicates)"
                        )
                    }
                    peripheral.setNotifyValue((operation.value.first ?? 0) & 0x03 != 0, for: characteristic)
                default: peripheral.writeValue(Data(operation.value), for: descriptor)
                }
                return
            }
        }
        skipped(operation, on: peripheral, "discovery gave the app no characteristic or descriptor at that handle")
    }

    /// An operation of the captured app that a CoreBluetooth app cannot make: left out, with a
    /// comment in the flow, one per peer, kind and reason, with how many.
    private func skipped(_ operation: Cassette.Operation, on peripheral: CBPeripheral, _ why: String) {
        guard let engine = BluetoothSystemContext.current as? ReplayEngine else { return }
        let address = peripheral.address.map { "\($0)" } ?? "?"
        let handle = hex(operation.handle ?? 0, digits: 4, uppercase: true)
        let key = "\(address) \(operation.kind.rawValue) \(why)"
        guard var skip = skips[key], skip.comment < engine.comments.count else {
            skips[key] = Skip(comment: engine.comments.count, count: 1, handles: [handle], first: operation.time)
            return engine.comments.append(
                "\(address): the captured app's \(operation.kind.rawValue) of \(handle) at \(Wording.sinceStart(seconds: operation.time.seconds(since: cassette.origin))) is not played: \(why)"
            )
        }
        skip.count += 1
        if !skip.handles.contains(handle) { skip.handles.append(handle) }
        let handles = skip.handles.prefix(8).joined(separator: ", ") + (skip.handles.count > 8 ? ", …" : "")
        engine.comments[skip.comment] =
            "\(address): \(skip.count) of the captured app's \(operation.kind.rawValue) operations (on \(handles), the first at \(Wording.sinceStart(seconds: skip.first.seconds(since: cassette.origin)))) are not played: \(why)"
        skips[key] = skip
    }

    /// The comment of the operations left out for one peer, kind and reason.
    private struct Skip {
        var comment: Int
        var count: Int
        var handles: [String]
        var first: Timestamp
    }
    private var skips: [String: Skip] = [:]

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        guard let address = peripheral.address else { return }
        for service in peripheral.services ?? []
        where !cassette.characteristics(of: address, service: service.handles.lowerBound).isEmpty {
            discovering[peripheral.identifier, default: 0] += 1
            peripheral.discoverCharacteristics(nil, for: service)
        }
        discovered(peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        guard let address = peripheral.address else { return }
        for characteristic in service.characteristics ?? []
        where !cassette.descriptors(of: address, characteristic: characteristic.valueHandle).isEmpty {
            discovering[peripheral.identifier, default: 0] += 1
            peripheral.discoverDescriptors(for: characteristic)
        }
        discovered(peripheral)
    }

    func peripheral(
        _ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?
    ) {
        discovered(peripheral)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        let id = peripheral.identifier
        if discoverOnConnect.remove(id) != nil {
            discovering[id, default: 0] += 1
            peripheral.discoverServices(nil)
        } else if discovering[id] == nil, let operations = waiting.removeValue(forKey: id) {
            for operation in operations { issue(operation, on: peripheral) }
        }
    }

    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {
        discovering[peripheral.identifier] = nil
        discoverOnConnect.remove(peripheral.identifier)
        for operation in waiting.removeValue(forKey: peripheral.identifier) ?? [] {
            skipped(operation, on: peripheral, "the link ended in the replay before it could be made")
        }
    }

    /// One discovery answered: once none is left, the operations that waited for it are made.
    private func discovered(_ peripheral: CBPeripheral) {
        let left = discovering[peripheral.identifier, default: 1] - 1
        discovering[peripheral.identifier] = left == 0 ? nil : left
        guard left == 0, let operations = waiting.removeValue(forKey: peripheral.identifier) else { return }
        for operation in operations { issue(operation, on: peripheral) }
    }

    /// Runs `action` at capture time `time` (at once when that is past).
    private func at(_ time: Timestamp, _ action: @escaping () -> Void) {
        launch?.asyncAfter(max(0, time.seconds(since: cassette.start)), action)
    }
}
