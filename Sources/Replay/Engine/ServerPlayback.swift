import ATT
import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Flow
import Foundation
import Lifecycle
import Wire

/// The peripheral-manager side of a replay: a capture taken on a peripheral host (this host's
/// GATT server, remote centrals connecting to it) plays its centrals to the app's
/// `CBPeripheralManager` (Formats/flow.md, "The peripheral manager: how the replay plays remote centrals").
/// A part of the engine (``ReplayEngine``) with its own state and logic: the engine's
/// `BluetoothSystem` methods for peripheral managers forward to it, and what it needs of the rest
/// of the replay is `ReplayContext`.
final class ServerPlayback {
    let cassette: Cassette
    /// The engine running the replay: all this part uses of it. Unowned: the engine owns its
    /// parts and outlives them; set once, as the engine finishes its own initialization.
    unowned var replay: (any ReplayContext)!

    init(cassette: Cassette) {
        self.cassette = cassette
    }

    /// One thing a remote central did, at its capture time.
    struct Step {
        enum Kind {
            case connected
            case mtu(UInt16)
            /// The central's request: an index into its link's ``Cassette/Link/exchanges``.
            case request(Int)
            case disconnected
        }
        var time: Timestamp
        /// Index in ``Cassette/links``.
        var link: Int
        var central: BluetoothAddress
        var kind: Kind
    }

    /// A characteristic the app published, at the value handle the system gave it.
    struct Published {
        var manager: CBPeripheralManager
        var service: CBMutableService
        var characteristic: CBMutableCharacteristic
    }

    /// A read or a group of writes delivered to the app, waiting for its `respond(to:withResult:)`.
    struct Pending {
        enum Kind { case read, write }
        var kind: Kind
        var request: CBATTRequest
        var central: BluetoothAddress
        var link: Int
        var characteristic: String
        /// What the capture's server answered: nil when it never did.
        var captured: String?
        /// ATT MTU of the link when the request came (a read's answer holds MTU − 1 bytes).
        var mtu: Int
    }

    private var steps: [Step] = []
    /// The capture's server as the remote centrals discovered it, services in handle order.
    private var database: [GATTDatabase.Service] = []
    /// Client Characteristic Configuration handle → the value handle of its characteristic.
    private var cccdOwner: [UInt16: UInt16] = [:]
    /// Value handles the centrals read, wrote or subscribed to.
    private var used: Set<UInt16> = []
    /// The app's published characteristics by value handle.
    private var published: [UInt16: Published] = [:]
    /// Start handles of the capture's services an app service took.
    private var takenServices: Set<UInt16> = []
    /// The next handle for what the capture's server did not have.
    private var nextHandle: UInt16 = 1
    /// One `CBCentral` per remote central, for the whole replay.
    private var centrals: [BluetoothAddress: CBCentral] = [:]
    private var mtu: [BluetoothAddress: Int] = [:]
    /// Links (``Cassette/links`` indices) that are up.
    private var up: Set<Int> = []
    /// Value handles each central is subscribed to, in the order it subscribed.
    private var subscriptions: [BluetoothAddress: [UInt16]] = [:]
    /// Prepare Write Requests waiting for their Execute Write, per central.
    private var prepared: [BluetoothAddress: [Cassette.Exchange]] = [:]
    private var pending: [ObjectIdentifier: Pending] = [:]
    /// ATT transaction deadlines of the requests delivered, in time order, from ``nextDeadline`` on.
    private var deadlines: [(time: Timestamp, request: CBATTRequest)] = []
    private var nextDeadline = 0
    /// The last write command of each central, which needs no answer.
    private var commands: [BluetoothAddress: CBATTRequest] = [:]
    var advertising = false
    /// What the app advertises (kept for restoration).
    var advertisementData: [String: Any]?
    /// Flow names of the published characteristics and of the centrals, made once.
    private var names: [ObjectIdentifier: String] = [:]
    private var addresses: [BluetoothAddress: String] = [:]
    /// Divergences noted once.
    private var noted: Set<String> = []
    /// Links (``Cassette/links`` indices) on which this host was the central and the peer a GATT
    /// client of it too: what the app has not published there, the system answers, silently.
    private var systemUnlessPublished: Set<Int> = []
    /// Each connected central's link (a ``Cassette/links`` index), and the app's notifications in
    /// the controller's buffers on each (flow control: ServerPlayback+FlowControl.swift).
    var linkOf: [BluetoothAddress: Int] = [:]
    var transmit: [Int: TransmitQueue] = [:]
}

