import ATT
import AndroidCodes
import CoreBluetoothCodes
import HCI
import Lifecycle
import Wire

// The words of `bletrace diagnose`: each finding's sentences, written from the facts its rule
// found (`Finding.Facts`, in Lifecycle). The one place they are written; durations, times and
// counts through `Wording`.

extension Finding {
    // Each of `summary`, `coreBluetooth` and `lookAt` writes all three sentences (``words``): a
    // report that shows more than one takes `words` once (FindingList, JSONFinding).

    /// One plain sentence.
    public var summary: String { words.summary }
    /// What CoreBluetooth told the app (the delegate method and its error), or that it told it
    /// nothing; nil where no app callback is involved.
    public var coreBluetooth: String? { words.coreBluetooth }
    /// What to look at, in the app or the accessory.
    public var lookAt: String { words.lookAt }

    /// The three sentences at once.
    public var words: (summary: String, coreBluetooth: String?, lookAt: String) {
        switch facts {
        case .rediscoveryAfterServiceChanged(let start, let end, let again):
            return (
                "The peer indicated Service Changed for \(hex4(start))-\(hex4(end)), and this host's client discovered again (frame \(again + 1)).",
                "peripheral(_:didModifyServices:) with the services invalidated; the app discovers them again",
                "that the app rediscovers in didModifyServices and subscribes again; on the accessory, that the change was intended (a firmware update, a service added at run time)"
            )
        case .serviceChangedIgnored(let start, let end, let linkEnded):
            return (
                "The peer indicated Service Changed for \(hex4(start))-\(hex4(end)), and this host's client did not discover again before \(linkEnded ? "the link ended" : "the capture ended").",
                "peripheral(_:didModifyServices:) with the services invalidated: an app that does not discover again keeps using handles that may be gone",
                "the app's peripheral(_:didModifyServices:): it should discover the invalidated services again"
            )
        case .failedToEstablish(let c, let exchange, let complete):
            var summary =
                "The connection to \(peerWords(c)) was never established (Connection Failed to be Established, 0x3E)"
            if let exchange, let complete {
                summary +=
                    ": the link layer's \(exchange) exchange, the first after connecting, completed with the same status (frame \(complete + 1))"
            }
            summary +=
                c.completion?.status == .success
                ? ", and the link was closed \(c.duration.map { Wording.duration($0) } ?? "") after its completion."
                : "."
            return (
                summary,
                // iOS's daemon tries again by itself and calls nothing (Formats/corebluetooth.md,
                // "What iOS does on its own": a bluetoothd log, Apple forum thread 761865).
                EstablishmentFailure.retried(
                    failing: c.completion?.status == .success
                        ? "centralManager(_:didDisconnectPeripheral:error:)"
                        : "centralManager(_:didFailToConnect:error:)"),
                "the peer's range and radio at connection time (it did not answer the first packets); iOS tries again by itself while the app's connect stands, Android reports the failure and the app must connect again"
            )
        case .supervisionTimeout(
            let c, let update, let pendingUpdate, let lastReceived, let lastReceivedTime, let timeout, let outlived):
            var summary = "The link to \(peerWords(c)) was lost (Connection Timeout, 0x08)"
            var updated = false
            if let update, case .parameters(let interval, let latency, let timeout) = update.kind {
                updated = true
                summary +=
                    " \(Wording.duration(time.seconds(since: update.time))) after a connection parameter update (frame \(update.record + 1): interval \(Wording.milliseconds(interval, unit: 1.25)), latency \(latency), supervision timeout \(Wording.milliseconds(timeout, unit: 10)))"
            } else if let started = pendingUpdate {
                summary += " while a connection parameter update started at frame \(started + 1) had not completed"
            }
            if let last = lastReceived, let lastTime = lastReceivedTime {
                summary +=
                    (updated ? ";" : ":")
                    + " the last packet from the peer was \(Wording.duration(time.seconds(since: lastTime))) before (frame \(last + 1))"
            } else {
                summary += (updated ? ";" : ":") + " no packet from the peer was captured on this connection"
            }
            if let timeout {
                summary += ", with a supervision timeout of \(Wording.milliseconds(timeout, unit: 10))"
                if outlived {
                    summary +=
                        "; the link outlived that silence on empty link-layer packets, which HCI does not show, so the peer stopped answering only in the last \(Wording.milliseconds(timeout, unit: 10)) before the loss"
                }
            }
            return (
                summary + ".", disconnectionCallback(c),
                updated
                    ? "whether the peer applies the new parameters at the update's instant (its sleep clock accuracy, the new supervision timeout); Apple's guidelines want the timeout above 3 × interval × (latency + 1)"
                    : "the peer's power, range and antenna (it stopped answering); a reset or brown-out of the accessory shows this way too"
            )
        case .llResponseTimeout(let c, let failed, let failedComplete, let failedStart, let pending, let pendingStart):
            var summary = "The link to \(peerWords(c)) ended with LL Response Timeout (0x22): "
            if let failed, let complete = failedComplete {
                summary += "the \(failed) procedure completed with the same status (frame \(complete + 1))"
                if let started = failedStart { summary += ", started at frame \(started + 1)" }
                summary += ": the peer did not answer it within 40 s."
            } else if let pending, let started = pendingStart {
                summary +=
                    "the \(pending) procedure started at frame \(started + 1) never completed: the peer did not answer it."
            } else {
                summary +=
                    "a link-layer procedure went unanswered, and HCI does not show which (the peer's own, or one the controller started)."
            }
            return (
                summary, disconnectionCallback(c),
                "the accessory's link layer: its support for the procedure named (PHY update, data length, connection update, encryption) and its firmware's handling of it"
            )
        case .bondMissing(let reason, let pairedOn, let pairing):
            var summary =
                "Encryption with the keys this host holds for the peer failed with \(reason.name ?? "\(reason)") (\(hex(reason.rawValue, digits: 2)))"
            if let pairedOn, let pairing {
                summary += "; the two paired on connection \(pairedOn + 1) (frame \(pairing + 1))"
            }
            summary += ": the peer no longer has the bond."
            return (
                summary,
                "CBError.peerRemovedPairingInformation (14): the user must forget the device in Settings > Bluetooth before pairing again [hypothesis: which HCI status iOS reads this from is not documented]",
                "the accessory's bond storage (a factory reset, or bonds lost on reboot); the app should tell the user to forget the device"
            )
        case .micFailure(let c, let encryption):
            return (
                "The link to \(peerWords(c)) ended with a MIC failure (0x3D)"
                    + (encryption.map { ", before the encryption started at frame \($0 + 1) completed" } ?? "")
                    + ": an encrypted packet failed its integrity check, so the two sides did not hold the same key.",
                disconnectionCallback(c),
                "the keys each side stored for the other (a stale bond on one side), and the accessory's encryption (its key after a key refresh)"
            )
        case .unacceptableParameters(let c, let request):
            var summary = "The link to \(peerWords(c)) ended with Unacceptable Connection Parameters (0x3B)"
            if let request {
                summary +=
                    "; the last parameters asked for were interval \(Wording.milliseconds(request.intervalMin, unit: 1.25))-\(Wording.milliseconds(request.intervalMax, unit: 1.25)), latency \(request.latency), timeout \(Wording.milliseconds(request.timeout, unit: 10)) (frame \(request.record + 1))"
            }
            return (
                summary + ".", disconnectionCallback(c),
                "the parameters the accessory asks for, against Apple's Accessory Design Guidelines (Formats/diagnose.md)"
            )
        case .attTimeout(let c, let request, let hostWaited):
            let indication = request.opcode.method == .indication
            let what =
                "\(request.opcode.name ?? "An ATT request") \(request.attributeHandle.map { "of \(hex4($0)) " } ?? "")"
            let sender =
                indication
                ? (hostWaited ? "from this host's server" : "from the peer's server")
                : (hostWaited ? "from this host's client" : "from the peer's client")
            return (
                "\(what)\(sender) went unanswered for \(Wording.duration(time.seconds(since: request.time))) (frame \(request.record + 1)); after ATT's 30 s transaction timeout \(hostWaited ? "this host" : "the peer") ended the link.",
                hostWaited
                    ? (indication
                        ? "a CBPeripheralManager app's updateValue was never confirmed; "
                        : "the pending request gets no callback; ") + disconnectionCallback(c)
                    : "a CBPeripheralManager app that did not call respond(to:withResult:) for the request (or a central app that did not confirm an indication: iOS confirms them itself)",
                hostWaited
                    ? "the accessory's GATT \(indication ? "client: it must confirm every indication" : "server: the handler of this request, which must answer every request (with an Error Response if need be)")"
                    : "this host's GATT server: every request of the peer's client must be answered, once"
            )
        case .gaveUpAfterRefusal(let refusal):
            return (
                "This host disconnected \(Wording.duration(time.seconds(since: refusal.time))) after the peer's server refused \(refusal.requestName ?? "a request")\(refusal.attributeHandle.map { " of \(hex4($0))" } ?? "") with \(refusal.name) (frame \(refusal.record + 1)).",
                refusal.coreBluetooth.map {
                    "\(cbName($0)) \($0.callback.hasPrefix("no ") ? "(\($0.callback))" : "in \($0.callback)"), then the app's cancelPeripheralConnection: didDisconnectPeripheral with no error"
                },
                "the app's handling of this error: whether disconnecting is the intended reaction, or the request can be fixed or retried (and why the accessory refuses it)"
            )
        case .endedAfterProcedure(let c, let done, let reason, let gap):
            let peer = c.peer.map { "\($0)" + (c.peerName.map { " \"\($0)\"" } ?? "") } ?? "The peer"
            let name = reason.name.map { "\($0), " } ?? ""
            let procedure = procedureWords(done)
            return (
                "\(peer) ended the link (\(name)\(hex(reason.rawValue, digits: 2)), frame \(record + 1)) \(Wording.duration(gap)) after \(procedure.what) completed (\(procedure.frames)), and sent nothing in between: the timing points at \(procedure.cause).",
                disconnectionCallback(c), procedure.lookAt
            )
        case .pairingUnfinished(let pairing, let ended):
            let starter = pairing.startedBy == .host ? "this host" : "the peer"
            return (
                "Pairing started by \(starter)\(pairing.securityRequested ? " (Security Request)" : "") never finished: neither encryption nor a Pairing Failed followed before \(ended.map { "the link ended (frame \($0 + 1))" } ?? "the capture ended").",
                "no callback for the pairing itself; the request that needed it is answered only once pairing succeeds",
                "the pairing prompt on the phone (dismissed or never shown) and the accessory's SMP timeout of 30 s (Core 6.0, Vol 3, Part H, §3.4)"
            )
        case .pairingFailed(let pairing, let mapped):
            let starter = pairing.startedBy == .host ? "this host" : "the peer"
            let by = pairing.failedBy.map { $0 == .host ? "this host" : "the peer" } ?? "one side"
            // A pairing this host cancelled (the user's Cancel): iOS ends the link.
            let cancelled = pairing.failedBy == .host
            return (
                "Pairing started by \(starter) (frame \(pairing.record + 1))\(pairing.method.map { ", \($0.rawValue)" } ?? "") failed: \(by) sent Pairing Failed, \(pairing.failureName ?? "unknown reason")\(pairing.failureReason.map { " (\(hex($0, digits: 2)))" } ?? "").",
                cancelled
                    ? "iOS ends the link: didDisconnectPeripheral with CBInternalErrorDomain 17 \"Pairing was cancelled.\", and the request that needed pairing gets no callback [reported: the link ends; hypothesis: the error]"
                    : mapped.map {
                        "\(cbName($0.value)) in the callback of the request that needed pairing [\($0.evidence.rawValue)]"
                    },
                "the reason: a wrong or cancelled passkey, IO capabilities that allow no method the accessory accepts, or a stale bond on one side"
            )
        case .bondNotKept(let connection, let before, let bonded):
            return (
                "The peer paired again on connection \(connection + 1) after pairing on connection \(before + 1): "
                    + (bonded == false
                        ? "the first pairing asked for no bond (Bonding_Flags), so nothing was kept."
                        : "the bond of the first pairing was not kept by one side."),
                "no callback; the user may be asked to pair again each time",
                "the Bonding_Flags of both Pairing Request and Response, and the accessory's bond storage"
            )
        case .shortKey(let c, let size, let via, let pairing):
            var summary = "The link was encrypted with a \(size)-byte key"
            summary += via.map { " (\($0), frame \(record + 1))" } ?? " (frame \(record + 1))"
            summary += ", shorter than the 16 bytes pairing allows"
            if let pairing, let request = pairing.requestRecord, let response = pairing.responseRecord,
                let asked = pairing.requestMaxKeySize, let answered = pairing.responseMaxKeySize,
                let agreed = pairing.keySize
            {
                let (requester, responder) =
                    c.role.map { $0 == .central ? ("this host", "the peer") : ("the peer", "this host") } ?? ("", "")
                summary +=
                    "; the pairing agreed on \(agreed) bytes: the Pairing Request\(requester.isEmpty ? "" : " of \(requester)") allowed \(asked) (frame \(request + 1)), "
                    + "the Pairing Response\(responder.isEmpty ? "" : " of \(responder)") \(answered) (frame \(response + 1))"
                if agreed != size { summary += ", not the size reported" }
            }
            return (
                summary + ".",
                "no callback; a characteristic that requires a 16-byte key answers Insufficient Encryption Key Size (CBATTError 12)",
                "the Maximum Encryption Key Size of both Pairing Request and Response (the accessory's SMP configuration)"
            )
        case .discoveryRepeated(let peer, let connections, let discovered, let total):
            return (
                "This host's client discovered \(peer)'s services on \(discovered.count) of its \(connections) connections (connections \(discovered.map { String($0 + 1) }.joined(separator: ", ")); \(Wording.duration(total)) of discovery in all): what the first discovery found was not reused.",
                "discoverServices answered from the air each time; iOS reuses a bonded peer's database, and others' only while it trusts its cache",
                "whether the accessory bonds and has a Service Changed characteristic (a client may keep its cache across connections only then, Core 6.0, Vol 3, Part G, §2.5.2); in the app, discovering only the services and characteristics it needs"
            )
        case .outsideDatabase(let error):
            return (
                "\(error.requestName ?? "a request") of \(attributeWords(error)), a handle outside the database discovery revealed, was refused with \(error.name).",
                callbackWords(error),
                "the client's hard-coded or cached handles (a stale cache after a firmware update); a CoreBluetooth app cannot send this"
            )
        case .securityRefusalNotRetried(let error):
            return (
                "The peer's server refused \(error.requestName ?? "a request") of \(attributeWords(error)) with \(error.name), and the request was not sent again on an encrypted link"
                    + (error.pairingFailedRecord.map { ": the pairing it led to failed (frame \($0 + 1))." } ?? "."),
                callbackWords(error),
                "whether the accessory requires a bond for this attribute and pairing could happen (the pairing prompt, the accessory's IO capabilities)"
            )
        case .refused(let error, let subscription):
            let request = error.requestName ?? "a request"
            return (
                subscription
                    ? "The peer's server refused the subscription (\(request) of the descriptor \(attributeWords(error))) with \(error.name) (\(hex(error.code, digits: 2)))."
                    : "The peer's server refused \(request) of \(attributeWords(error)) with \(error.name) (\(hex(error.code, digits: 2))).",
                callbackWords(error),
                subscription
                    ? "whether the characteristic supports notify or indicate, and what the accessory's server requires before a subscription (a bond, its own state)"
                    : "the value written (its length and format) and the characteristic's permissions on the accessory"
            )
        case .databaseChanged(let c, let earlier, let encrypted, let changes):
            let name = c.peer.map { "\($0)" + (c.peerName.map { " \"\($0)\"" } ?? "") } ?? ""
            return (
                "The database of \(name) changed between connection \(earlier + 1) and connection \(c.id + 1), which was encrypted with the bond (frame \(encrypted + 1)), with no Service Changed indication: \(changes.map(Self.changeWords).joined(separator: "; ")).",
                Self.staleCacheOnIOS,
                "the accessory: a database that can change must have the Service Changed characteristic and indicate the changed range to a bonded client when it reconnects (Core 6.0, Vol 3, Part G, §7.1); on a phone that kept the old one the user must forget the device, or restart Bluetooth"
            )
        case .notificationsNotRestored(let c, let earlier, let subscriptions, let encrypted, let waited):
            let what = subscriptions.map {
                ($0.uuid.map { "\($0)" } ?? "the characteristic of \(hex($0.descriptorHandle, digits: 4))")
                    + " (frame \($0.record + 1))"
            }
            return (
                "The reconnect to \(c.peer.map { "\($0)" } ?? "")\(c.peerName.map { " \"\($0)\"" } ?? "") was encrypted with the bond (frame \(encrypted + 1)), but no subscription came back: connection \(earlier + 1) subscribed to \(what.joined(separator: ", ")), and on this one this host's client wrote no Client Characteristic Configuration and the peer sent no notification or indication in the \(Wording.duration(waited)) that followed.",
                "no peripheral(_:didUpdateValueFor:error:): iOS does not subscribe again for the app; after centralManager(_:didConnect:) the app discovers again and calls setNotifyValue(true, for:)",
                "the app's reconnect path: discover and subscribe again on every connection (Android: setCharacteristicNotification and the CCCD write; iOS: setNotifyValue), or the accessory: a server keeps a bonded client's CCCD across connections (Core 6.0, Vol 3, Part G, §3.3.3.3) and should send on at once"
            )
        case .valueTooLong(let c, let value, let answer):
            return valueTooLongWords(c, value, answer)
        case .scanFilterUnmatched(let c, let filter):
            return scanFilterWords(c, filter)
        case .connectTimedOut(let c, let waited, let heard, let scanned):
            let target =
                c.peer == nil
                ? "through the Filter Accept List (frame \(record + 1); Android's stack makes its direct connections so)"
                : "to \(peerWords(c)) (frame \(record + 1))"
            var summary =
                "The attempt to connect \(target) was cancelled by this host after \(Wording.duration(waited)), Android's direct-connection timeout: the peer never answered"
            if c.peer != nil, let attempt = c.attempt?.time {
                summary += ", and " + heardWords(heard, attempt: attempt, scanned: scanned)
            }
            summary += "."
            return (
                summary,
                "no callback: a CoreBluetooth connect does not time out; iOS keeps the attempt pending until the peer answers or the app cancels it",
                "whether the peer was advertising connectably, in range, at the address the phone used (a resolvable private address it has since changed); the app should scan first and connect to what it hears"
            )
        case .connectToUnheardPeer(let c, let heard, let scanned, let resolvable, let waited):
            var summary =
                "This host tried to connect to \(peerWords(c)) (frame \(record + 1)), but "
                + heardWords(heard, attempt: time, scanned: scanned)
            if resolvable {
                summary +=
                    "; the address is a resolvable private one, which the peer changes (every 15 minutes, as the specification recommends), so an address remembered from an older scan no longer reaches it"
            }
            let ending =
                switch c.outcome {
                case .pending: "; the attempt was still pending when the capture ended."
                case .cancelled: "; the host cancelled it after \(waited.map(Wording.duration) ?? "a while")."
                default:
                    "; it failed (\(c.completion.map { "\($0.status.name ?? "status") \(hex($0.status.rawValue, digits: 2))" } ?? "no status"))."
                }
            summary += ending
            return (
                summary,
                "no callback while the attempt is pending: iOS waits for the peer to advertise, with no timeout",
                "the address the app connects to: take it from a fresh scan (or connect with autoConnect, which follows the peer's resolvable address), and check the peer is advertising connectably"
            )
        case .connectWhileBusy(let c, let other, let up, let otherRecord):
            var summary =
                "This host asked to connect to \(c.peer.map { "\($0)" } ?? "")\(c.peerName.map { " \"\($0)\"" } ?? "") (frame \(record + 1)) while "
            summary +=
                up
                ? "its connection to it (connection \(other.id + 1)\(otherRecord.map { ", frame \($0 + 1)" } ?? "")) was up"
                : "its attempt to connect to it (frame \((other.attempt?.record ?? record) + 1)) was still pending"
            let ending =
                switch c.outcome {
                case .failed:
                    "; the controller refused it (\(c.completion.map { "\($0.status.name ?? "status") \(hex($0.status.rawValue, digits: 2))" } ?? "no status"))."
                case .cancelled:
                    "; it never completed, and the host cancelled it after \(c.cancelTime.map { Wording.duration($0.seconds(since: time)) } ?? "a while")."
                case .pending: "; it was still pending when the capture ended."
                default: "."
                }
            summary += ending
            return (
                summary,
                "none: iOS keeps one connection per peripheral; a connect to a peripheral already connected or connecting sends nothing new, and the app waits for centralManager(_:didConnect:) of the one under way",
                "the app's connect calls: one connectGatt (or one CBCentralManager.connect) per peer at a time, after the last attempt completed or was cancelled, and close() of each BluetoothGatt it gives up (Android keeps at most 32 GATT clients; a leaked one makes later connects fail with 133 before any HCI command, which only logcat shows)"
            )
        case .requestedParameters(let request, let broken):
            let who = request.sentBy.map { $0 == .host ? "This host" : "The peer" } ?? "A side"
            return (
                "\(who) asked for interval \(Wording.milliseconds(request.intervalMin, unit: 1.25))-\(Wording.milliseconds(request.intervalMax, unit: 1.25)), latency \(request.latency), supervision timeout \(Wording.milliseconds(request.timeout, unit: 10)) (\(request.via)), which Apple's guidelines do not allow: \(broken.map(\.words).joined(separator: "; "))"
                    + (request.rejectedRecord.map { "; it was rejected (frame \($0 + 1))." } ?? "."),
                "no callback; an iOS central may refuse the request and keep its own parameters",
                "the accessory's preferred connection parameters (Apple's Accessory Design Guidelines, \"Connection Parameters\")"
            )
        case .linkParameters(let interval, let latency, let timeout, let broken):
            return (
                "The link ran with interval \(Wording.milliseconds(interval, unit: 1.25)), latency \(latency), supervision timeout \(Wording.milliseconds(timeout, unit: 10)), outside Apple's guidelines for accessories: \(broken.map(\.words).joined(separator: "; ")).",
                nil,
                "the central's choice (these are the parameters in force, not a request); with an iPhone as central, the parameters the accessory asks for"
            )
        case .traffic(
            let requests, let latencies, let notifications, let perSecond, let gaps, let longest, let from, let to):
            var parts: [String] = []
            if latencies.count == 4 {
                let names = ["min", "median", "p95", "max"]
                parts.append(
                    "\(Wording.count(requests, "request")) answered in "
                        + zip(names, latencies).map { "\($0) \(Wording.milliseconds($1 * 1000))" }
                        .joined(separator: ", "))
            }
            if notifications > 0 {
                parts.append(
                    Wording.count(notifications, "notification")
                        + (perSecond.map { " (\(Wording.decimal($0)) per second)" } ?? ""))
            }
            if let longest, let from, let to {
                parts.append(
                    "\(Wording.count(gaps, "gap")) longer than half the supervision timeout (the longest \(Wording.duration(longest)), frames \(from + 1)-\(to + 1))"
                )
            }
            return (
                "Traffic: " + parts.joined(separator: "; ") + ".", nil,
                gaps > 0
                    ? "the gaps: a link idle for long stretches is kept alive by empty packets HCI does not show, but a gap before a timeout is where the peer went quiet"
                    : "the latencies against what the app expects (a slow answer is the accessory's server, or a long connection interval)"
            )
        }
    }

    /// What iOS does with a bonded peer's database that changed with no Service Changed.
    public static let staleCacheOnIOS =
        "no peripheral(_:didModifyServices:): iOS keeps a bonded peer's database across connections, so discoverServices gives the app the earlier services, and requests on their handles reach other attributes or none (Invalid Handle) [reported]"

    /// `180D moved from 0x0010-0x0018 to 0x0020-0x0028`, `… at … gone`, `… new at …`.
    static func changeWords(_ change: ServiceLayout.Change) -> String {
        func range(_ s: ServiceLayout.Service) -> String { "\(hex4(s.handle))-\(hex4(s.end))" }
        switch change {
        case .moved(let uuid, let from, let to): return "\(uuid) moved from \(range(from)) to \(range(to))"
        case .gone(let old): return "\(old.uuid) at \(range(old)) gone"
        case .new(let new): return "\(new.uuid) new at \(range(new))"
        }
    }

    /// `00:11:22:33:44:55 "Thermometer"`, or `the peer`.
    private func peerWords(_ c: Connection) -> String {
        c.peer.map { "\($0)" + (c.peerName.map { " \"\($0)\"" } ?? "") } ?? "the peer"
    }

    /// What the app's central manager is told of the disconnection.
    private func disconnectionCallback(_ c: Connection) -> String {
        if c.role == .peripheral {
            return
                "a CBPeripheralManager app gets no disconnection callback (only centralDidUnsubscribe for its subscribers)"
        }
        if c.disconnection?.initiator == .local, c.disconnection?.reason == .remoteDeviceTerminatedPowerOff {
            return
                "no didDisconnectPeripheral: this host's Bluetooth went off, and apps get centralManagerDidUpdateState(.poweredOff) only"
        }
        guard let mapped = c.cbError else { return "centralManager(_:didDisconnectPeripheral:error:)" }
        guard let error = mapped.value else {
            return "centralManager(_:didDisconnectPeripheral:error:) with no error (the app asked for it)"
        }
        if c.outcome == .failed {
            return "centralManager(_:didFailToConnect:error:) with \(cbName(error)) [\(mapped.evidence.rawValue)]"
        }
        return "centralManager(_:didDisconnectPeripheral:error:) with \(cbName(error)) [\(mapped.evidence.rawValue)]"
    }

    /// The attribute a refused request named: `0x002A (2A37 Heart Rate Measurement)`.
    private func attributeWords(_ error: TraceError) -> String {
        error.attributeHandle.map { handle in
            hex4(handle) + (error.attribute.map { " (\($0.uuid)\($0.name.map { " \($0)" } ?? ""))" } ?? "")
        } ?? "an attribute"
    }

    /// The error CoreBluetooth gives the app for a refusal, and in which callback.
    private func callbackWords(_ error: TraceError) -> String? {
        error.coreBluetooth.map {
            "\(cbName($0)) \($0.callback.hasPrefix("no ") ? "(\($0.callback))" : "in \($0.callback)")"
        }
    }

    /// `the capture's scans last heard it advertising connectably 1.0 s before the attempt`.
    private func heardWords(_ heard: Heard?, attempt: Timestamp, scanned: Bool) -> String {
        guard let heard else {
            return scanned
                ? "the capture's scans never heard it advertising before the attempt"
                : "no scan of the capture's ran before the attempt"
        }
        let how =
            heard.connectable
            ? "connectably" : "only non-connectably (ADV_NONCONN_IND or ADV_SCAN_IND: it accepts no connection)"
        return
            "the capture's scans last heard it advertising \(how) \(Wording.duration(attempt.seconds(since: heard.time))) before the attempt"
    }

    /// A procedure the peer ended the link right after: `a data length update`, its frames' words,
    /// the likely cause and what to look at.
    private func procedureWords(_ done: Procedure) -> (what: String, frames: String, cause: String, lookAt: String) {
        switch done.kind {
        case .phy(let tx, let rx):
            let phys =
                tx == rx
                ? "\(LEPHY(rawValue: tx).shortName) both ways"
                : "\(LEPHY(rawValue: tx).shortName) out, \(LEPHY(rawValue: rx).shortName) in"
            return (
                "a PHY update",
                (done.start.map { "LE Set PHY at frame \($0 + 1), " } ?? "")
                    + "LE PHY Update Complete at frame \(done.record + 1): \(phys)",
                "a peer whose radio or firmware does not work on the PHY it accepted",
                "the accessory's PHY support: it should answer the PHY request with the PHYs it really runs; an Android app can keep 1M (setPreferredPhy), iOS chooses the PHY by itself"
            )
        case .dataLength(let tx, let rx):
            return (
                "a data length update",
                (done.start.map { "LE Set Data Length at frame \($0 + 1), " } ?? "")
                    + "LE Data Length Change at frame \(done.record + 1): \(tx) bytes out, \(rx) in",
                "a peer firmware that cannot take the \(max(tx, rx))-byte link-layer PDUs it agreed to",
                "the accessory's link layer and buffers: it must take the PDU lengths it agrees to in LL_LENGTH_RSP, or offer smaller ones; phones start this update by themselves, neither app can stop it"
            )
        case .encryption(let refresh):
            return (
                refresh ? "an encryption key refresh" : "the encryption",
                (done.start.map { "its start at frame \($0 + 1), " } ?? "")
                    + "\(refresh ? "Encryption Key Refresh Complete" : "Encryption Change") at frame \(done.record + 1)",
                "a peer that does not accept the key or its security: a bond it no longer trusts, an unauthenticated or short key where it requires more",
                "the accessory's security requirements and bond storage (the key it expects, its minimum key size, whether it requires authenticated pairing)"
            )
        case .mtuExchange(let mtu):
            return (
                "an MTU exchange",
                (done.start.map { "Exchange MTU Request at frame \($0 + 1), " } ?? "")
                    + "Exchange MTU Response at frame \(done.record + 1): ATT_MTU \(mtu)",
                "a peer firmware that cannot handle the ATT MTU of \(mtu) it agreed to (buffers sized for 23)",
                "the accessory's Exchange MTU Response: it should offer only the MTU its buffers take; an Android app asks with requestMtu (ask less), iOS exchanges by itself"
            )
        }
    }

    private func valueTooLongWords(_ c: Connection, _ value: TooLongValue, _ answer: TraceError?) -> (
        summary: String, coreBluetooth: String?, lookAt: String
    ) {
        let client = value.server == .peer ? "This host's client" : "The peer's client"
        let server = value.server == .peer ? "the peer's server" : "this host's server"
        let attribute = hex(value.attribute, digits: 4)
        var summary: String
        switch value.kind {
        case .write:
            let name = ATTOpcode(rawValue: value.opcode).name ?? "a write"
            summary =
                "\(client) sent \(name) of \(attribute) with a \(value.length)-byte value (frame \(value.request + 1))"
            var broken: [String] = []
            if value.overMTU, let mtu = value.mtu {
                // What of the PDU is not the value: opcode and handle; a Prepare Write's offset; a
                // Signed Write's signature.
                let overhead = value.opcode == 0x16 ? 5 : value.opcode == 0xD2 ? 15 : 3
                let agreed =
                    value.mtuRecord.map { "agreed at frame \($0 + 1)" } ?? "LE's default: no Exchange MTU before it"
                broken.append("longer than ATT_MTU − \(overhead) = \(Int(mtu) - overhead) (ATT_MTU \(mtu), \(agreed))")
            }
            if value.length > 512 && value.opcode != 0x16 {
                broken.append("longer than the 512 bytes an attribute value may have")
            }
            summary += ", " + broken.joined(separator: ", and ")
        case .queue:
            let first = value.evidence.first ?? value.request
            let over = value.evidence.last ?? value.request
            summary =
                "\(client) queued Prepare Write Requests from frame \(first + 1) that make \(attribute) a \(value.length)-byte value (frame \(over + 1) takes it past 512 bytes, the most an attribute value may have), and executed them (frame \(value.request + 1))"
        case .read:
            summary =
                "\(client) read \(attribute) as a long read, and \(server) handed out \(value.length) bytes of it, more than the 512 an attribute value may have (Read Blob Request at frame \(value.request + 1), its response at frame \(record + 1))"
        }
        switch (value.kind, value.answer) {
        case (.read, _):
            summary += "."
        case (_, let reply?):
            if let code = value.answerError {
                let name = ATTErrorCode(rawValue: code).name ?? "error"
                summary +=
                    "; \(server) refused it: Error Response \(name) (\(hex(code, digits: 2)), frame \(reply + 1))."
            } else {
                summary += "; \(server) took it (frame \(reply + 1))."
            }
        case (_, nil) where value.opcode == 0x52 || value.opcode == 0xD2:
            summary += " (a command: no answer is sent)."
        case (_, nil):
            summary +=
                "; \(server) sent no answer before \(c.disconnection == nil ? "the capture ended" : "the link ended")."
        }
        if value.count > 1 {
            summary += " \(value.count - 1) more like it on this connection."
        }
        let coreBluetooth: String?
        if let cb = answer?.coreBluetooth {
            coreBluetooth = "\(cbName(cb)) in \(cb.callback)"
        } else if value.server == .peer && value.kind != .read {
            coreBluetooth =
                "none from this PDU: CoreBluetooth keeps an app's writes within maximumWriteValueLength(for:) (ATT_MTU − 3 without response, 512 with, sent as a long write), so the sender is not an iOS app's own write"
        } else {
            coreBluetooth = nil
        }
        return (
            summary, coreBluetooth,
            value.kind == .read
                ? "the accessory's value: no attribute value may exceed 512 bytes (Core 6.0, Vol 3, Part F, §3.2.9); the client should not rely on more"
                : "the writer: each write within ATT_MTU − 3 of the MTU in force (Android: the MTU of onMtuChanged; iOS: maximumWriteValueLength(for:)), and no value over 512 bytes (Core 6.0, Vol 3, Part F, §3.2.9); a longer value goes as a long write or in pieces the accessory reassembles"
        )
    }

    private func scanFilterWords(_ c: Connection, _ filter: ScanFilterUnmatched) -> (
        summary: String, coreBluetooth: String?, lookAt: String
    ) {
        let service = filter.service
        var summary =
            "This host's controller was given a scan filter on the service \(service) (Android's APCF vendor command 0x\(String(filter.command, radix: 16, uppercase: true)), filter index \(filter.filterIndex), frame \(filter.filterRecord + 1)"
        summary += filter.filterComplete.map { ", accepted at frame \($0 + 1)" } ?? ""
        summary += filter.times > 1 ? "; set \(filter.times) times in all)" : ")"
        summary +=
            ", but \(c.peer.map { "\($0)" } ?? "")\(c.peerName.map { " \"\($0)\"" } ?? ""), which has that service in its database (frame \(filter.serviceRecord + 1)), never advertised it: the capture heard it in \(Wording.count(filter.reports, "report"))"
        summary += filter.firstReport.map { " (the first at frame \($0 + 1))" } ?? ""
        summary +=
            filter.advertised.isEmpty
            ? " with no service UUID"
            : " listing \(filter.advertised.map { "\($0)" }.joined(separator: ", ")) only"
        summary += filter.anyoneAdvertised ? "" : ", and no device it heard advertised \(service)"
        summary +=
            ". A scan filtered on \(service) never reports this peer. Which app set the filter, and whether it also scanned without one, the capture does not say."
        return (
            summary,
            "scanForPeripherals(withServices:) with \(service) never calls centralManager(_:didDiscover:advertisementData:rssi:) for this peer: iOS matches the services the advertisement and scan response list, not the database",
            "the accessory's advertising data: list \(service) in it (or in its scan response); or filter the app's scan on what it does advertise (Android: ScanFilter.Builder().setServiceUuid matches advertised UUIDs only, and onScanResult never comes for this peer)"
        )
    }
}

