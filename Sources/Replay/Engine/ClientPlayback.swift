import ATT
import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Flow
import Foundation
import Lifecycle
import Wire

/// The GATT client's side of a replay: each request of the app is answered as the capture's peer
/// answered the same request on the same attribute (Formats/flow.md, "How the replay answers GATT
/// requests"), and each link the app holds plays the capture's MTU, Service Changed indications,
/// GAP name and notifications. A part of the engine (``ReplayEngine``) with its own state (the
/// per-peer index of answers and names) and logic: the engine's `BluetoothSystem` methods for
/// peripherals forward to it, and the links (`Links`) start its playback of each link that comes
/// up.
///
/// Its notifications are the replay's hot path (a long capture's millions of events), so what it
/// uses is reached with no call through a protocol and as few retains as can be: the engine is its
/// `Context`, a generic parameter the engine fills with itself (each call is then a direct one),
/// held `unowned(unsafe)` (the engine owns its parts and outlives every event its queue runs); the
/// links and the process are constants of this object (neither holds it strongly), which a method
/// reads with no retain, where an `unowned` reference is retained at each use.
final class ClientPlayback<Context: ClientContext> {
    let cassette: Cassette
    /// The engine running the replay: what this part uses of it (`ClientContext`). Set once, as
    /// the engine finishes its own initialization.
    unowned(unsafe) var replay: Context!
    /// The links the app holds: what each plays, and how far the app's requests used its answers.
    let links: Links
    /// The app's process: whom a notification reaches, and whether it wakes it.
    let process: AppProcess
    /// Per peer, its answers and names indexed on first use.
    @exclusivity(unchecked) private var peerIndexes: [BluetoothAddress: PeerIndex] = [:]
    /// The peer looked up last: most requests and notifications follow one to the same peer.
    @exclusivity(unchecked) private var lastPeer: (address: BluetoothAddress, index: PeerIndex)?
    /// A notification fault that happened: the next notification delivered is lost or comes
    /// twice (``Fault/NotificationFault``).
    @exclusivity(unchecked) var armedNotification: Fault.NotificationFault?

    init(cassette: Cassette, links: Links, process: AppProcess) {
        self.cassette = cassette
        self.links = links
        self.process = process
    }

    private var now: Timestamp { replay.now }

    /// The capture's link `link` is now the app's, on `peripheral`: its MTU, Service Changed
    /// indications, GAP name and notifications play from now on.
    func play(_ link: Cassette.Link, _ peripheral: CBPeripheral) {
        guard let address = peripheral.address else { return }
        if link.phoneDatabase != nil, let from = link.phoneDatabaseConnection {
            replay.comment(
                "\(address): the bonded peer's database changed after connection \(from + 1) of the capture, with no Service Changed; iOS keeps the one it discovered then, so the app's discovery on connection \(link.connection + 1) gives it, and requests on its handles reach the peer's new database (Formats/corebluetooth.md, GATT cache)"
            )
        }
        // Apple's stack exchanged this MTU itself; another host's exchange is not what iOS made
        // (its own, at connection: Links.mtuAtConnection).
        if let mtu = link.mtu, cassette.hostIsApple {
            replay.scheduleSystem(at: max(now, link.mtuTime ?? now), for: peripheral) { peripheral in
                peripheral.deliver(.mtuChanged(Int(mtu)))
            }
        }
        // A damaged capture may give a range backwards: it is read as the handles between.
        for change in link.serviceChanges where change.time >= now {
            let range = handleRange(change.start, change.end)
            replay.scheduleSystem(at: change.time, for: peripheral) { [unowned self] peripheral in
                serviceChanged(range, on: peripheral, address)
            }
        }
        scheduleNotification(
            link.notifications.firstIndex { $0.time >= now && $0.sender != .host }, of: link.notifications, peripheral)
        scheduleGAPName(link, peripheral)
    }

    /// The peer indicated Service Changed over `range`: the system applies it; only a running
    /// app hears of it (it does not wake one), with the services it invalidates.
    func serviceChanged(_ range: ClosedRange<UInt16>, on peripheral: CBPeripheral, _ address: BluetoothAddress) {
        guard process.isRunning else { return _ = peripheral.deliver(.servicesChanged(handles: range)) }
        process.reach(peripheral, waking: nil) { [unowned self] _ in
            let invalidated = (peripheral.services ?? []).filter { $0.handles.overlaps(range) }
            replay.record(
                .peripheral(.didModifyServices),
                [
                    .init(.peripheral, "\(address)"),
                    .init(.invalidatedServices, list(invalidated.map(\.uuid.uuidString))),
                ])
            peripheral.deliver(.servicesChanged(handles: range))
        }
    }

    /// iOS reads the peer's GAP Device Name itself once connected, and `peripheral.name` is it
    /// from then on, across disconnections (Apple's `CBPeripheral.name`; the decompiled framework
    /// updates the name whenever the daemon's differs): the capture's first read of Device Name
    /// (2A00) on the link sets it at its answer, with `peripheralDidUpdateName` when it changes
    /// the name, and the system keeps it for the peer's later peripheral objects.
    private func scheduleGAPName(_ link: Cassette.Link, _ peripheral: CBPeripheral) {
        let database = link.database ?? peripheral.address.flatMap { cassette.peerTable[$0]?.database }
        guard let address = peripheral.address,
            let gap = database?.services.first(where: { $0.uuid == .genericAccess }),
            let deviceName = gap.characteristics.first(where: { $0.uuid.shortValue == 0x2A00 }),
            let read = link.operations(.read, handle: deviceName.valueHandle, from: .host).first(where: {
                $0.error == nil && $0.answered
            }),
            let answered = read.answerTime, answered >= now
        else { return }
        let name = String(decoding: read.value, as: UTF8.self)
        replay.scheduleSystem(at: answered, for: peripheral) { [unowned self] peripheral in
            guard peripheral.state == .connected else { return }
            links.deviceNames[address] = name
            guard peripheral.name != name, process.isRunning, peripheral.delegate != nil else {
                return _ = peripheral.deliver(.nameUpdated(name))
            }
            replay.record(
                .peripheral(.didUpdateName), [.init(.peripheral, "\(address)"), .init(.name, flowText(name))])
            peripheral.deliver(.nameUpdated(name))
        }
    }

    /// Plays the link's notifications one after the other (one scheduled at a time, by one
    /// closure that the queue runs again for each: a long capture's hot path). When nothing else
    /// is due before the next one, the closure plays it at once (``ReplayEngine/continues(at:for:)``), as the queue
    /// would have run it next.
    private func scheduleNotification(
        _ first: Int?, of notifications: [Cassette.ValueEvent], _ peripheral: CBPeripheral
    ) {
        guard let first, first < notifications.count, let address = peripheral.address else { return }
        let peer = peerIndex(address)
        let cursor = NotificationCursor(index: first)
        links.playing[address]?.notifications = cursor
        // unowned(unsafe): only the engine's own queue runs this closure, so the engine and its
        // parts are alive; the checked form would cost a retain and a release a notification.
        replay.scheduleSystem(at: max(now, notifications[first].time), for: peripheral) {
            [unowned(unsafe) self] peripheral in
            notifications.withUnsafeBufferPointer { notifications in
                playNotifications(notifications, cursor, peripheral, address, peer, replay, links, process)
            }
        }
    }