extension ServerPlayback {
    // MARK: Playing the remote centrals

    /// Reads the capture's remote centrals (links where this host was the peripheral) into one
    /// time line, and plays it step by step (one step scheduled at a time).
    func start() {
        var steps: [Step] = []
        var services: [UInt16: GATTDatabase.Service] = [:]
        for (index, link) in cassette.links.enumerated() {
            // A central host's peer may be a GATT client of this host too (as a watch is of a
            // phone): its requests reach the app's peripheral manager where the app published
            // the service, and the system otherwise.
            if link.hostRole != .peripheral {
                guard link.exchanges.contains(where: { $0.sender == .peer && Self.centralRequests.contains($0.opcode) })
                else { continue }
                systemUnlessPublished.insert(index)
            }
            let connection = cassette.connections[link.connection]
            guard let central = link.peer ?? connection.peer else { continue }
            if let status = connection.completion?.status, status != .success { continue }
            for service in (link.localDatabase ?? cassette.peer(central)?.localDatabase)?.services ?? [] {
                var merged = services[service.handle] ?? service
                for characteristic in service.characteristics
                where !merged.characteristics.contains(where: { $0.valueHandle == characteristic.valueHandle }) {
                    merged.characteristics.append(characteristic)
                }
                services[service.handle] = merged
            }
            steps.append(
                .init(
                    time: connection.completion?.time ?? cassette.start, link: index, central: central, kind: .connected
                ))
            if let mtu = link.mtu {
                steps.append(
                    .init(time: link.mtuTime ?? cassette.start, link: index, central: central, kind: .mtu(mtu)))
            }
            for (position, exchange) in link.exchanges.enumerated()
            where exchange.sender != .host && Self.centralRequests.contains(exchange.opcode) {
                steps.append(.init(time: exchange.time, link: index, central: central, kind: .request(position)))
            }
            if let time = connection.disconnection?.time {
                steps.append(.init(time: time, link: index, central: central, kind: .disconnected))
            }
        }
        database = services.values.sorted { $0.handle < $1.handle }
        for service in database {
            for characteristic in service.characteristics {
                for descriptor in characteristic.descriptors where descriptor.uuid == .clientCharacteristicConfiguration
                {
                    cccdOwner[descriptor.handle] = characteristic.valueHandle
                }
            }
        }
        nextHandle = (database.map(\.endHandle).max() ?? 0) &+ 1
        self.steps = steps.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(
            \.element)
        for step in self.steps {
            guard case .request(let position) = step.kind,
                let handle = cassette.links[step.link].exchanges[position].handle
            else { continue }
            used.insert(cccdOwner[handle] ?? handle)
        }
        playStep(0)
    }

    /// The requests of a remote central that reach a peripheral manager's app.
    private static let centralRequests: Set<ATTOpcode> = [
        .readRequest, .readBlobRequest, .writeRequest, .writeCommand, .signedWriteCommand, .prepareWriteRequest,
        .executeWriteRequest,
    ]

    private func playStep(_ index: Int) {
        guard index < steps.count else { return }
        let step = steps[index]
        replay.scheduleSystem(at: max(replay.now, step.time)) { [unowned self] in
            let play = { [unowned self] in
                perform(step)
                if !replay.failed { playStep(index + 1) }
            }
            // In the background without bluetooth-peripheral the app's services refuse.
            if refusedInBackground(step) { return playStep(index + 1) }
            // While the app is not running, a request relaunches it, or is lost.
            switch fateWhileNotRunning(step) {
            case .play: play()
            case .relaunched: replay.schedule(at: replay.now, play)
            case .lost: playStep(index + 1)
            }
        }
    }

    private enum StepFate { case play, relaunched, lost }