extension DiagnosisCollector.GuidelineViolation {
    /// `interval min 7.5 ms is under 15 ms`.
    public var words: String {
        let interval = { (requested: Bool) in requested ? " max" : "" }
        switch self {
        case .intervalUnder15(let ms, let requested):
            return "interval \(requested ? "min " : "")\(Wording.milliseconds(ms)) is under 15 ms"
        case .intervalMinNotMultipleOf15(let ms):
            return "interval min \(Wording.milliseconds(ms)) is not a multiple of 15 ms"
        case .intervalMaxTooClose(let maxMS, let minMS):
            return
                "interval max \(Wording.milliseconds(maxMS)) is not 15 ms above interval min \(Wording.milliseconds(minMS)) (nor both 15 ms)"
        case .latencyOver30(let latency):
            return "latency \(latency) is over 30"
        case .timeoutOutOfRange(let seconds):
            return "supervision timeout \(Wording.duration(seconds)) is not between 2 s and 6 s"
        case .effectiveIntervalOver2s(let ms, let requested):
            return "interval\(interval(requested)) × (latency + 1) is \(Wording.milliseconds(ms)), over 2 s"
        case .timeoutNotAboveEffective(let timeoutMS, let threeTimesMS, let requested):
            return
                "supervision timeout \(Wording.milliseconds(timeoutMS)) is not above 3 × interval\(interval(requested)) × (latency + 1) = \(Wording.milliseconds(threeTimesMS))"
        }
    }
}

private func hex4(_ value: UInt16) -> String { hex(value, digits: 4) }

private func cbName(_ error: CBError) -> String { "\(error) (\(error.errorCode))" }
private func cbName(_ error: ConnectionError) -> String { "\(error) (\(error.errorCode))" }
private func cbName(_ error: CBATTError) -> String { "\(error) (\(error.errorCode))" }
private func cbName(_ cb: TraceError.CoreBluetoothEquivalent) -> String {
    cb.name.map { "\(cb.typeName).\($0) (\(cb.code))" } ?? "\(cb.typeName) code \(cb.code)"
}