    /// The notifications from the cursor's on, while each plays at once. Everything it uses is a
    /// parameter or a local, which the loop borrows: read from properties instead, each object
    /// would be retained and released again for every notification.
    private func playNotifications(
        _ notifications: UnsafeBufferPointer<Cassette.ValueEvent>, _ cursor: NotificationCursor,
        _ peripheral: CBPeripheral,
        _ address: BluetoothAddress, _ peer: PeerIndex, _ replay: Context, _ links: Links, _ process: AppProcess
    ) {
        var index = cursor.index
        var playback = cursor.playback
        let writer = replay.writer
        while true {
            let event = notifications.baseAddress! + index
            let handle = event.pointee.handle
            if cursor.playingVersion != links.playingVersion {
                playback = links.playing[address]
                cursor.follow(playback, links.playingVersion)
            }
            if cursor.isSubscribed(handle, on: playback) {
                if process.isRunning {
                    // What process.reach(_:waking:_:) does for a running app, without a closure.
                    if let central = cursor.central(of: peripheral, in: process) {
                        deliverNotification(event, to: peripheral, via: central, peer, playback, cursor, replay, writer)
                    }
                } else {
                    let value = event.pointee
                    process.reach(peripheral, waking: "didUpdateValueFor") { [unowned self] central in
                        withUnsafePointer(to: value) { event in
                            deliverNotification(
                                event, to: peripheral, via: central, peer, links.playing[address], cursor, self.replay,
                                self.replay.writer)
                        }
                    }
                }
            } else {
                playback?.undelivered += 1
            }
            var next = index + 1
            while next < notifications.count, notifications[next].sender == .host { next += 1 }
            guard next < notifications.count else { return cursor.index = next }
            let time = max(replay.now, notifications[next].time)
            index = next
            cursor.index = next
            guard replay.continues(at: time, for: peripheral) else { return }
        }
    }

    private func deliverNotification(
        _ event: UnsafePointer<Cassette.ValueEvent>, to peripheral: CBPeripheral, via central: CBCentralManager,
        _ peer: PeerIndex,
        _ playback: LinkPlayback?, _ cursor: NotificationCursor, _ replay: Context, _ writer: FlowWriter?
    ) {
        let handle = event.pointee.handle
        if let fault = armedNotification, peripheral.characteristic(valueHandle: handle)?.isNotifying == true {
            armedNotification = nil
            if fault == .drop {
                return replay.comment(
                    "fault: the notification of \(peer.names[handle] ?? hex(handle, digits: 4, uppercase: true)) at \(Wording.sinceStart(seconds: replay.now.seconds(since: cassette.origin))) is lost"
                )
            }
            deliverNotification(event, to: peripheral, via: central, peer, playback, cursor, replay, writer)
        }
        guard peripheral.deliverValue(event.pointee.value, valueHandle: handle, via: central) else {
            playback?.undelivered += 1
            return
        }
        // The name of the characteristic notified last is kept: most notifications come from the
        // one before's.
        if cursor.namedHandle != handle {
            cursor.namedHandle = handle
            cursor.name = peer.names[handle] ?? "\(hex(handle, digits: 4, uppercase: true))"
        }
        if let writer {
            // The line written as it is, with no event made.
            let time = replay.now.seconds(since: cassette.origin)
            event.pointee.value.withUnsafeBytes { value in
                writer.valueUpdate(time: time, peripheral: peer.addressText, characteristic: cursor.name, value: value)
            }
        } else {
            replay.record(
                .peripheral(.didUpdateValueFor),
                [
                    .init(.peripheral, peer.addressText), .init(.characteristic, cursor.name),
                    .bytes(.value, event.pointee.value), .noError,
                ])
        }
    }

    /// When the capture's host wrote another value to the CCCD than iOS would for `request`
    /// (``GATTRequest/cccdValue``): an Android host asking for indications on a characteristic
    /// that can also notify, where iOS asks for notifications. The capture's answers play as they
    /// came (the peer indicated); a comment says what a phone would have asked.
    private func noteOtherCCCDValue(_ request: GATTRequest, _ handle: UInt16, _ address: BluetoothAddress) {
        guard let wanted = request.cccdValue, wanted != Data([0x00, 0x00]) else { return }
        let written = cassette.links(of: address).lazy.flatMap { $0.operations(.write, handle: handle, from: .host) }
            .first { $0.value.count == 2 && $0.value != [0x00, 0x00] }
        guard let written, Data(written.value) != wanted else { return }
        func configuration(_ value: some Collection<UInt8>) -> String {
            hex(UInt16(value.first ?? 0) | UInt16(value.dropFirst().first ?? 0) << 8, digits: 4)
        }
        replay.comment(
            "\(address): setNotifyValue(true): iOS writes \(configuration(wanted)) to the CCCD at \(hex(handle, digits: 4)) (notifications whenever the characteristic can notify); the capture's host wrote \(configuration(written.value)); its peer's answers are played as they came"
        )
    }

    /// The services iOS keeps from apps' discovery: Generic Access (1800) and Generic Attribute
    /// (1801), the stack's own, and Human Interface Device (1812), which iOS takes for itself
    /// (reported: PureSwift/Bluetooth 170; Formats/corebluetooth.md, "Hidden services").
    static func hiddenByIOS(_ service: BluetoothUUID) -> Bool {
        service.isStackService || service == .humanInterfaceDevice
    }

    // MARK: BluetoothSystem: GATT client