    /// A remote central's request to a service the app published, while the app is in the
    /// background without `bluetooth-peripheral`: iOS disables the services ("any remote central
    /// trying to access the service's characteristic value … receives an error": Apple's
    /// `CBPeripheralManager`), so the app hears nothing of it.
    private func refusedInBackground(_ step: Step) -> Bool {
        guard replay.servicesDisabled, case .request(let position) = step.kind else { return false }
        let handle = cassette.links[step.link].exchanges[position].handle ?? 0
        guard published[cccdOwner[handle] ?? handle] != nil else { return false }
        if noted.insert("refused in the background").inserted {
            replay.comment(
                "\(step.central): a request to the app's services while it is in the background without bluetooth-peripheral: refused with an error, the app hears nothing"
            )
        }
        return true
    }

    /// A remote central's step while the app is not running: a request to a service a peripheral
    /// manager kept for restoration relaunches the app (the step plays after the restoration); any
    /// other request is lost. Other steps (connections, MTU) play as always.
    private func fateWhileNotRunning(_ step: Step) -> StepFate {
        guard !replay.appIsRunning, case .request(let position) = step.kind else { return .play }
        let exchange = cassette.links[step.link].exchanges[position]
        let handle = exchange.handle ?? 0
        let owner = published[cccdOwner[handle] ?? handle]?.manager
        // On a link where this host was the central, the system answers what the app did not
        // publish, running or not.
        if owner == nil, systemUnlessPublished.contains(step.link) { return .play }
        let reason =
            cccdOwner[handle] != nil
            ? "didSubscribeTo"
            : [.readRequest, .readBlobRequest].contains(exchange.opcode) ? "didReceiveRead" : "didReceiveWrite"
        guard let owner, replay.relaunch(forRequestTo: owner, reason: reason, central: "\(step.central)") else {
            if noted.insert("lost while not running").inserted {
                replay.comment(
                    "\(step.central): requests while the app is not running reach no app (no peripheral manager kept them for restoration)"
                )
            }
            return .lost
        }
        return .relaunched
    }

    private func perform(_ step: Step) {
        let address = step.central
        switch step.kind {
        case .connected:
            up.insert(step.link)
            (linkOf[address], transmit[step.link]) = (step.link, TransmitQueue())
            self.mtu[address] = 23
            if let central = centrals[address] {
                central.linkMTUChanged(to: 23)
            } else {
                centrals[address] = CBCentral(identifier: CBPeer.identifier(for: address), address: address)
            }
            if !advertising, !systemUnlessPublished.contains(step.link) {
                replay.comment(
                    "\(address) connects at \(Wording.sinceStart(seconds: replay.now.seconds(since: cassette.origin))) while the app is not advertising; its requests are played all the same"
                )
            }
        case .mtu(let mtu):
            self.mtu[address] = Int(mtu)
            centrals[address]?.linkMTUChanged(to: Int(mtu))
        case .disconnected:
            up.remove(step.link)
            linkOf[address] = nil
            prepared[address] = nil
            // CoreBluetooth tells a peripheral manager of a central's disconnection only this way.
            for valueHandle in subscriptions.removeValue(forKey: address) ?? [] {
                guard let published = self.published[valueHandle], let central = centrals[address] else { continue }
                if replay.appIsRunning {
                    replay.record(
                        .peripheralManager(.didUnsubscribeFrom, manager: replay.number(published.manager)),
                        [
                            .init(.central, text(address)), .init(.characteristic, name(of: published.characteristic)),
                        ])
                }
                published.manager.deliver(.unsubscribed(central, from: published.characteristic))
            }
        case .request(let position):
            request(cassette.links[step.link].exchanges[position], step)
        }
    }