    func perform(_ request: GATTRequest, on peripheral: CBPeripheral) {
        guard let address = peripheral.address else { return }
        let call = request.call
        replay.record(
            .app(FlowRecord.App(call.method)),
            flowArguments(peripheral: peerIndex(address).addressText, call.arguments, address))
        if replay.injector != nil {
            for fault in replay.faultsHitting(request, on: peripheral)
            where inject(fault, into: request, on: peripheral, address) { return }
        }
        switch request {
        case .discoverServices(let uuids):
            // iOS keeps Generic Access, Generic Attribute and HID to itself: discovery never
            // gives them to an app (Formats/corebluetooth.md).
            let wanted = uuids?.map(\.bluetoothUUID)
            let found = services(of: address).filter {
                !Self.hiddenByIOS($0.uuid) && wanted?.contains($0.uuid) != false
            }
            guard cassette.peer(address)?.database?.services.isEmpty == false else {
                return unmatched(request, peripheral, "the capture never discovered this peripheral's services")
            }
            let definitions = found.map(ServiceDefinition.init(capturing:))
            answerDiscovery(.services(definitions, error: nil), to: request, on: peripheral, address)
        case .discoverIncludedServices(_, let service):
            let included = (cassette.links(of: address).flatMap(\.includedServices))
                .filter { service.handles.contains($0.handle) }
            let definitions = included.compactMap { include in
                services(of: address).first { $0.handle == include.start }.map(
                    ServiceDefinition.init(capturing:))
            }
            answerDiscovery(.services(definitions, error: nil), to: request, on: peripheral, address)
        case .discoverCharacteristics(let uuids, let service):
            let all = services(of: address).first { $0.handle == service.handles.lowerBound }?.characteristics ?? []
            guard !all.isEmpty else {
                return unmatched(
                    request, peripheral,
                    "the capture never discovered the characteristics of \(service.uuid.uuidString)")
            }
            let wanted =
                uuids.map { wanted in
                    all.filter { characteristic in wanted.contains { $0.bluetoothUUID == characteristic.uuid } }
                } ?? all
            let definitions = wanted.map {
                CharacteristicDefinition(
                    uuid: CBUUID(bluetoothUUID: $0.uuid),
                    properties: CBCharacteristicProperties(rawValue: UInt($0.properties.rawValue)),
                    declarationHandle: $0.declarationHandle, valueHandle: $0.valueHandle)
            }
            answerDiscovery(.characteristics(definitions, error: nil), to: request, on: peripheral, address)
        case .discoverDescriptors(let characteristic):
            let definitions = descriptors(of: address, characteristic: characteristic.valueHandle)
                .map { DescriptorDefinition(uuid: CBUUID(bluetoothUUID: $0.uuid), handle: $0.handle) }
            answerDiscovery(.descriptors(definitions, error: nil), to: request, on: peripheral, address)
        case .readCharacteristic(let characteristic):
            play(.read, handle: characteristic.valueHandle, request, peripheral) { .value(Data($0.value), error: $1) }
        case .readDescriptor(let descriptor):
            play(.read, handle: descriptor.handle, request, peripheral) { .value(Data($0.value), error: $1) }
        case .writeCharacteristic(let value, let characteristic):
            let kind: Cassette.Operation.Kind = value.count > peripheral.mtu - 3 ? .longWrite : .write
            play(kind, handle: characteristic.valueHandle, request, peripheral) { .written(error: $1) }
        case .writeDescriptor(_, let descriptor):
            play(.write, handle: descriptor.handle, request, peripheral) { .written(error: $1) }
        case .setNotifyValue(let enabled, let characteristic) where characteristic.isNotifying == enabled:
            // Already in that state: iOS answers at once, with no error and nothing on the air.
            answer(.notificationState(isNotifying: enabled, error: nil), to: request, on: peripheral, after: 0)
        case .setNotifyValue(let enabled, let characteristic):
            guard
                let cccd = descriptors(of: address, characteristic: characteristic.valueHandle)
                    .first(where: { $0.uuid == .clientCharacteristicConfiguration })
            else {
                return unmatched(
                    request, peripheral,
                    "the capture shows no Client Characteristic Configuration for \(characteristic.uuid.uuidString)")
            }
            noteOtherCCCDValue(request, cccd.handle, address)
            play(.write, handle: cccd.handle, request, peripheral) { [unowned self] _, error in
                if error == nil {
                    if enabled {
                        links.playing[address]?.subscribed.insert(characteristic.valueHandle)
                    } else {
                        links.playing[address]?.subscribed.remove(characteristic.valueHandle)
                    }
                }
                return .notificationState(
                    isNotifying: error == nil ? enabled : characteristic.isNotifying, error: error)
            }
        }
    }

    func writeWithoutResponse(_ value: Data, for characteristic: CBCharacteristic, on peripheral: CBPeripheral) -> Bool
    {
        guard let address = peripheral.address else { return true }
        replay.record(
            .app(.writeValue),
            [
                .init(.peripheral, peerIndex(address).addressText),
                .init(.characteristic, characteristicName(characteristic.valueHandle, address)),
                .bytes(.value, value), .init(.type, "withoutResponse"),
            ])
        return roomAfterWrite(of: value.count, on: peripheral, address)
    }

    func readRSSI(of peripheral: CBPeripheral) {
        replay.record(.app(.readRSSI), [.init(.peripheral, peripheral.address.map { "\($0)" } ?? "?")])
        unmatched(nil, peripheral, "captures hold no RSSI readings of a connection")
    }

    func openL2CAPChannel(_ psm: CBL2CAPPSM, on peripheral: CBPeripheral) {
        replay.record(
            .app(.openL2CAPChannel),
            [.init(.peripheral, peripheral.address.map { "\($0)" } ?? "?"), .init(.psm, "\(psm)")])
        unmatched(nil, peripheral, "L2CAP channels are not played back")
    }

    // MARK: Faults

    /// Answers `request` as `fault` makes the peer or the pairing answer it (``Fault``), as the
    /// replay's iOS model reports it: true when that is the request's answer, false when the
    /// request is answered as the capture's peer answered it all the same.
    private func inject(
        _ fault: Fault, into request: GATTRequest, on peripheral: CBPeripheral, _ address: BluetoothAddress
    ) -> Bool {
        let said =
            "fault \(fault) at \(Wording.sinceStart(seconds: now.seconds(since: cassette.origin))): \(address) \(request.methodName)"
        let latency = ReplayEngine.faultLatencySeconds
        switch fault.kind {
        case .attError(let code):
            let code = ATTErrorCode(rawValue: code)
            if SecurityRefusal.asksForSecurity(code) {
                replay.comment(
                    "\(said): the peer refuses (ATT \(Fault.hexByte(code.rawValue))); iOS pairs and sends it again, the peer refuses again: the app gets the error"
                )
            } else {
                replay.comment("\(said): the peer refuses (ATT \(Fault.hexByte(code.rawValue)))")
            }
            answer(
                GATTResponse(failing: request, with: CoreBluetoothMapping.attError(code).value), to: request,
                on: peripheral, after: latency)
        case .timeout:
            // The app's later requests wait behind it in the peripheral's queue (ATT allows one
            // outstanding request, and CBPeripheral sends one at a time).
            replay.comment(
                "\(said): the peer never answers; the link's later requests wait behind it, and ATT's 30-second timeout ends the link"
            )
            scheduleTransactionTimeout(peripheral, byFault: true)
        case .pairing(.failed):
            replay.comment(
                "\(said): the peer asks for security (ATT 0x05); iOS pairs, and pairing fails: the app gets the error")
            let error = CoreBluetoothMapping.pairingFailureError(reason: 0x05, refusal: 0x05).value
            answer(GATTResponse(failing: request, with: error), to: request, on: peripheral, after: latency)
        case .pairing(.timeout):
            replay.comment(
                "\(said): the peer asks for security (ATT 0x05); iOS pairs, and the pairing never finishes: SMP's 30-second timeout gives the request its error"
            )
            answer(
                GATTResponse(failing: request, with: CoreBluetoothMapping.pairingTimeoutError.value), to: request,
                on: peripheral, after: 30 + latency)
        case .pairing(.cancelled) where process.platform.pairingCancel == .failsRequest:
            replay.comment(
                "\(said): the peer asks for security (ATT 0x05); iOS pairs, and the user cancels the pairing: the request gets the error (--pairing-cancel fails-request)"
            )
            answer(
                GATTResponse(failing: request, with: CoreBluetoothMapping.pairingCancelledError.value), to: request,
                on: peripheral, after: latency)
        case .pairing(.cancelled):
            replay.comment(
                "\(said): the peer asks for security (ATT 0x05); iOS pairs, and the user cancels the pairing: iOS ends the link (the request gets no callback)"
            )
            replay.scheduleSystem(at: now.adding(microseconds: ReplayEngine.microseconds(latency)), for: peripheral) {
                [unowned self] peripheral in
                links.endByFault(peripheral) {
                    links.disconnect(peripheral, error: CoreBluetoothMapping.pairingCancelledError.value)
                }
            }
        case .notification(.early):
            guard case .setNotifyValue(true, let characteristic) = request, let central = peripheral.centralManager
            else { return false }
            let handle = characteristic.valueHandle
            let captured = links.playing[address]?.link?.notifications.first {
                $0.handle == handle && $0.sender != .host
            }
            let value = captured.map { Array($0.value) } ?? []
            replay.comment(
                "\(said): the peer notifies \(characteristicName(handle, address)) before the subscription's answer; iOS, which registered it when asked, delivers it (hypothesis)"
            )
            if peripheral.deliverValueBeforeSubscription(value, valueHandle: handle, via: central) {
                replay.record(
                    .peripheral(.didUpdateValueFor),
                    [
                        .init(.peripheral, peerIndex(address).addressText),
                        .init(.characteristic, characteristicName(handle, address)), .bytes(.value, value), .noError,
                    ])
            }
            return false
        default:
            return false
        }
        return true
    }

    // MARK: Answers

    /// Answers `request` with the capture's answer to the same request on `handle` on the same
    /// connection: the n-th request of the app's connection gets the n-th answer of the
    /// capture's connection it plays, then the last (``capturedAnswer(_:handle:on:occurrence:)``
    /// says how a connection that never made the request is answered). An answer the peer never
    /// gave leaves the request pending; only when the capture shows it unanswered for ATT's 30
    /// seconds does the link end then.
    private func play(
        _ kind: Cassette.Operation.Kind, handle: UInt16, _ request: GATTRequest, _ peripheral: CBPeripheral,
        _ response: @escaping (Cassette.Operation, (any Error)?) -> GATTResponse
    ) {
        guard let address = peripheral.address else { return }
        if staleHandle(kind, handle, request, peripheral, address) { return }
        let key = PeerIndex.key(kind, handle)
        let occurrence = links.playing[address]?.occurrences[key, default: 0] ?? 0
        links.playing[address]?.occurrences[key] = occurrence + 1
        guard
            case (var operation, let link)? = capturedAnswer(kind, handle: handle, on: address, occurrence: occurrence)
                ?? (kind == .write
                    ? capturedAnswer(.longWrite, handle: handle, on: address, occurrence: occurrence) : nil)
                // iOS's MTU may be smaller than the capture host's: its long write is that write.
                ?? (kind == .longWrite
                    ? capturedAnswer(.write, handle: handle, on: address, occurrence: occurrence) : nil)
        else {
            return unmatched(
                request, peripheral,
                "the capture never shows \(request.methodName) on handle \(hex(handle, digits: 4, uppercase: true))")
        }
        // A request made on a link the capture shows encrypted by now gets an answer from after
        // the encryption: a refusal for security given before it is not what iOS would meet.
        if let code = operation.error, SecurityRefusal.asksForSecurity(code),
            let encrypted = encryptionTime(connection: link), now >= encrypted, operation.time < encrypted
        {
            let key = PeerIndex.key(operation.kind, handle)
            guard let after = peerIndex(address).answers(link, key).first(where: { $0.time >= encrypted }) else {
                return unmatched(
                    request, peripheral,
                    "the link is encrypted by now, and the capture's only answer to \(request.methodName) on \(hex(handle, digits: 4, uppercase: true)) is its refusal for security from before the encryption"
                )
            }
            operation = after
        }
        if let playing = links.playing[address]?.link?.connection, link != playing {
            replay.comment(
                "\(address): connection \(playing + 1) of the capture never made \(request.methodName) on \(hex(handle, digits: 4, uppercase: true)); answered as connection \(link + 1) answered it"
            )
        }
        guard operation.answerTime != nil else {
            return unanswered(operation, link: link, request, handle, peripheral)
        }
        // The answer the app gets: the retry after pairing, when the peer asked for security.
        var final = operation
        switch afterPairing(operation, kind: kind, handle: handle, address: address, key: key, link: link) {
        case nil, .refused?:
            break
        case .retried(let retry)?:
            final = retry
        case .cancelled(let time)?:
            let error = CoreBluetoothMapping.pairingCancelledError.value
            guard process.platform.pairingCancel == .endsLink else {
                // The other account: the request's own callback gets the error, the link stays.
                let asker = replay.liveProcess
                return replay.scheduleSystem(at: max(now, time), for: peripheral) { [unowned self] peripheral in
                    guard asker == replay.liveProcess else { return }
                    deliver(GATTResponse(failing: request, with: error), for: request, to: peripheral)
                }
            }
            // iOS ends the link after a cancelled pairing: the request gets no callback.
            return replay.scheduleSystem(at: max(now, time), for: peripheral) { [unowned self] peripheral in
                links.disconnect(peripheral, error: error)
            }
        case .unfinished?:
            return
        case .timedOut(let time)?:
            let error = CoreBluetoothMapping.pairingTimeoutError.value
            let at = max(
                now,
                operation.time >= now ? time : now.adding(microseconds: time.microseconds - operation.time.microseconds)
            )
            let process = replay.liveProcess
            return replay.scheduleSystem(at: at, for: peripheral) { [unowned self] peripheral in
                guard process == replay.liveProcess else { return }
                deliver(GATTResponse(failing: request, with: error), for: request, to: peripheral)
            }
        }
        let error = final.error.map { CBATTError(errorCode: Int($0.rawValue)) }
        let latency = final.answerTime!.seconds(since: operation.time)
        let at =
            operation.time >= now ? final.answerTime! : now.adding(microseconds: ReplayEngine.microseconds(latency))
        // The peer answers whatever becomes of the app; the answer reaches the process that asked.
        let process = replay.liveProcess
        replay.scheduleSystem(at: at, for: peripheral) { [unowned self] peripheral in
            guard process == replay.liveProcess else {
                return completeInSystem(request, response(final, error), peripheral)
            }
            deliver(response(final, error), for: request, to: peripheral)
        }
    }

    /// When the capture's connection `connection` was first encrypted, if it was.
    private func encryptionTime(connection: Int) -> Timestamp? {
        cassette.link(connection: connection)?.security.first { event in
            if case .encryptionChanged(true, _) = event.kind { true } else { false }
        }?.time
    }

    /// The answer to a request of an app process that was terminated meanwhile: no callback
    /// reaches anyone, but the system keeps its effect. A subscription the peer accepted stays,
    /// so that its notifications relaunch the app and the restored characteristic is notifying.
    private func completeInSystem(_ request: GATTRequest, _ response: GATTResponse, _ peripheral: CBPeripheral) {
        guard case .setNotifyValue(_, let characteristic) = request,
            case .notificationState(let isNotifying, nil) = response
        else { return }
        peripheral.systemDidSetNotifying(isNotifying, for: characteristic)
    }

    /// What becomes of a request the peer refused for security, as the replay plays it
    /// (``afterPairing(_:kind:handle:address:key:link:)``).
    enum PairingOutcome {
        /// iOS paired and sent the request again: the app gets this answer.
        case retried(Cassette.Operation)
        /// The app gets the refusal.
        case refused
        /// This host cancelled the pairing at this time: iOS ends the link.
        case cancelled(Timestamp)
        /// SMP's timer ran out at this time: the app gets Insufficient Encryption.
        case timedOut(Timestamp)
        /// The pairing was still going when the link or the capture ended: the request waits.
        case unfinished
    }