    private func request(_ exchange: Cassette.Exchange, _ step: Step) {
        let address = step.central
        guard let handle = exchange.handle else { return }
        switch exchange.opcode {
        case .readRequest, .readBlobRequest:
            guard let published = publishedCharacteristic(handle, step, "reads") else { return }
            deliverRead(exchange, published, step)
        case .writeRequest, .writeCommand, .signedWriteCommand:
            if let owner = cccdOwner[handle] {
                return configure(owner, exchange, step)
            }
            guard let published = publishedCharacteristic(handle, step, "writes") else { return }
            deliverWrites([(exchange, published)], answer: exchange, step)
        case .prepareWriteRequest:
            prepared[address, default: []].append(exchange)
        case .executeWriteRequest:
            let parts = prepared.removeValue(forKey: address) ?? []
            // Flags 0x00 cancel the prepared writes (Core 6.0, Vol 3, Part F, §3.4.6.3).
            guard exchange.parameter == 1 else { return }
            // Consecutive parts of one characteristic at contiguous offsets reach the app as one
            // request at the first offset (the decompiled framework's handleSetAttributeValues).
            var merged: [Cassette.Exchange] = []
            for part in parts {
                if let last = merged.last, last.handle == part.handle,
                    Int(last.offset ?? 0) + last.value.count == Int(part.offset ?? 0)
                {
                    merged[merged.count - 1].value += part.value
                } else {
                    merged.append(part)
                }
            }
            let writes = merged.compactMap { part in
                part.handle.flatMap { publishedCharacteristic($0, step, "writes") }.map { (part, $0) }
            }
            guard !writes.isEmpty else { return }
            // A part the capture's server refused ends the group with that error.
            let refused = parts.first { $0.answer?.error != nil }
            deliverWrites(writes, answer: refused ?? exchange, step)
        default:
            break
        }
    }

    /// The app's characteristic at `handle`, or nil (with a divergence noted once) when the app
    /// has not published what the central used. The system's own services (Generic Access,
    /// Generic Attribute) and descriptors are answered by the system and never reach the app.
    private func publishedCharacteristic(_ handle: UInt16, _ step: Step, _ verb: String) -> Published? {
        if let published = self.published[handle] { return published }
        // This host was the central: the system answers what the app did not publish.
        if systemUnlessPublished.contains(step.link) { return nil }
        let central = step.central
        guard let service = database.first(where: { handleRange($0.handle, $0.endHandle).contains(handle) }) else {
            noteOnce(
                "unknown@\(handle)",
                "divergence: \(central) \(verb) handle \(hex(handle, digits: 4, uppercase: true)), which the capture's server database does not show; not delivered"
            )
            return nil
        }
        if service.uuid.isStackService { return nil }
        if let characteristic = service.characteristics.first(where: { $0.valueHandle == handle }) {
            let uuid = CBUUID(bluetoothUUID: characteristic.uuid).uuidString
            noteOnce(
                "unpublished@\(handle)",
                "divergence: \(central) \(verb) \(uuid) (\(hex(handle, digits: 4, uppercase: true))), which the app has not published; not delivered"
            )
        }
        return nil
    }

    /// A write of a Client Characteristic Configuration: CoreBluetooth answers it itself and
    /// tells the app of the change of subscription.
    private func configure(_ valueHandle: UInt16, _ exchange: Cassette.Exchange, _ step: Step) {
        let address = step.central
        guard let published = publishedCharacteristic(valueHandle, step, "subscribes to"),
            let central = centrals[address]
        else { return }
        let characteristic = published.characteristic
        if let error = exchange.answer?.error {
            replay.comment(
                "\(address): the capture's server refused the configuration of \(name(of: characteristic)) with \(CBATTError(errorCode: Int(error.rawValue))); nothing reaches the app"
            )
            return
        }
        guard !characteristic.properties.isDisjoint(with: [.notify, .indicate]) else {
            noteOnce(
                "notnotifying@\(valueHandle)",
                "divergence: \(address) subscribes to \(name(of: characteristic)), which the app publishes without notify or indicate; not delivered"
            )
            return
        }
        let bits = exchange.value.enumerated().reduce(UInt16(0)) { $0 | UInt16($1.element) << (8 * min($1.offset, 1)) }
        var subscribed = subscriptions[address] ?? []
        let arguments: [FlowRecord.Argument] = [
            .init(.central, text(address)), .init(.characteristic, name(of: characteristic)),
        ]
        if bits & 0x0003 != 0, !subscribed.contains(valueHandle) {
            subscribed.append(valueHandle)
            subscriptions[address] = subscribed
            replay.record(.peripheralManager(.didSubscribeTo, manager: replay.number(published.manager)), arguments)
            published.manager.deliver(.subscribed(central, to: characteristic))
        } else if bits & 0x0003 == 0, let index = subscribed.firstIndex(of: valueHandle) {
            subscribed.remove(at: index)
            subscriptions[address] = subscribed
            replay.record(.peripheralManager(.didUnsubscribeFrom, manager: replay.number(published.manager)), arguments)
            published.manager.deliver(.unsubscribed(central, from: characteristic))
        }
    }