    /// iOS answers Insufficient Authentication, Insufficient Encryption and Insufficient
    /// Encryption Key Size by pairing (or encrypting with the bond it has) and sending the request
    /// again; the app sees only the result (Formats/corebluetooth.md, evidence: reported). What
    /// the capture shows after the refusal, on its connection, decides it as it does for `bletrace
    /// errors` (`SecurityRefusal`): pairing messages, Pairing Failed, encryption, the same
    /// request answered again, the link's end, the capture's. Nil for any other answer. The flow
    /// says which.
    private func afterPairing(
        _ operation: Cassette.Operation, kind: Cassette.Operation.Kind, handle: UInt16, address: BluetoothAddress,
        key: Int,
        link connection: Int
    ) -> PairingOutcome? {
        guard let code = operation.error, SecurityRefusal.asksForSecurity(code),
            let link = cassette.link(connection: connection),
            let refusal = link.exchanges[operation.exchanges.upperBound - 1].answer?.record
        else { return nil }
        let asked = "\(address): the peer asked for security (ATT \(hex(code.rawValue, digits: 2, uppercase: true)))"
        // What came after the refusal on its connection, in capture order.
        var steps: [(record: Int, step: SecurityRefusal.Step)] = []
        for event in link.security where event.record > refusal {
            switch event.kind {
            case .pairingRequested, .securityRequested, .pairingProgressed:
                steps.append((event.record, .pairingMessage(event.time)))
            case .pairingFailed:
                steps.append(
                    (event.record, .pairingFailed(event.time, record: event.record, byHost: event.sender == .host)))
            case .encryptionChanged(true, _): steps.append((event.record, .encrypted(event.time)))
            case .encryptionFailed: steps.append((event.record, .encryptionFailed(event.time)))
            case .encryptionChanged(false, _): break
            }
        }
        let retry = peerIndex(address).answers(connection, PeerIndex.key(kind, handle)).first {
            $0.time > operation.time
        }
        if let retry, let answer = link.exchanges[retry.exchanges.upperBound - 1].answer, answer.record > refusal {
            steps.append((answer.record, .answeredAgain(answer.time, record: answer.record)))
        }
        let episode = cassette.connections.indices.contains(connection) ? cassette.connections[connection] : nil
        if let disconnection = episode?.disconnection {
            steps.append((disconnection.record, .linkEnded(disconnection.time)))
        }
        steps.append((Int.max, .captureEnded(cassette.end)))
        var decision = SecurityRefusal()
        var outcome = SecurityRefusal.Outcome.refused(.noRetry)
        for (_, step) in steps.sorted(by: { $0.record < $1.record }) {
            if let decided = decision.observe(step) {
                outcome = decided
                break
            }
        }
        switch outcome {
        case .retried:
            guard let retry else { return .refused }
            replay.comment(
                "\(asked); as iOS does, the link is encrypted and the request sent again (the capture's retry at \(Wording.sinceStart(seconds: retry.time.seconds(since: cassette.origin))))"
            )
            self.links.playing[address]?.occurrences[key, default: 0] += 1
            return .retried(retry)
        case .refused(.pairingFailed):
            replay.comment("\(asked); iOS pairs, and pairing failed in the capture: the app gets the error")
        case .refused(.encryptionFailed):
            replay.comment(
                "\(asked); iOS pairs, and the link's encryption failed in the capture: the app gets the error")
        case .refused(.noRetry):
            replay.comment(
                "\(asked); iOS would pair and retry, the capture shows no retry: the app gets the error (as when pairing fails or is declined)"
            )
        case .cancelled(_, let time):
            replay.comment(
                "\(asked); iOS pairs, and this host cancelled the pairing at \(Wording.sinceStart(seconds: time.seconds(since: cassette.origin))): "
                    + (process.platform.pairingCancel == .endsLink
                        ? "iOS ends the link (the request gets no callback)"
                        : "the request gets the error, the link stays (--pairing-cancel fails-request)"))
            return .cancelled(time)
        case .timedOut(let deadline):
            replay.comment(
                "\(asked); iOS pairs, and the pairing never finished: SMP's 30-second timeout at \(Wording.sinceStart(seconds: deadline.seconds(since: cassette.origin))) gives the operation insufficientEncryption (reported)"
            )
            return .timedOut(deadline)
        case .unfinished:
            replay.comment(
                "\(asked); iOS pairs, and the capture's pairing was still going when it ended: the request waits for it"
            )
            return .unfinished
        }
        return .refused
    }

    /// Answers now, or after `latency` seconds.
    private func answer(
        _ response: GATTResponse, to request: GATTRequest, on peripheral: CBPeripheral, after latency: Double
    ) {
        replay.schedule(at: now.adding(microseconds: ReplayEngine.microseconds(latency)), for: peripheral) {
            [unowned self] peripheral in
            deliver(response, for: request, to: peripheral)
        }
    }

    func peripheral(_ peripheral: CBPeripheral, didFail request: GATTRequest, error: any Error) {
        recordCallback(GATTResponse(failing: request, with: error), for: request, on: peripheral)
    }

    /// Records the callback CoreBluetooth makes for `response`, then delivers it.
    private func deliver(_ response: GATTResponse, for request: GATTRequest, to peripheral: CBPeripheral) {
        recordCallback(response, for: request, on: peripheral)
        peripheral.deliver(.completed(response))
    }

    /// The flow event of the delegate callback `response` gives for `request`.
    private func recordCallback(_ response: GATTResponse, for request: GATTRequest, on peripheral: CBPeripheral) {
        let address = peripheral.address.map { peerIndex($0).addressText } ?? "?"
        if let writer = replay.writer,
            case (.readCharacteristic(let characteristic), .value(let value, nil)) = (request, response)
        {
            // The line of a value read is a notification's: written the same way, in one go.
            return writer.valueUpdate(
                time: now.seconds(since: cassette.origin), peripheral: address,
                characteristic: characteristicName(characteristic.valueHandle, peripheral.address),
                value: value ?? Data())
        }
        guard let callback = GATTCallback(request, response) else {
            // CBPeripheral traps on such an answer before this.
            preconditionFailure("the system answered \(request.methodName) with \(response)")
        }
        let call = callback.call(failed: response.error != nil)
        replay.record(
            .peripheral(FlowRecord.Peripheral(call.method)),
            flowArguments(peripheral: address, call.arguments, peripheral.address, then: .error(response.error)))
    }

    /// A request the capture cannot answer, handled as ``ReplayEngine/unmatched`` says, and always noted.
    func unmatched(_ request: GATTRequest?, _ peripheral: CBPeripheral, _ why: String) {
        let address = peripheral.address.map { "\($0)" } ?? "?"
        replay.comment("divergence: \(address) \(request?.methodName ?? "request"): \(why)")
        switch replay.unmatched {
        case .pend:
            break
        case .error:
            guard let request else { return }
            answer(
                GATTResponse(failing: request, with: CBATTError(.unlikelyError)), to: request, on: peripheral, after: 0)
        case .fail:
            replay.stop()
        }
    }

    /// The capture's peer never answered `operation` (of connection `link`). When the capture
    /// shows it unanswered for ATT's 30 seconds, the transaction times out and the link ends;
    /// when the link ended, or the capture did, before that, the app's request stays pending
    /// (the link's end, if any, comes as the capture shows it).
    private func unanswered(
        _ operation: Cassette.Operation, link: Int, _ request: GATTRequest, _ handle: UInt16, _ peripheral: CBPeripheral
    ) {
        let address = peripheral.address.map { "\($0)" } ?? "?"
        let episode = cassette.connections[link]
        let ended = episode.disconnection?.time ?? cassette.end
        if ended.seconds(since: operation.time) < 30 {
            let what = episode.disconnection == nil ? "the capture ended" : "the link ended"
            replay.comment(
                "\(address): the capture's peer had not answered \(request.methodName) on \(hex(handle, digits: 4, uppercase: true)) when \(what); the request stays pending"
            )
            return
        }
        replay.comment(
            "\(address): the capture's peer never answered \(request.methodName) on \(hex(handle, digits: 4, uppercase: true)); the link ends after ATT's 30-second timeout"
        )
        scheduleTransactionTimeout(peripheral)
    }

    /// ATT's transaction timeout: a request unanswered for 30 seconds ends the bearer (Core 6.0,
    /// Vol 3, Part F, §3.3.3), and with it the link; the app is told with the platform's
    /// ``Platform/attTimeoutError`` (none by default: Formats/corebluetooth.md).
    /// A fault's (`byFault`) leaves the capture's connection for the app's next attempt.
    private func scheduleTransactionTimeout(_ peripheral: CBPeripheral, byFault: Bool = false) {
        guard peripheral.address != nil else { return }
        replay.schedule(at: now.adding(microseconds: 30_000_000), for: peripheral) { [unowned self] peripheral in
            guard let address = peripheral.address, let central = peripheral.centralManager else { return }
            func end() {
                links.endLink(of: peripheral)
                peripheral.deliver(.linkLost)
                let error = process.platform.attTimeoutError
                replay.record(
                    .central(.didDisconnectPeripheral, manager: replay.number(central)),
                    [.init(.peripheral, "\(address)"), .error(error)])
                central.deliver(.disconnected(peripheral, error: error))
            }
            if byFault { links.endByFault(peripheral, end) } else { end() }
        }
    }

    // MARK: Flow arguments

    /// The arguments of a request or callback (``GATTRequest/call``, ``GATTCallback/call(failed:)``)
    /// as the flow writes them: `peripheral=` first, `last` (a callback's `error=`) last.
    private func flowArguments(
        peripheral: String, _ arguments: [GATTArgument], _ address: BluetoothAddress?,
        then last: FlowRecord.Argument? = nil
    ) -> [FlowRecord.Argument] {
        var written: [FlowRecord.Argument] = []
        written.reserveCapacity(arguments.count + 2)
        written.append(.init(.peripheral, peripheral))
        for argument in arguments { written.append(flowArgument(argument, address)) }
        if let last { written.append(last) }
        return written
    }

    /// One argument of a request or callback as the flow writes it: a characteristic by the name
    /// the peer's database gives it, a list of UUIDs as text (`nil` when a discovery asked for
    /// every one).
    private func flowArgument(_ argument: GATTArgument, _ address: BluetoothAddress?) -> FlowRecord.Argument {
        switch argument {
        case .services(let uuids): .init(.services, uuids.map { list($0.map(\.uuidString)) } ?? "nil")
        case .includedServices(let uuids): .init(.includedServices, uuids.map { list($0.map(\.uuidString)) } ?? "nil")
        case .characteristics(let uuids): .init(.characteristics, uuids.map { list($0.map(\.uuidString)) } ?? "nil")
        case .servicesFound(let found): .init(.services, list(found.map(\.uuid.uuidString)))
        case .includedServicesFound(let found): .init(.includedServices, list(found.map(\.uuid.uuidString)))
        case .characteristicsFound(let found):
            .init(.characteristics, list(found.map { characteristicName($0.valueHandle, address) }))
        case .descriptorsFound(let found): .init(.descriptors, list(found.map(\.uuid.uuidString)))
        case .service(let service): .init(.service, service.uuid.uuidString)
        case .characteristic(let characteristic):
            .init(.characteristic, characteristicName(characteristic.valueHandle, address))
        case .descriptor(let descriptor): .init(.descriptor, descriptor.uuid.uuidString)
        case .value(let value): .bytes(.value, value)
        case .withResponse: .init(.type, "withResponse")
        case .enabled(let enabled): .init(.enabled, "\(enabled)")
        case .isNotifying(let isNotifying): .init(.isNotifying, "\(isNotifying)")
        }
    }

    /// A characteristic as the flow names it: its UUID as CoreBluetooth prints it, and
    /// `UUID@0x0012` (its value handle) when the peer holds the UUID more than once.
    /// The peer's services as the app's discovery finds them on the link being played: the
    /// database iOS kept for a bonded peer whose database changed with no Service Changed
    /// (``Cassette/Link/phoneDatabase``), else the link's own, else the peer's.
    func services(of address: BluetoothAddress) -> [GATTDatabase.Service] {
        let link = links.playing[address]?.link
        return (link?.phoneDatabase ?? link?.database)?.services ?? cassette.services(of: address)
    }

    /// The descriptors of the characteristic whose value is at `valueHandle`, as the app's
    /// discovery finds them (``services(of:)``).
    private func descriptors(of address: BluetoothAddress, characteristic valueHandle: UInt16)
        -> [GATTDatabase.Descriptor]
    {
        services(of: address).lazy.flatMap(\.characteristics).first { $0.valueHandle == valueHandle }?.descriptors
            ?? []
    }

    /// What `database` holds at `handle`, as a kind and a UUID (nil: nothing), to tell whether
    /// a handle of iOS's kept database still names the same attribute in the peer's.
    static func attribute(at handle: UInt16, in database: GATTDatabase) -> String? {
        guard let service = database.services.last(where: { $0.handle <= handle && handle <= $0.endHandle }) else {
            return nil
        }
        if service.handle == handle { return "service \(service.uuid)" }
        for characteristic in service.characteristics {
            if characteristic.declarationHandle == handle { return "declaration \(characteristic.uuid)" }
            if characteristic.valueHandle == handle { return "value \(characteristic.uuid)" }
            if let descriptor = characteristic.descriptors.first(where: { $0.handle == handle }) {
                return "descriptor \(descriptor.uuid) of \(characteristic.uuid)"
            }
        }
        return nil
    }

    /// A request on `handle` of the app's view of the database, where iOS kept a database that
    /// no longer holds for the peer (``Cassette/Link/phoneDatabase``) and the handle now names
    /// something else: the peer answers for what is there now. Nothing: Invalid Handle (Core
    /// 6.0, Vol 3, Part F, §3.4.1.1), at once. Another attribute: the capture's answer on this
    /// connection, if it made the request; else unmatched. Returns true when it answered.
    private func staleHandle(
        _ kind: Cassette.Operation.Kind, _ handle: UInt16, _ request: GATTRequest, _ peripheral: CBPeripheral,
        _ address: BluetoothAddress
    ) -> Bool {
        guard let link = links.playing[address]?.link, let kept = link.phoneDatabase, let current = link.database
        else { return false }
        let was = Self.attribute(at: handle, in: kept)
        let there = Self.attribute(at: handle, in: current)
        guard was != there else { return false }
        let at = hex(handle, digits: 4, uppercase: true)
        guard let there else {
            replay.comment(
                "\(address): \(request.methodName) on \(at), \(was ?? "nothing") in the database iOS kept: the peer's database changed with no Service Changed and has no attribute there now; Invalid Handle"
            )
            answer(
                GATTResponse(failing: request, with: CBATTError(.invalidHandle)), to: request, on: peripheral, after: 0)
            return true
        }
        replay.comment(
            "\(address): \(request.methodName) on \(at), \(was ?? "nothing") in the database iOS kept, reaches the peer's \(there) (its database changed with no Service Changed)"
        )
        guard peerIndex(address).answer(PeerIndex.key(kind, handle), on: link.connection, occurrence: 0) != nil else {
            unmatched(
                request, peripheral,
                "connection \(link.connection + 1) of the capture never shows what the peer's \(there) at \(at) answers"
            )
            return true
        }
        return false
    }