    private func deliverRead(_ exchange: Cassette.Exchange, _ published: Published, _ step: Step) {
        let address = step.central
        guard let central = centrals[address] else { return }
        let characteristic = published.characteristic
        let offset = Int(exchange.offset ?? 0)
        let mtu = self.mtu[address] ?? 23
        let captured = exchange.answer.map { answer in
            answer.error.map(describe) ?? FlowRecord.Value.text(of: answer.value)
        }
        if let cached = characteristic.value {
            // A cached value is answered by the system, never by the app.
            let answer =
                offset > cached.count
                ? describe(CBATTError.Code.invalidOffset)
                : FlowRecord.Value.text(of: Array(cached.dropFirst(offset).prefix(mtu - 1)))
            compare(central: address, name(of: characteristic), captured: captured, app: answer, what: "cached value")
            return
        }
        let request = CBATTRequest(central: central, characteristic: characteristic, offset: offset, value: nil)
        awaitAnswer(
            request,
            .init(
                kind: .read, request: request, central: address, link: step.link,
                characteristic: name(of: characteristic), captured: captured, mtu: mtu))
        replay.record(
            .peripheralManager(.didReceiveRead, manager: replay.number(published.manager)),
            [
                .init(.central, text(address)), .init(.characteristic, name(of: characteristic)),
                .init(.offset, "\(offset)"),
            ])
        published.manager.deliver(.readRequest(request))
    }

    /// One Write Request or Command, or the writes of one Execute Write, as one array.
    private func deliverWrites(
        _ writes: [(exchange: Cassette.Exchange, published: Published)], answer: Cassette.Exchange,
        _ step: Step
    ) {
        let address = step.central
        guard let central = centrals[address], let manager = writes.first?.published.manager else { return }
        let command = answer.opcode == .writeCommand || answer.opcode == .signedWriteCommand
        if let cached = writes.first(where: { $0.published.characteristic.value != nil }) {
            // A characteristic with a cached value is read-only: the system refuses the write.
            let captured = answer.answer.map { $0.error.map(describe) ?? "success" }
            if !command {
                compare(
                    central: address, name(of: cached.published.characteristic), captured: captured,
                    app: describe(CBATTError.Code.writeNotPermitted), what: "read-only cached value")
            }
            return
        }
        let requests = writes.map {
            CBATTRequest(
                central: central, characteristic: $0.published.characteristic, offset: Int($0.exchange.offset ?? 0),
                value: Data($0.exchange.value))
        }
        let names = writes.map { name(of: $0.published.characteristic) }
        if !command {
            awaitAnswer(
                requests[0],
                .init(
                    kind: .write, request: requests[0], central: address, link: step.link, characteristic: names[0],
                    captured: answer.answer.map { $0.error.map(describe) ?? "success" }, mtu: self.mtu[address] ?? 23))
        } else {
            // Kept only until the central's next write command: an app that answers one does so
            // in its callback.
            commands[address] = requests[0]
        }
        replay.record(
            .peripheralManager(.didReceiveWrite, manager: replay.number(manager)),
            [
                .init(.central, text(address)), .init(.characteristic, list(names)),
                .init(.value, writes.map { FlowRecord.Value.text(of: $0.exchange.value) }.joined(separator: ",")),
                .init(.offset, requests.map { "\($0.offset)" }.joined(separator: ",")),
                .init(.type, command ? "withoutResponse" : "withResponse"),
            ])
        manager.deliver(.writeRequests(requests))
    }

    /// Waits for the app's answer to `request`; ATT's transaction timeout (30 s, Core 6.0, Vol 3,
    /// Part F, §3.3.3) is when the capture's central would have given up on it. Deadlines come in
    /// time order, so one check is scheduled at a time, for the earliest.
    private func awaitAnswer(_ request: CBATTRequest, _ pending: Pending) {
        self.pending[ObjectIdentifier(request)] = pending
        deadlines.append((replay.now.adding(microseconds: 30_000_000), request))
        if deadlines.count - nextDeadline == 1 { scheduleDeadlineCheck() }
    }