    func characteristicName(_ valueHandle: UInt16, _ address: BluetoothAddress?) -> String {
        guard let address else { return "\(hex(valueHandle, digits: 4, uppercase: true))" }
        // A peer whose database changed: the name the app's view of this link gives the handle.
        if let link = links.playing[address]?.link, link.hasOwnDatabase,
            let characteristic = services(of: address).lazy.flatMap(\.characteristics).first(where: {
                $0.valueHandle == valueHandle
            })
        {
            return CBUUID(bluetoothUUID: characteristic.uuid).uuidString
        }
        return peerIndex(address).names[valueHandle] ?? "\(hex(valueHandle, digits: 4, uppercase: true))"
    }

    /// Answers a discovery from the peer's database, so that the flow keeps the capture's times.
    /// When the capture's connection being played made the same discovery, the answer comes when
    /// the capture's did, or at once if the app asks after that (the captured host discovered in
    /// another order: Android's stack finds a service's descriptors before the next service's
    /// characteristics). When it did not (it used cached handles), the answer comes at once, as
    /// from iOS's GATT cache (Formats/corebluetooth.md).
    private func answerDiscovery(
        _ response: GATTResponse, to request: GATTRequest, on peripheral: CBPeripheral, _ address: BluetoothAddress
    ) {
        let at = capturedDiscovery(request, address).map { max(now, $0) } ?? now
        replay.schedule(at: at, for: peripheral) { [unowned self] peripheral in
            deliver(response, for: request, to: peripheral)
        }
    }

    /// When the capture's procedure for the app's discovery `request` ended, on the connection
    /// being played, if that connection made it: its requests (this host's, of the procedure's
    /// kind) from one at the start of the range searched, while each starts after the one before
    /// and inside the range (Core 6.0, Vol 3, Part G, §4.4.1, §4.5.1, §4.6.1, §4.7.1).
    private func capturedDiscovery(_ request: GATTRequest, _ address: BluetoothAddress) -> Timestamp? {
        guard let link = links.playing[address]?.link else { return nil }
        let opcodes: Set<ATTOpcode>
        let type: BluetoothUUID?
        let range: ClosedRange<UInt16>
        switch request {
        case .discoverServices:
            (opcodes, type, range) = (
                [.readByGroupTypeRequest, .findByTypeValueRequest], .primaryService, 0x0001...0xFFFF
            )
        case .discoverIncludedServices(_, let service):
            (opcodes, type, range) = ([.readByTypeRequest], .includedService, service.handles)
        case .discoverCharacteristics(_, let service):
            (opcodes, type, range) = ([.readByTypeRequest], .characteristicDeclaration, service.handles)
        case .discoverDescriptors(let characteristic):
            // From the value's handle to the next characteristic's declaration, or the service's end.
            let value = characteristic.valueHandle
            guard value < 0xFFFF,
                let service = cassette.services(of: address).last(where: { $0.handle <= value && value <= $0.endHandle }
                )
            else { return nil }
            let next = service.characteristics.map(\.declarationHandle).filter { $0 > value }.min()
            let end = next.map { $0 - 1 } ?? service.endHandle
            guard end > value else { return nil }
            (opcodes, type, range) = ([.findInformationRequest], nil, (value + 1)...end)
        default:
            return nil
        }
        // The procedures' (start, end), in capture order.
        var procedures: [(start: Timestamp, end: Timestamp?)] = []
        var last: UInt16?
        for exchange in link.exchanges
        where exchange.sender != .peer && opcodes.contains(exchange.opcode) && (type == nil || exchange.type == type) {
            guard let start = exchange.handle else { continue }
            // A procedure goes on while each request starts further on, inside the range.
            if let previous = last, start > previous, range.contains(start) {
                last = start
                procedures[procedures.count - 1].end = exchange.answer?.time ?? procedures[procedures.count - 1].end
                continue
            }
            last = nil
            if start == range.lowerBound {
                last = start
                procedures.append((exchange.time, exchange.answer?.time))
            }
        }
        // The latest that had begun by now (the captured host discovered in another order, or
        // at the same moment), else the first after.
        return (procedures.last { $0.start <= now } ?? procedures.first)?.end
    }

    /// The answer the app's `occurrence`-th (0-based) request of `kind` on `handle` gets, and
    /// the capture's connection (`Connection.id`) that gave it. Each connection keeps its own
    /// answers: the app's connection plays one of the capture's (``LinkPlayback/link``), and its
    /// n-th request gets that connection's answer to its n-th such request, then its last. When
    /// that connection never made the request, the answer comes from the peer's nearest
    /// connection that did: the latest one before it, else the first one after it, by the same
    /// rule. Nil when no connection of the peer made it.
    func capturedAnswer(
        _ kind: Cassette.Operation.Kind, handle: UInt16, on address: BluetoothAddress, occurrence: Int
    ) -> (Cassette.Operation, connection: Int)? {
        let index = peerIndex(address)
        let key = PeerIndex.key(kind, handle)
        let playing = links.playing[address]?.link?.connection ?? links.playing[address]?.episode.id ?? Int.max
        // The connection played, then the latest before it, then the first after it; searched in
        // place, as this runs for every request (no array made).
        if let found = index.answer(key, on: playing, occurrence: occurrence) { return (found, playing) }
        for connection in index.connections.reversed() where connection < playing {
            if let found = index.answer(key, on: connection, occurrence: occurrence) { return (found, connection) }
        }
        for connection in index.connections where connection > playing {
            if let found = index.answer(key, on: connection, occurrence: occurrence) { return (found, connection) }
        }
        return nil
    }

    /// What the replay looks up per peer, built on first use in one pass over its links: each
    /// request's lookup is then a dictionary access, however long the capture.
    func peerIndex(_ address: BluetoothAddress) -> PeerIndex {
        if let lastPeer, lastPeer.address == address { return lastPeer.index }
        if let known = peerIndexes[address] {
            lastPeer = (address, known)
            return known
        }
        let index = PeerIndex(addressText: "\(address)")
        for link in cassette.links(of: address) {
            index.connections.append(link.connection)
            // Positions, not copies: an operation holds arrays, and a copy retains each.
            let operations = link.operations
            var byKey: [Int: [Int32]] = [:]
            for position in operations.indices where operations[position].sender != .peer {
                byKey[PeerIndex.key(operations[position].kind, operations[position].handle ?? 0), default: []].append(
                    Int32(position))
            }
            index.byConnection[link.connection] = (operations, byKey)
        }
        index.connections.sort()
        let characteristics = cassette.services(of: address).flatMap(\.characteristics)
        var counts: [BluetoothUUID: Int] = [:]
        for characteristic in characteristics { counts[characteristic.uuid, default: 0] += 1 }
        for characteristic in characteristics {
            let name = CBUUID(bluetoothUUID: characteristic.uuid).uuidString
            index.names[characteristic.valueHandle] =
                counts[characteristic.uuid]! > 1
                ? "\(name)@\(hex(characteristic.valueHandle, digits: 4, uppercase: true))" : name
        }
        peerIndexes[address] = index
        lastPeer = (address, index)
        return index
    }
}