    private func scheduleDeadlineCheck() {
        guard nextDeadline < deadlines.count else {
            deadlines = []
            nextDeadline = 0
            return
        }
        replay.schedule(at: deadlines[nextDeadline].time) { [unowned self] in
            while nextDeadline < deadlines.count, deadlines[nextDeadline].time <= replay.now {
                // The request is kept alive until now, so its identifier cannot be reused meanwhile.
                let request = deadlines[nextDeadline].request
                nextDeadline += 1
                let key = ObjectIdentifier(request)
                guard self.pending[key]?.request === request, let pending = self.pending.removeValue(forKey: key) else {
                    continue
                }
                replay.comment(
                    "divergence: the app never answered \(pending.central)'s \(pending.kind == .read ? "read" : "write") of \(pending.characteristic) within ATT's 30-second timeout"
                )
                replay.record(
                    .system(.noResponse),
                    [
                        .init(.central, text(pending.central)), .init(.characteristic, pending.characteristic),
                        .init(.request, pending.kind == .read ? "read" : "write"),
                    ])
                diverged()
            }
            if nextDeadline > 1024, nextDeadline * 2 > deadlines.count {
                deadlines.removeFirst(nextDeadline)
                nextDeadline = 0
            }
            if !replay.failed { scheduleDeadlineCheck() }
        }
    }

    /// Notes a difference between the capture's server's answer and this app's.
    private func compare(
        central: BluetoothAddress, _ characteristic: String, captured: String?, app: String, what: String
    ) {
        guard let captured else {
            replay.comment(
                "\(central): the capture's server never answered this request on \(characteristic); the app's answer (\(app)) is not compared"
            )
            return
        }
        guard captured != app else { return }
        replay.comment(
            "divergence: \(central) \(characteristic): the capture's server answered \(captured), the app's \(what) answers \(app)"
        )
        replay.record(
            .system(.answerDiffers),
            [
                .init(.central, "\(central)"), .init(.characteristic, characteristic), .init(.captured, captured),
                .init(.app, app),
            ])
        diverged()
    }

    private func describe(_ error: ATTErrorCode) -> String { "\(CBATTError(errorCode: Int(error.rawValue)))" }
    private func describe(_ code: CBATTError.Code) -> String { "\(CBATTError(code))" }

    private func noteOnce(_ key: String, _ comment: String) {
        if noted.insert(key).inserted { replay.comment(comment) }
        diverged()
    }

    /// A central's request went otherwise than in the capture: under ``UnmatchedPolicy/fail``
    /// the replay stops there.
    private func diverged() {
        if replay.unmatched == .fail { replay.stop() }
    }

    /// A characteristic as the flow names it: its UUID, and `UUID@0x0012` (its value handle)
    /// when the app publishes the UUID more than once.
    private func name(of characteristic: CBCharacteristic) -> String {
        if let name = names[ObjectIdentifier(characteristic)] { return name }
        let uuid = characteristic.uuid.uuidString
        let same = self.published.values.filter { $0.characteristic.uuid == characteristic.uuid }.count
        let name = same > 1 ? "\(uuid)@\(hex(characteristic.valueHandle, digits: 4, uppercase: true))" : uuid
        if self.published[characteristic.valueHandle]?.characteristic === characteristic {
            names[ObjectIdentifier(characteristic)] = name
        }
        return name
    }

    /// A central's address as the flow writes it.
    private func text(_ address: BluetoothAddress) -> String {
        if let text = addresses[address] { return text }
        let text = "\(address)"
        addresses[address] = text
        return text
    }

    // MARK: Publishing