/// Where a link's notifications have got to.
final class NotificationCursor {
    /// The next notification to play (the link's count once all are played).
    @exclusivity(unchecked) var index: Int
    /// The characteristic handle named last, and its name in the flow.
    @exclusivity(unchecked) var namedHandle: UInt16?
    @exclusivity(unchecked) var name = ""
    /// The link's playback as ``Links/playing`` had it at ``playingVersion``.
    @exclusivity(unchecked) private(set) var playback: LinkPlayback?
    @exclusivity(unchecked) private(set) var playingVersion = -1
    /// The handle whose subscription on ``playback`` was looked up last, at which of its
    /// ``LinkPlayback/subscribedVersion``, and the answer; nil once the playback changes.
    @exclusivity(unchecked) private var checked: (handle: UInt16, version: Int, subscribed: Bool)?
    init(index: Int) { self.index = index }

    /// The peripheral's manager when it is one of the process's, as found at the process's
    /// ``AppProcess/centralsVersion`` `centralsVersion`: not held (the process holds it while
    /// that is the same).
    @exclusivity(unchecked) private unowned(unsafe) var central: CBCentralManager?
    @exclusivity(unchecked) private var centralsVersion = -1

    /// `peripheral`'s manager when it is one of `process`'s, found again only when those change
    /// (a peripheral changes manager only by adoption, as its new manager is created, which
    /// changes them).
    func central(of peripheral: CBPeripheral, in process: AppProcess) -> CBCentralManager? {
        if centralsVersion != process.centralsVersion {
            centralsVersion = process.centralsVersion
            central = process.manager(of: peripheral)
        }
        return central
    }

    /// The link's playback is `playback` as ``Links/playing`` has it at `version`.
    func follow(_ playback: LinkPlayback?, _ version: Int) {
        (self.playback, playingVersion, checked) = (playback, version, nil)
    }

    /// Whether the app is subscribed to the characteristic with value handle `handle` on
    /// `playback`, the cursor's ``playback`` as the caller holds it (false with none): the answer
    /// for the handle looked up last is kept while the subscriptions stay as they were (most
    /// notifications come from the one before's characteristic).
    func isSubscribed(_ handle: UInt16, on playback: LinkPlayback?) -> Bool {
        guard let playback else { return false }
        if let checked, checked.handle == handle, checked.version == playback.subscribedVersion {
            return checked.subscribed
        }
        let subscribed = playback.subscribed.contains(handle)
        checked = (handle, playback.subscribedVersion, subscribed)
        return subscribed
    }
}

/// A peer's answers by kind and handle, and characteristic names by value handle. A class, looked up for every flow event that names a characteristic.
final class PeerIndex {
    /// Per connection (`Connection.id`) of the peer, its link's operations, and the positions of
    /// this host's among them by kind and handle (``key(_:_:)``), in capture order.
    var byConnection: [Int: (operations: [Cassette.Operation], byKey: [Int: [Int32]])] = [:]
    /// The peer's connections with a link, in order.
    var connections: [Int] = []
    var names: [UInt16: String] = [:]
    /// The address as flows write it, made once.
    let addressText: String

    init(addressText: String) { self.addressText = addressText }

    /// The operations of `key` on `connection`.
    func answers(_ connection: Int, _ key: Int) -> Answers {
        guard let answers = byConnection[connection] else { return Answers(operations: [], positions: []) }
        return Answers(operations: answers.operations, positions: answers.byKey[key] ?? [])
    }

    /// The answer to the `occurrence`-th (0-based) request of `key` on `connection`, or to its
    /// last when there were fewer; nil when the connection never made the request.
    func answer(_ key: Int, on connection: Int, occurrence: Int) -> Cassette.Operation? {
        let all = answers(connection, key)
        return all.isEmpty ? nil : all[min(max(0, occurrence), all.count - 1)]
    }

    /// Operations of one kind and handle on one connection, in capture order, as positions in the
    /// link's operations.
    struct Answers: RandomAccessCollection {
        let operations: [Cassette.Operation]
        let positions: [Int32]
        var startIndex: Int { 0 }
        var endIndex: Int { positions.count }
        subscript(position: Int) -> Cassette.Operation { operations[Int(positions[position])] }
    }

    static func key(_ kind: Cassette.Operation.Kind, _ handle: UInt16) -> Int {
        let number =
            switch kind {
            case .read: 1
            case .readMultiple: 2
            case .write: 3
            case .longWrite: 4
            case .writeWithoutResponse: 5
            case .signedWrite: 6
            case .mtu: 7
            case .discovery: 8
            case .readByType: 9
            case .indication: 10
            case .other: 11
            }
        return number << 16 | Int(handle)
    }
}

extension ServiceDefinition {
    /// A service of the capture as discovery reports it; a damaged capture's backward range is
    /// read as the handles between.
    init(capturing service: GATTDatabase.Service) {
        self.init(
            uuid: CBUUID(bluetoothUUID: service.uuid), isPrimary: service.isPrimary,
            handles: handleRange(service.handle, service.endHandle))
    }
}

func list(_ items: [String]) -> String { items.isEmpty ? "none" : items.joined(separator: ",") }

/// The handles from `first` to `last`, whichever order a (damaged) capture gives them in.
func handleRange(_ first: UInt16, _ last: UInt16) -> ClosedRange<UInt16> { min(first, last)...max(first, last) }

extension FlowRecord.App {
    /// The flow's event of a request's CoreBluetooth method: the same name.
    init(_ method: GATTRequest.Method) {
        self =
            switch method {
            case .discoverServices: .discoverServices
            case .discoverIncludedServices: .discoverIncludedServices
            case .discoverCharacteristics: .discoverCharacteristics
            case .discoverDescriptors: .discoverDescriptors
            case .readValue: .readValue
            case .writeValue: .writeValue
            case .setNotifyValue: .setNotifyValue
            }
    }
}

extension FlowRecord.Peripheral {
    /// The flow's event of a GATT callback's delegate method: the same name.
    init(_ method: GATTCallback.Method) {
        self =
            switch method {
            case .didDiscoverServices: .didDiscoverServices
            case .didDiscoverIncludedServicesFor: .didDiscoverIncludedServicesFor
            case .didDiscoverCharacteristicsFor: .didDiscoverCharacteristicsFor
            case .didDiscoverDescriptorsFor: .didDiscoverDescriptorsFor
            case .didUpdateValueFor: .didUpdateValueFor
            case .didWriteValueFor: .didWriteValueFor
            case .didUpdateNotificationStateFor: .didUpdateNotificationStateFor
            }
    }
}