    /// Gives the app's service the handles of the capture's service of the same UUID (and its
    /// characteristics those of the same UUID), and notes what differs.
    private func publish(_ service: CBMutableService, _ manager: CBPeripheralManager) {
        names = [:]
        let uuid = service.uuid.bluetoothUUID
        let characteristics = (service.characteristics ?? []).compactMap { $0 as? CBMutableCharacteristic }
        guard let captured = database.first(where: { $0.uuid == uuid && !takenServices.contains($0.handle) }) else {
            let start = nextHandle
            var handle = start
            for characteristic in characteristics {
                characteristic.assignHandles(declaration: handle &+ 1, value: handle &+ 2)
                self.published[handle &+ 2] = .init(manager: manager, service: service, characteristic: characteristic)
                handle &+= 2 &+ UInt16(characteristic.descriptors?.count ?? 0)
                if !characteristic.properties.isDisjoint(with: [.notify, .indicate]) { handle &+= 1 }
            }
            service.assignHandles(handleRange(start, handle))
            nextHandle = handle &+ 1
            if !database.isEmpty {
                replay.comment(
                    "divergence: the app publishes service \(service.uuid.uuidString), which the capture's server did not have"
                )
            }
            return
        }
        takenServices.insert(captured.handle)
        service.assignHandles(handleRange(captured.handle, captured.endHandle))
        var remaining = captured.characteristics
        for characteristic in characteristics {
            guard let index = remaining.firstIndex(where: { $0.uuid == characteristic.uuid.bluetoothUUID }) else {
                let handle = nextHandle
                characteristic.assignHandles(declaration: handle, value: handle &+ 1)
                self.published[handle &+ 1] = .init(manager: manager, service: service, characteristic: characteristic)
                nextHandle = handle &+ 3
                replay.comment(
                    "divergence: the app publishes characteristic \(characteristic.uuid.uuidString) in \(service.uuid.uuidString), which the capture's server did not have"
                )
                continue
            }
            let match = remaining.remove(at: index)
            characteristic.assignHandles(declaration: match.declarationHandle, value: match.valueHandle)
            self.published[match.valueHandle] = .init(
                manager: manager, service: service, characteristic: characteristic)
            let properties = UInt8(truncatingIfNeeded: characteristic.properties.rawValue)
            if properties != match.properties.rawValue {
                replay.comment(
                    "divergence: the app publishes \(characteristic.uuid.uuidString) with properties \(GATTDatabase.Properties(rawValue: properties).names.joined(separator: ",")), the capture's server had \(match.properties.names.joined(separator: ","))"
                )
            }
        }
        for missing in remaining where used.contains(missing.valueHandle) {
            replay.comment(
                "divergence: the app's \(service.uuid.uuidString) lacks \(CBUUID(bluetoothUUID: missing.uuid).uuidString) (\(hex(missing.valueHandle, digits: 4, uppercase: true))), which the capture's centrals used"
            )
        }
    }

    func unpublish(where shouldRemove: (Published) -> Bool) {
        names = [:]
        for (handle, published) in self.published where shouldRemove(published) {
            self.published[handle] = nil
            takenServices.remove(published.service.handles.lowerBound)
        }
    }

    // MARK: What the app's life changes

    /// `manager`'s services are unpublished and its advertising ends (its process ended and the
    /// system keeps nothing of it).
    func withdraw(_ manager: CBPeripheralManager) {
        unpublish { $0.manager === manager }
        if manager.isAdvertising { advertising = false }
    }

    /// What `kept` published is now `manager`'s: the manager of the relaunched app that restored it.
    func transfer(from kept: CBPeripheralManager, to manager: CBPeripheralManager) {
        for (handle, published) in self.published where published.manager === kept {
            self.published[handle]?.manager = manager
        }
    }

    /// The run is over: the app's services are let go of.
    func finish() {
        published = [:]
    }

    // MARK: The peripheral managers' calls

    // The engine's `BluetoothSystem` methods for peripheral managers forward to these.

    func add(_ service: CBMutableService, for manager: CBPeripheralManager) {
        replay.record(.app(.add), [.init(.service, service.uuid.uuidString)])
        publish(service, manager)
        replay.schedule(at: replay.now) { [unowned self] in
            replay.record(
                .peripheralManager(.didAdd, manager: replay.number(manager)),
                [.init(.service, service.uuid.uuidString), .noError])
            manager.deliver(.serviceAdded(service, error: nil))
        }
    }

    func remove(_ service: CBMutableService, for manager: CBPeripheralManager) {
        replay.record(.app(.remove), [.init(.service, service.uuid.uuidString)])
        unpublish { $0.service === service }
    }

    func removeAllServices(for manager: CBPeripheralManager) {
        replay.record(.app(.removeAllServices), [])
        unpublish { $0.manager === manager }
    }

    func startAdvertising(_ advertisementData: [String: Any]?, for manager: CBPeripheralManager) {
        let services = advertisementData?[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID]
        replay.record(
            .app(.startAdvertising), [.init(.services, services.map { list($0.map(\.uuidString)) } ?? "none")])
        advertising = true
        self.advertisementData = advertisementData ?? [:]
        replay.schedule(at: replay.now) { [unowned self] in
            replay.record(.peripheralManager(.didStartAdvertising, manager: replay.number(manager)), [.noError])
            manager.deliver(.advertisingStarted(error: nil))
        }
    }

    func stopAdvertising(for manager: CBPeripheralManager) {
        replay.record(.app(.stopAdvertising), [])
        advertising = false
    }

    func respond(to request: CBATTRequest, withResult result: CBATTError.Code, for manager: CBPeripheralManager) {
        guard let pending = self.pending.removeValue(forKey: ObjectIdentifier(request)) else {
            let address = request.central.address
            replay.record(
                .app(.respond),
                [
                    .init(.central, address.map { "\($0)" } ?? "?"),
                    .init(.characteristic, name(of: request.characteristic)),
                    .init(.result, "\(result)"),
                ])
            if let address, commands[address] === request {
                replay.comment(
                    "respond(to:withResult:) to a write without response (\(name(of: request.characteristic))): nothing is sent"
                )
            } else {
                replay.comment(
                    "respond(to:withResult:) after ATT's 30-second timeout: the central had given up; nothing is sent")
            }
            return
        }
        var arguments: [FlowRecord.Argument] = [
            .init(.central, text(pending.central)), .init(.characteristic, pending.characteristic),
            .init(.result, "\(result)"),
        ]
        let value = Array((request.value ?? Data()).prefix(pending.mtu - 1))
        if pending.kind == .read, result == .success { arguments.append(.bytes(.value, value)) }
        replay.record(.app(.respond), arguments)
        switch pending.kind {
        case _ where !up.contains(pending.link):
            replay.comment("\(pending.central) had disconnected: the answer on \(pending.characteristic) goes nowhere")
        case .read:
            compare(
                central: pending.central, pending.characteristic, captured: pending.captured,
                app: result == .success ? FlowRecord.Value.text(of: value) : describe(result), what: "respond")
        case .write:
            compare(
                central: pending.central, pending.characteristic, captured: pending.captured,
                app: result == .success ? "success" : describe(result), what: "respond")
        }
    }

    func updateValue(
        _ value: Data, for characteristic: CBMutableCharacteristic, onSubscribedCentrals centrals: [CBCentral]?,
        for manager: CBPeripheralManager
    ) -> Bool {
        let subscribed = characteristic.subscribedCentrals ?? []
        let targets =
            centrals.map { wanted in subscribed.filter { central in wanted.contains { $0 === central } } } ?? subscribed
        let sent = roomForUpdate(of: value.count, to: targets, for: manager)
        replay.record(
            .app(.updateValue),
            [
                .init(.characteristic, name(of: characteristic)), .bytes(.value, value),
                .init(.centrals, list(targets.map { $0.address.map { "\($0)" } ?? $0.identifier.uuidString })),
            ] + (sent ? [] : [.init(.result, "false")]))
        return sent
    }

    func setDesiredConnectionLatency(
        _ latency: CBPeripheralManagerConnectionLatency, for central: CBCentral, manager: CBPeripheralManager
    ) {
        replay.record(
            .app(.setDesiredConnectionLatency),
            [
                .init(.central, central.address.map { "\($0)" } ?? "?"), .init(.latency, "\(latency)"),
            ])
    }

    func publishL2CAPChannel(withEncryption encryptionRequired: Bool, for manager: CBPeripheralManager) {
        replay.record(.app(.publishL2CAPChannel), [.init(.encryption, "\(encryptionRequired)")])
        replay.comment("divergence: publishL2CAPChannel: L2CAP channels are not played back; it stays pending")
    }

    func unpublishL2CAPChannel(_ psm: CBL2CAPPSM, for manager: CBPeripheralManager) {
        replay.record(.app(.unpublishL2CAPChannel), [.init(.psm, "\(psm)")])
    }
}
