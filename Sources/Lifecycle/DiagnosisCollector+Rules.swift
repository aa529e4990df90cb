import ATT
import AndroidCodes
import CoreBluetoothCodes
import HCI
import Wire

extension DiagnosisCollector {
    /// Every finding of the capture, most serious first: the rules of ``DiagnosisRule`` applied
    /// to the lifecycles (`report`), the errors (`errors`) and what this collector gathered.
    public func findings(report: LifecycleReport, errors: [TraceError]) -> [Finding] {
        var findings: [Finding] = []
        let refused = Refusals(errors)
        for connection in report.connections {
            let link = link(connection.id)
            findings += linkEnd(connection, link, report, refused)
            findings += security(connection, link, report, errors)
            findings += parameters(connection, link)
            if let traffic = traffic(connection, link, report) { findings.append(traffic) }
            findings += serviceChanges(connection, link)
        }
        findings += neverConnected(report)
        findings += notificationsNotRestored(report)
        findings += procedureRules(report, errors)
        findings += discoveryRepeated(report)
        findings += databaseChanged(report)
        findings += refusals(report, errors)
        return Finding.inOrder(findings)
    }

    /// Each Service Changed indication, and whether this host's client discovered again after it.
    private func serviceChanges(_ c: Connection, _ link: Link) -> [Finding] {
        var findings: [Finding] = []
        for (index, indication) in link.serviceChanges.enumerated() {
            let changes = c.changes.filter { if case .serviceChanged = $0.kind { true } else { false } }
            guard index < changes.count, case .serviceChanged(let start, let end) = changes[index].kind else {
                continue
            }
            let time = changes[index].time
            let range = "\(hex4(start))-\(hex4(end))"
            if let again = indication.rediscovery {
                findings.append(
                    Finding(
                        rule: .rediscoveryAfterServiceChanged, record: indication.record, time: time, connection: c,
                        evidence: [indication.record, again],
                        summary:
                            "The peer indicated Service Changed for \(range), and this host's client discovered again (frame \(again + 1)).",
                        coreBluetooth:
                            "peripheral(_:didModifyServices:) with the services invalidated; the app discovers them again",
                        lookAt:
                            "that the app rediscovers in didModifyServices and subscribes again; on the accessory, that the change was intended (a firmware update, a service added at run time)"
                    ))
            } else {
                findings.append(
                    Finding(
                        rule: .serviceChangedIgnored, record: indication.record, time: time, connection: c,
                        evidence: [indication.record],
                        summary:
                            "The peer indicated Service Changed for \(range), and this host's client did not discover again before \(c.disconnectRecord == nil ? "the capture ended" : "the link ended").",
                        coreBluetooth:
                            "peripheral(_:didModifyServices:) with the services invalidated: an app that does not discover again keeps using handles that may be gone",
                        lookAt:
                            "the app's peripheral(_:didModifyServices:): it should discover the invalidated services again"
                    ))
            }
        }
        return findings
    }

    // MARK: Why each link ended

    private func linkEnd(_ c: Connection, _ link: Link, _ report: LifecycleReport, _ refusals: Refusals) -> [Finding] {
        var findings: [Finding] = []
        // (Worded only for a link that has a finding.)
        var peer: String { c.peer.map { "\($0)" + (c.peerName.map { " \"\($0)\"" } ?? "") } ?? "the peer" }
        var callback: String { disconnectionCallback(c) }
        // Never established: status 0x3E on the completion, or as the reason right after it.
        if c.status == .connectionFailedToBeEstablished || c.reason == .connectionFailedToBeEstablished,
            let record = c.disconnectRecord ?? c.completeRecord, let time = c.disconnectTime ?? c.completeTime
        {
            let features = link.failed.filter { $0.status == .connectionFailedToBeEstablished }
            var summary = "The connection to \(peer) was never established (Connection Failed to be Established, 0x3E)"
            if let first = features.first, let complete = first.completeRecord {
                summary +=
                    ": the link layer's \(first.name) exchange, the first after connecting, completed with the same status (frame \(complete + 1))"
            }
            summary +=
                c.status == .success
                ? ", and the link was closed \(c.duration.map { Wording.duration($0) } ?? "") after its completion."
                : "."
            findings.append(
                Finding(
                    rule: .failedToEstablish, record: record, time: time, connection: c,
                    evidence: [c.attemptRecord, c.completeRecord, c.disconnectRecord].compactMap { $0 }
                        + features.compactMap(\.completeRecord),
                    summary: summary,
                    // iOS's daemon tries again by itself and calls nothing (Formats/corebluetooth.md,
                    // "What iOS does on its own": a bluetoothd log, Apple forum thread 761865).
                    coreBluetooth: EstablishmentFailure.retried(
                        failing: c.status == .success
                            ? "centralManager(_:didDisconnectPeripheral:error:)"
                            : "centralManager(_:didFailToConnect:error:)"),
                    android: c.android,
                    lookAt:
                        "the peer's range and radio at connection time (it did not answer the first packets); iOS tries again by itself while the app's connect stands, Android reports the failure and the app must connect again"
                ))
        }
        guard c.outcome == .disconnected, let record = c.disconnectRecord, let time = c.disconnectTime,
            let reason = c.reason
        else {
            return findings
        }
        // This host sent HCI Disconnect: it ended the link, whatever the completion's reason (a
        // controller whose terminate went unacknowledged reports 0x08 or 0x22), and no loss of the
        // link is the peer's.
        let hostEnded = c.disconnectRequestRecord != nil
        // (0x00, Success, is never a disconnection's reason: no rule below.)
        switch hostEnded && [0x08, 0x22, 0x3B, 0x3D].contains(reason.rawValue) ? 0x00 : reason.rawValue {
        case 0x08:
            let update = c.changes.last { change in
                if case .parameters = change.kind {
                    return change.record < record && time.seconds(since: change.time) <= 5
                }
                return false
            }
            var summary = "The link to \(peer) was lost (Connection Timeout, 0x08)"
            var evidence = [record]
            if let update, case .parameters(let interval, let latency, let timeout) = update.kind {
                summary +=
                    " \(Wording.duration(time.seconds(since: update.time))) after a connection parameter update (frame \(update.record + 1): interval \(Wording.milliseconds(interval, unit: 1.25)), latency \(latency), supervision timeout \(Wording.milliseconds(timeout, unit: 10)))"
                evidence.append(update.record)
            } else if let pending = link.pending.last(where: { $0.name == "connection update" }),
                let started = pending.record
            {
                summary += " while a connection parameter update started at frame \(started + 1) had not completed"
                evidence.append(started)
            }
            if let last = link.lastReceived, let lastTime = link.lastReceivedTime {
                summary +=
                    (update == nil ? ":" : ";")
                    + " the last packet from the peer was \(Wording.duration(time.seconds(since: lastTime))) before (frame \(last + 1))"
                evidence.append(last)
            } else {
                summary += (update == nil ? ":" : ";") + " no packet from the peer was captured on this connection"
            }
            if let timeout = c.parameters(after: record)?.supervisionTimeout {
                summary += ", with a supervision timeout of \(Wording.milliseconds(timeout, unit: 10))"
                // Data from the peer longer ago than the timeout: the link lived on link-layer
                // packets HCI does not show, and the peer fell silent only in the timeout's span.
                if let lastTime = link.lastReceivedTime, time.seconds(since: lastTime) > Double(timeout) * 0.01 {
                    summary +=
                        "; the link outlived that silence on empty link-layer packets, which HCI does not show, so the peer stopped answering only in the last \(Wording.milliseconds(timeout, unit: 10)) before the loss"
                }
            }
            findings.append(
                Finding(
                    rule: .supervisionTimeout, record: record, time: time, connection: c, evidence: evidence,
                    summary: summary + ".",
                    coreBluetooth: callback, android: c.android,
                    lookAt: update != nil
                        ? "whether the peer applies the new parameters at the update's instant (its sleep clock accuracy, the new supervision timeout); Apple's guidelines want the timeout above 3 × interval × (latency + 1)"
                        : "the peer's power, range and antenna (it stopped answering); a reset or brown-out of the accessory shows this way too"
                ))
        case 0x22:
            var summary = "The link to \(peer) ended with LL Response Timeout (0x22): "
            var evidence = [record]
            if let failed = link.failed.last(where: { $0.status == .llResponseTimeout }),
                let complete = failed.completeRecord
            {
                summary += "the \(failed.name) procedure completed with the same status (frame \(complete + 1))"
                if let started = failed.record { summary += ", started at frame \(started + 1)" }
                summary += ": the peer did not answer it within 40 s."
                evidence += [complete] + (failed.record.map { [$0] } ?? [])
            } else if let pending = link.pending.last, let started = pending.record {
                summary +=
                    "the \(pending.name) procedure started at frame \(started + 1) never completed: the peer did not answer it."
                evidence.append(started)
            } else {
                summary +=
                    "a link-layer procedure went unanswered, and HCI does not show which (the peer's own, or one the controller started)."
            }
            findings.append(
                Finding(
                    rule: .llResponseTimeout, record: record, time: time, connection: c, evidence: evidence,
                    summary: summary,
                    coreBluetooth: callback, android: c.android,
                    lookAt:
                        "the accessory's link layer: its support for the procedure named (PHY update, data length, connection update, encryption) and its firmware's handling of it"
                ))
        case 0x06, 0x05:
            findings.append(bondMissing(c, link, report, record: record, time: time, reason: reason))
        case 0x3D:
            // Encryption started and not completed: the keys the two sides used differ.
            let encryption = link.pending.last { $0.name == "encryption" }?.record
            findings.append(
                Finding(
                    rule: .micFailure, record: record, time: time, connection: c,
                    evidence: [record] + (encryption.map { [$0] } ?? []),
                    summary: "The link to \(peer) ended with a MIC failure (0x3D)"
                        + (encryption.map { ", before the encryption started at frame \($0 + 1) completed" } ?? "")
                        + ": an encrypted packet failed its integrity check, so the two sides did not hold the same key.",
                    coreBluetooth: callback, android: c.android,
                    lookAt:
                        "the keys each side stored for the other (a stale bond on one side), and the accessory's encryption (its key after a key refresh)"
                ))
        case 0x3B:
            let request = link.parameterRequests.last { $0.record < record }
            var summary = "The link to \(peer) ended with Unacceptable Connection Parameters (0x3B)"
            if let request {
                summary +=
                    "; the last parameters asked for were interval \(Wording.milliseconds(request.intervalMin, unit: 1.25))-\(Wording.milliseconds(request.intervalMax, unit: 1.25)), latency \(request.latency), timeout \(Wording.milliseconds(request.timeout, unit: 10)) (frame \(request.record + 1))"
            }
            findings.append(
                Finding(
                    rule: .unacceptableParameters, record: record, time: time, connection: c,
                    evidence: [record] + (request.map { [$0.record] } ?? []), summary: summary + ".",
                    coreBluetooth: callback, android: c.android,
                    lookAt:
                        "the parameters the accessory asks for, against Apple's Accessory Design Guidelines (Formats/diagnose.md)"
                ))
        default:
            break
        }
        if reason.rawValue != 0x06 && reason.rawValue != 0x05,
            let failed = encryptionFailure(c, link),
            let finding = Optional(
                bondMissing(c, link, report, record: failed.record, time: failed.time, reason: failed.status))
        {
            findings.append(finding)
        }
        // ATT transaction timeout: a request (or indication) unanswered for 30 s, then the side
        // that waited ends the link (Core 6.0, Vol 3, Part F, §3.3.3). A link lost for another
        // reason (0x08, 0x22, 0x3E) long after is not one.
        for request in c.unansweredRequests {
            let elapsed = time.seconds(since: request.time)
            let indication = request.opcode.method == .indication
            // This host waited: its client's request to the peer's server, or its server's indication.
            let hostWaited = (request.server == .peer) != indication
            guard elapsed >= 29.5, elapsed <= 40, c.initiator == (hostWaited ? .local : .remote),
                hostEnded || ![0x08, 0x22, 0x3E].contains(reason.rawValue)
            else { continue }
            let what =
                "\(request.opcode.name ?? "An ATT request") \(request.attributeHandle.map { "of \(hex4($0)) " } ?? "")"
            let sender =
                indication
                ? (hostWaited ? "from this host's server" : "from the peer's server")
                : (hostWaited ? "from this host's client" : "from the peer's client")
            findings.append(
                Finding(
                    rule: .attTimeout, record: record, time: time, connection: c, evidence: [request.record, record],
                    summary:
                        "\(what)\(sender) went unanswered for \(Wording.duration(elapsed)) (frame \(request.record + 1)); after ATT's 30 s transaction timeout \(hostWaited ? "this host" : "the peer") ended the link.",
                    coreBluetooth: hostWaited
                        ? (indication
                            ? "a CBPeripheralManager app's updateValue was never confirmed; "
                            : "the pending request gets no callback; ") + callback
                        : "a CBPeripheralManager app that did not call respond(to:withResult:) for the request (or a central app that did not confirm an indication: iOS confirms them itself)",
                    android: hostWaited ? c.android : nil,
                    lookAt: hostWaited
                        ? "the accessory's GATT \(indication ? "client: it must confirm every indication" : "server: the handler of this request, which must answer every request (with an Error Response if need be)")"
                        : "this host's GATT server: every request of the peer's client must be answered, once"))
        }
        // The host giving up right after a refused request (not the link iOS ends after a pairing
        // this host cancelled: that is the pairing's finding).
        if c.initiator == .local, !c.pairings.contains(where: { $0.outcome == .failed && $0.failedBy == .host }),
            let refusal = refusals.last(
                on: c.handle, after: c.completeRecord ?? -1, before: record,
                where: { time.seconds(since: $0.time) <= 2 })
        {
            findings.append(
                Finding(
                    rule: .gaveUpAfterRefusal, record: record, time: time, connection: c,
                    evidence: [refusal.record, record],
                    summary:
                        "This host disconnected \(Wording.duration(time.seconds(since: refusal.time))) after the peer's server refused \(refusal.requestName ?? "a request")\(refusal.attributeHandle.map { " of \(hex4($0))" } ?? "") with \(refusal.name) (frame \(refusal.record + 1)).",
                    coreBluetooth: refusal.coreBluetooth.map {
                        "\(cbName($0)) \($0.callback.hasPrefix("no ") ? "(\($0.callback))" : "in \($0.callback)"), then the app's cancelPeripheralConnection: didDisconnectPeripheral with no error"
                    },
                    android: refusal.android,
                    lookAt:
                        "the app's handling of this error: whether disconnecting is the intended reaction, or the request can be fixed or retried (and why the accessory refuses it)"
                ))
        }
        return findings
    }

    /// An encryption that failed with PIN or Key Missing or Authentication Failure.
    private func encryptionFailure(_ c: Connection, _ link: Link) -> (record: Int, time: Timestamp, status: HCIStatus)?
    {
        for change in c.changes {
            if case .failed("encryption", let status) = change.kind,
                status == .pinOrKeyMissing || status == .authenticationFailure
            {
                return (change.record, change.time, status)
            }
        }
        return nil
    }

    /// PIN or Key Missing on a peer bonded before: CoreBluetooth's "peer removed pairing
    /// information".
    private func bondMissing(
        _ c: Connection, _ link: Link, _ report: LifecycleReport, record: Int, time: Timestamp, reason: HCIStatus
    ) -> Finding {
        let earlier = report.connections.last { other in
            other.id < c.id && other.peer != nil && other.peer == c.peer
                && other.pairings.contains { $0.outcome == .encrypted }
        }
        let pairing = earlier?.pairings.last { $0.outcome == .encrypted }
        let failed = encryptionFailure(c, link)
        var summary =
            "Encryption with the keys this host holds for the peer failed with \(reason.name ?? "\(reason)") (\(hex(reason.rawValue, digits: 2)))"
        if let pairing, let earlier {
            summary += "; the two paired on connection \(earlier.id + 1) (frame \(pairing.record + 1))"
        }
        summary += ": the peer no longer has the bond."
        return Finding(
            rule: .bondMissing, record: record, time: time, connection: c,
            evidence: [record] + [failed?.record, c.disconnectRecord, pairing?.record].compactMap { $0 },
            summary: summary,
            coreBluetooth:
                "CBError.peerRemovedPairingInformation (14): the user must forget the device in Settings > Bluetooth before pairing again [hypothesis: which HCI status iOS reads this from is not documented]",
            android: c.android,
            lookAt:
                "the accessory's bond storage (a factory reset, or bonds lost on reboot); the app should tell the user to forget the device"
        )
    }

    /// What the app's central manager is told of the disconnection.
    func disconnectionCallback(_ c: Connection) -> String {
        if c.role == .peripheral {
            return
                "a CBPeripheralManager app gets no disconnection callback (only centralDidUnsubscribe for its subscribers)"
        }
        if c.initiator == .local, c.reason == .remoteDeviceTerminatedPowerOff {
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

    // MARK: Security

    private func security(_ c: Connection, _ link: Link, _ report: LifecycleReport, _ errors: [TraceError]) -> [Finding]
    {
        var findings: [Finding] = []
        for pairing in c.pairings {
            let starter = pairing.startedBy == .host ? "this host" : "the peer"
            switch pairing.outcome {
            case .unfinished:
                let ended = c.disconnectRecord
                findings.append(
                    Finding(
                        rule: .pairingUnfinished, record: pairing.record, time: pairing.time, connection: c,
                        evidence: [pairing.record] + (ended.map { [$0] } ?? []),
                        summary:
                            "Pairing started by \(starter)\(pairing.securityRequested ? " (Security Request)" : "") never finished: neither encryption nor a Pairing Failed followed before \(ended.map { "the link ended (frame \($0 + 1))" } ?? "the capture ended").",
                        coreBluetooth:
                            "no callback for the pairing itself; the request that needed it is answered only once pairing succeeds",
                        lookAt:
                            "the pairing prompt on the phone (dismissed or never shown) and the accessory's SMP timeout of 30 s (Core 6.0, Vol 3, Part H, §3.4)"
                    ))
            case .failed:
                let record = pairing.endRecord ?? pairing.record
                let by = pairing.failedBy.map { $0 == .host ? "this host" : "the peer" } ?? "one side"
                let refusal = pairing.causeRecord.flatMap { cause in
                    errors.first { $0.record == cause && $0.layer == .att }?.code
                }
                let mapped = pairing.failureReason.map {
                    CoreBluetoothMapping.pairingFailureError(reason: $0, refusal: refusal)
                }
                // A pairing this host cancelled (the user's Cancel): iOS ends the link.
                let cancelled = pairing.failedBy == .host
                findings.append(
                    Finding(
                        rule: .pairingFailed, record: record, time: pairing.endTime ?? pairing.time, connection: c,
                        evidence: [pairing.record, record] + (pairing.causeRecord.map { [$0] } ?? []),
                        summary:
                            "Pairing started by \(starter) (frame \(pairing.record + 1))\(pairing.method.map { ", \($0.rawValue)" } ?? "") failed: \(by) sent Pairing Failed, \(pairing.failureName ?? "unknown reason")\(pairing.failureReason.map { " (\(hex($0, digits: 2)))" } ?? "").",
                        coreBluetooth: cancelled
                            ? "iOS ends the link: didDisconnectPeripheral with CBInternalErrorDomain 17 \"Pairing was cancelled.\", and the request that needed pairing gets no callback [reported: the link ends; hypothesis: the error]"
                            : mapped.map {
                                "\(cbName($0.value)) in the callback of the request that needed pairing [\($0.evidence.rawValue)]"
                            },
                        android: pairing.failureReason.map { AndroidMapping.pairingFailure(reason: $0) },
                        lookAt:
                            "the reason: a wrong or cancelled passkey, IO capabilities that allow no method the accessory accepts, or a stale bond on one side"
                    ))
            case .encrypted:
                break
            }
            if let before = pairing.pairedBeforeOn {
                let earlier = report.connections.first { $0.id == before }
                let bonded = earlier?.pairings.last?.bonding
                findings.append(
                    Finding(
                        rule: .bondNotKept, record: pairing.record, time: pairing.time, connection: c,
                        evidence: [pairing.record] + (earlier?.pairings.last.map { [$0.record] } ?? []),
                        summary:
                            "The peer paired again on connection \(c.id + 1) after pairing on connection \(before + 1): "
                            + (bonded == false
                                ? "the first pairing asked for no bond (Bonding_Flags), so nothing was kept."
                                : "the bond of the first pairing was not kept by one side."),
                        coreBluetooth: "no callback; the user may be asked to pair again each time",
                        lookAt:
                            "the Bonding_Flags of both Pairing Request and Response, and the accessory's bond storage"))
            }
        }
        findings += shortKeys(c, link)
        return findings
    }

    /// Keys under 16 bytes: each size the controller reported (Encryption Change v2, Read
    /// Encryption Key Size), with the pairing before it on the connection that agreed on a key
    /// size; and a pairing that agreed on fewer than 16 bytes (the smaller Maximum Encryption Key
    /// Size of its Request and Response) and encrypted, where no report names it.
    private func shortKeys(_ c: Connection, _ link: Link) -> [Finding] {
        var reported: [(size: UInt8, record: Int, time: Timestamp, via: String)] = []
        for change in c.changes {
            if case .encryption(true, let size?) = change.kind {
                reported.append((size, change.record, change.time, "Encryption Change"))
            }
        }
        for key in link.keySizes { reported.append((key.size, key.record, key.time, "Read Encryption Key Size")) }
        var findings: [Finding] = []
        var named: Set<Int> = []
        for report in reported.sorted(by: { $0.record < $1.record }) where report.size < 16 {
            let pairing = c.pairings.last { $0.record < report.record && $0.keySize != nil }
            if let pairing { named.insert(pairing.record) }
            findings.append(
                shortKey(
                    c, size: report.size, record: report.record, time: report.time, via: report.via, pairing: pairing))
        }
        for pairing in c.pairings where pairing.outcome == .encrypted && !named.contains(pairing.record) {
            guard let size = pairing.keySize, size < 16, let record = pairing.endRecord, let time = pairing.endTime
            else { continue }
            findings.append(shortKey(c, size: size, record: record, time: time, via: nil, pairing: pairing))
        }
        return findings
    }

    /// A key of `size` bytes, reported at `record` (by `via`, or the encryption after `pairing`).
    private func shortKey(_ c: Connection, size: UInt8, record: Int, time: Timestamp, via: String?, pairing: Pairing?)
        -> Finding
    {
        var summary = "The link was encrypted with a \(size)-byte key"
        summary += via.map { " (\($0), frame \(record + 1))" } ?? " (frame \(record + 1))"
        summary += ", shorter than the 16 bytes pairing allows"
        var evidence = [record]
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
            evidence += [request, response] + (pairing.endRecord.map { [$0] } ?? [])
        }
        return Finding(
            rule: .shortKey, record: record, time: time, connection: c, evidence: evidence,
            summary: summary + ".",
            coreBluetooth:
                "no callback; a characteristic that requires a 16-byte key answers Insufficient Encryption Key Size (CBATTError 12)",
            lookAt:
                "the Maximum Encryption Key Size of both Pairing Request and Response (the accessory's SMP configuration)",
            values: ["key_size": Double(size)])
    }

    // MARK: GATT

    private func discoveryRepeated(_ report: LifecycleReport) -> [Finding] {
        // Each peer's connections by their place in the report: a copy of each connection here
        // was a second copy of the report (512 bytes a connection, and the array's spare room).
        var byPeer: [BluetoothAddress: [Int]] = [:]
        var order: [BluetoothAddress] = []
        for (index, c) in report.connections.enumerated() where c.status == .success {
            guard let peer = c.peer else { continue }
            if byPeer[peer] == nil { order.append(peer) }
            byPeer[peer, default: []].append(index)
        }
        var findings: [Finding] = []
        for peer in order {
            let connections = byPeer[peer]!
            let discovered = connections.filter {
                report.connections[$0].discoveryProcedures.contains { $0.kind == .services }
            }
            guard discovered.count >= 2, case let second = report.connections[discovered[1]],
                let procedure = second.discoveryProcedures.first(where: { $0.kind == .services })
            else { continue }
            let total = discovered.compactMap { report.connections[$0].discoveryDuration }.reduce(0, +)
            findings.append(
                Finding(
                    rule: .discoveryRepeated, record: procedure.record ?? second.completeRecord ?? 0,
                    time: procedure.start, connection: second,
                    evidence: discovered.compactMap {
                        report.connections[$0].discoveryProcedures.first(where: { $0.kind == .services })?.record
                    },
                    summary:
                        "This host's client discovered \(peer)'s services on \(discovered.count) of its \(connections.count) connections (connections \(discovered.map { String(report.connections[$0].id + 1) }.joined(separator: ", ")); \(Wording.duration(total)) of discovery in all): what the first discovery found was not reused.",
                    coreBluetooth:
                        "discoverServices answered from the air each time; iOS reuses a bonded peer's database, and others' only while it trusts its cache",
                    lookAt:
                        "whether the accessory bonds and has a Service Changed characteristic (a client may keep its cache across connections only then, Core 6.0, Vol 3, Part G, §2.5.2); in the app, discovering only the services and characteristics it needs",
                    values: [
                        "connections": Double(connections.count), "discoveries": Double(discovered.count),
                        "discovery_s": total,
                    ]))
        }
        return findings
    }

    /// Refusals of the peer's server: requests outside the database, writes and subscriptions
    /// refused, refusals for security never retried.
    private func refusals(_ report: LifecycleReport, _ errors: [TraceError]) -> [Finding] {
        var findings: [Finding] = []
        // Each handle's connections by their place in the report (not copies of them).
        var byHandle: [UInt16: [Int]] = [:]
        for (index, c) in report.connections.enumerated() {
            if let handle = c.handle { byHandle[handle, default: []].append(index) }
        }
        for error in errors where error.layer == .att && error.server == .peer {
            var connection: Connection? {
                error.connection.flatMap { handle in
                    byHandle[handle]?.last { index in
                        let c = report.connections[index]
                        return (c.completeRecord ?? -1) < error.record && (c.disconnectRecord ?? .max) > error.record
                    }
                }.map { report.connections[$0] }
            }
            // (The words are made only for the errors that become findings: most, such as the
            // Attribute Not Found that ends each discovery, are expected and pass.)
            var attribute: String {
                error.attributeHandle.map { handle in
                    hex4(handle) + (error.attribute.map { " (\($0.uuid)\($0.name.map { " \($0)" } ?? ""))" } ?? "")
                } ?? "an attribute"
            }
            let request = error.requestName ?? "a request"
            let cb = error.coreBluetooth
            var cbText: String? {
                cb.map { "\(cbName($0)) \($0.callback.hasPrefix("no ") ? "(\($0.callback))" : "in \($0.callback)")" }
            }
            if let callback = cb?.callback, callback.hasPrefix("no callback: the attribute is not in the database") {
                findings.append(
                    Finding(
                        rule: .outsideDatabase, record: error.record, time: error.time, connection: connection,
                        evidence: [error.record],
                        summary:
                            "\(request) of \(attribute), a handle outside the database discovery revealed, was refused with \(error.name).",
                        coreBluetooth: cbText, android: error.android,
                        lookAt:
                            "the client's hard-coded or cached handles (a stale cache after a firmware update); a CoreBluetooth app cannot send this"
                    ))
                continue
            }
            guard !error.expected else { continue }
            if SecurityRefusal.asksForSecurity(ATTErrorCode(rawValue: error.code)) {
                guard error.retryRecord == nil else { continue }
                findings.append(
                    Finding(
                        rule: .securityRefusalNotRetried, record: error.record, time: error.time,
                        connection: connection,
                        evidence: [error.record] + (error.pairingFailedRecord.map { [$0] } ?? []),
                        summary:
                            "The peer's server refused \(request) of \(attribute) with \(error.name), and the request was not sent again on an encrypted link"
                            + (error.pairingFailedRecord.map { ": the pairing it led to failed (frame \($0 + 1))." }
                                ?? "."),
                        coreBluetooth: cbText,
                        android: error.android,
                        lookAt:
                            "whether the accessory requires a bond for this attribute and pairing could happen (the pairing prompt, the accessory's IO capabilities)"
                    ))
                continue
            }
            guard let callback = cb?.callback, !callback.hasPrefix("no callback") else { continue }
            let subscription = callback == "peripheral(_:didUpdateNotificationStateFor:error:)"
            let write = [0x12, 0x16, 0x18].contains(error.requestOpcode ?? 0)
            guard subscription || write else { continue }
            findings.append(
                Finding(
                    rule: subscription ? .subscriptionRefused : .writeRefused, record: error.record, time: error.time,
                    connection: connection, evidence: [error.record],
                    summary: subscription
                        ? "The peer's server refused the subscription (\(request) of the descriptor \(attribute)) with \(error.name) (\(hex(error.code, digits: 2)))."
                        : "The peer's server refused \(request) of \(attribute) with \(error.name) (\(hex(error.code, digits: 2))).",
                    coreBluetooth: cbText,
                    android: error.android,
                    lookAt: subscription
                        ? "whether the characteristic supports notify or indicate, and what the accessory's server requires before a subscription (a bond, its own state)"
                        : "the value written (its length and format) and the characteristic's permissions on the accessory"
                ))
        }
        return findings
    }

    // MARK: Connection parameters

    /// What Apple's Accessory Design Guidelines (§ "Connection Parameters") ask of the parameters
    /// an accessory requests, which `intervalMin`…`intervalMax` (1.25 ms units), `latency` and
    /// `timeout` (10 ms units) break. `requested`: the two interval bounds of a request (else the
    /// one interval of a link).
    public static func appleGuidelineViolations(
        intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16, requested: Bool
    ) -> [String] {
        var broken: [String] = []
        let minMS = Double(intervalMin) * 1.25, maxMS = Double(intervalMax) * 1.25, timeoutMS = Double(timeout) * 10
        let effective = maxMS * Double(Int(latency) + 1)
        if minMS < 15 {
            broken.append("interval \(requested ? "min " : "")\(Wording.milliseconds(minMS)) is under 15 ms")
        }
        if requested, intervalMin % 12 != 0 {
            broken.append("interval min \(Wording.milliseconds(minMS)) is not a multiple of 15 ms")
        }
        if requested, !(maxMS >= minMS + 15 || (intervalMin == 12 && intervalMax == 12)) {
            broken.append(
                "interval max \(Wording.milliseconds(maxMS)) is not 15 ms above interval min \(Wording.milliseconds(minMS)) (nor both 15 ms)"
            )
        }
        if latency > 30 { broken.append("latency \(latency) is over 30") }
        if timeoutMS < 2000 || timeoutMS > 6000 {
            broken.append("supervision timeout \(Wording.duration(timeoutMS / 1000)) is not between 2 s and 6 s")
        }
        if effective > 2000 {
            broken.append(
                "interval\(requested ? " max" : "") × (latency + 1) is \(Wording.milliseconds(effective)), over 2 s")
        }
        if !(timeoutMS > effective * 3) {
            broken.append(
                "supervision timeout \(Wording.milliseconds(timeoutMS)) is not above 3 × interval\(requested ? " max" : "") × (latency + 1) = \(Wording.milliseconds(effective * 3))"
            )
        }
        return broken
    }

    private func parameters(_ c: Connection, _ link: Link) -> [Finding] {
        var findings: [Finding] = []
        for request in link.parameterRequests {
            let broken = Self.appleGuidelineViolations(
                intervalMin: request.intervalMin, intervalMax: request.intervalMax, latency: request.latency,
                timeout: request.timeout,
                requested: true)
            guard !broken.isEmpty else { continue }
            let who = request.sentBy.map { $0 == .host ? "This host" : "The peer" } ?? "A side"
            findings.append(
                Finding(
                    rule: .requestedParameters, record: request.record, time: request.time, connection: c,
                    evidence: [request.record] + (request.rejectedRecord.map { [$0] } ?? []),
                    summary:
                        "\(who) asked for interval \(Wording.milliseconds(request.intervalMin, unit: 1.25))-\(Wording.milliseconds(request.intervalMax, unit: 1.25)), latency \(request.latency), supervision timeout \(Wording.milliseconds(request.timeout, unit: 10)) (\(request.via)), which Apple's guidelines do not allow: \(broken.joined(separator: "; "))"
                        + (request.rejectedRecord.map { "; it was rejected (frame \($0 + 1))." } ?? "."),
                    coreBluetooth: "no callback; an iOS central may refuse the request and keep its own parameters",
                    lookAt:
                        "the accessory's preferred connection parameters (Apple's Accessory Design Guidelines, \"Connection Parameters\")",
                    values: [
                        "interval_min_ms": Double(request.intervalMin) * 1.25,
                        "interval_max_ms": Double(request.intervalMax) * 1.25,
                        "latency": Double(request.latency), "supervision_timeout_ms": Double(request.timeout) * 10,
                    ]))
        }
        // What the link ran with: at completion, then after each update.
        var sets: [(record: Int, time: Timestamp, interval: UInt16, latency: UInt16, timeout: UInt16)] = []
        if let record = c.completeRecord, let time = c.completeTime, let interval = c.interval, let latency = c.latency,
            let timeout = c.supervisionTimeout
        {
            sets.append((record, time, interval, latency, timeout))
        }
        for change in c.changes {
            if case .parameters(let interval, let latency, let timeout) = change.kind {
                sets.append((change.record, change.time, interval, latency, timeout))
            }
        }
        for set in sets {
            let broken = Self.appleGuidelineViolations(
                intervalMin: set.interval, intervalMax: set.interval, latency: set.latency, timeout: set.timeout,
                requested: false)
            guard !broken.isEmpty else { continue }
            findings.append(
                Finding(
                    rule: .linkParameters, record: set.record, time: set.time, connection: c, evidence: [set.record],
                    summary:
                        "The link ran with interval \(Wording.milliseconds(set.interval, unit: 1.25)), latency \(set.latency), supervision timeout \(Wording.milliseconds(set.timeout, unit: 10)), outside Apple's guidelines for accessories: \(broken.joined(separator: "; ")).",
                    coreBluetooth: nil,
                    lookAt:
                        "the central's choice (these are the parameters in force, not a request); with an iPhone as central, the parameters the accessory asks for",
                    values: [
                        "interval_ms": Double(set.interval) * 1.25, "latency": Double(set.latency),
                        "supervision_timeout_ms": Double(set.timeout) * 10,
                    ]))
            break
        }
        return findings
    }

    // MARK: Traffic

    /// The smallest, the median, the 95th percentile and the largest of `values`, nil when there
    /// are none: the values at positions 0, ⌈0.5·(n-1)⌉, ⌈0.95·(n-1)⌉ and n-1 of `values.sorted()`,
    /// found without sorting (a selection, linear on average, rather than a sort of every
    /// request's latency on every connection).
    static func quantiles(_ values: [Double]) -> (Double, Double, Double, Double)? {
        guard let low = values.min(), let high = values.max() else { return nil }
        func position(_ q: Double) -> Int { min(values.count - 1, Int((q * Double(values.count - 1)).rounded(.up))) }
        var scratch = values
        return scratch.withUnsafeMutableBufferPointer { scratch in
            let p95 = select(position(0.95), in: scratch, below: values.count)
            // The selection leaves the values before that position no larger than it.
            let median = select(position(0.5), in: scratch, below: position(0.95) + 1)
            return (low, median, p95, high)
        }
    }

    /// The value at position `k` of `values[0..<end]` once sorted; reorders `values[0..<end]` so
    /// that those before `k` are no larger and those after no smaller. (Three-way partitions: the
    /// many equal latencies of a steady link cost no more than distinct ones.)
    /// (On a buffer pointer: through the array, every swap checked the array's uniqueness and
    /// both indices.)
    static func select(_ k: Int, in values: UnsafeMutableBufferPointer<Double>, below end: Int) -> Double {
        var (low, high) = (0, end - 1)
        while low < high {
            let a = values[low]
            let b = values[(low + high) / 2]
            let c = values[high]
            let pivot = max(min(a, b), min(max(a, b), c))
            // [low, less) < pivot, [less, next) == pivot, (greater, high] > pivot.
            var (less, next, greater) = (low, low, high)
            while next <= greater {
                if values[next] < pivot {
                    values.swapAt(less, next)
                    less += 1
                    next += 1
                } else if values[next] > pivot {
                    values.swapAt(next, greater)
                    greater -= 1
                } else {
                    next += 1
                }
            }
            if k < less {
                high = less - 1
            } else if k > greater {
                low = greater + 1
            } else {
                return values[k]
            }
        }
        return values[k]
    }

    private func traffic(_ c: Connection, _ link: Link, _ report: LifecycleReport) -> Finding? {
        guard c.status == .success || c.beganBeforeCapture,
            !link.latencies.isEmpty || c.attNotifications > 0 || link.gaps > 0,
            let record = c.completeRecord ?? link.firstTraffic
        else { return nil }
        var parts: [String] = []
        var values: [String: Double] = [:]
        values.reserveCapacity(9)
        var evidence = [record]
        if let (low, median, p95, high) = Self.quantiles(link.latencies.seconds) {
            let count = link.latencies.count
            // (The keys spelled whole: literals, where made by interpolation each was a new string.)
            let figures = [
                ("min", "latency_ms_min", low), ("median", "latency_ms_median", median), ("p95", "latency_ms_p95", p95),
                ("max", "latency_ms_max", high),
            ]
            for (_, key, value) in figures { values[key] = (value * 1_000_000).rounded() / 1000 }
            values["requests"] = Double(count)
            parts.append(
                "\(Wording.count(count, "request")) answered in "
                    + figures.map { "\($0.0) \(Wording.milliseconds($0.2 * 1000))" }.joined(separator: ", "))
        }
        let start = c.completeTime ?? report.firstTime
        let end = c.disconnectTime ?? report.lastTime
        if c.attNotifications > 0 {
            values["notifications"] = Double(c.attNotifications)
            var text = "\(Wording.count(c.attNotifications, "notification"))"
            if let start, let end, end > start {
                let rate = Double(c.attNotifications) / end.seconds(since: start)
                values["notifications_per_s"] = (rate * 1000).rounded() / 1000
                text += " (\(Wording.decimal(rate)) per second)"
            }
            parts.append(text)
        }
        if let longest = link.longestGap {
            values["gaps"] = Double(link.gaps)
            values["longest_gap_s"] = (longest.seconds * 1000).rounded() / 1000
            parts.append(
                "\(Wording.count(link.gaps, "gap")) longer than half the supervision timeout (the longest \(Wording.duration(longest.seconds)), frames \(longest.from + 1)-\(longest.to + 1))"
            )
            evidence += [longest.from, longest.to]
        }
        return Finding(
            rule: .traffic, record: record,
            time: c.completeTime ?? link.firstTrafficTime ?? start ?? Timestamp(microseconds: 0), connection: c,
            evidence: evidence,
            summary: "Traffic: " + parts.joined(separator: "; ") + ".",
            coreBluetooth: nil,
            lookAt: link.gaps > 0
                ? "the gaps: a link idle for long stretches is kept alive by empty packets HCI does not show, but a gap before a timeout is where the peer went quiet"
                : "the latencies against what the app expects (a slow answer is the accessory's server, or a long connection interval)",
            values: values)
    }
}

// MARK: Wording

private func hex4(_ value: UInt16) -> String { hex(value, digits: 4) }

private func cbName(_ error: CBError) -> String { "\(error) (\(error.errorCode))" }
private func cbName(_ error: ConnectionError) -> String { "\(error) (\(error.errorCode))" }
private func cbName(_ error: CBATTError) -> String { "\(error) (\(error.errorCode))" }
private func cbName(_ cb: TraceError.CoreBluetoothEquivalent) -> String {
    cb.name.map { "\(cb.typeName).\($0) (\(cb.code))" } ?? "\(cb.typeName) code \(cb.code)"
}

/// The unexpected ATT refusals of the peer's server among a capture's errors, for finding the
/// last one before each disconnection without reading every error for every connection (on a
/// capture with hundreds of connections and thousands of errors that search was the largest
/// part of the rules' time).
struct Refusals {
    let errors: [TraceError]
    /// The positions in `errors` of the refusals, in order.
    let positions: [Int]
    /// `errors` is in record order, as ``ErrorCollector`` appends them: the search can start at
    /// the disconnection and stop at the connection's start.
    let ordered: Bool

    init(_ errors: [TraceError]) {
        self.errors = errors
        positions = errors.indices.filter {
            errors[$0].layer == .att && errors[$0].server == .peer && !errors[$0].expected
        }
        ordered = zip(positions, positions.dropFirst()).allSatisfy { errors[$0].record <= errors[$1].record }
    }

    /// The last refusal (in the errors' order) on connection `handle` whose record is after
    /// `after` and before `before`, of those `accept` takes: what `errors.last(where:)` with those
    /// conditions gives.
    func last(on handle: UInt16?, after: Int, before: Int, where accept: (TraceError) -> Bool) -> TraceError? {
        var end = positions.count
        if ordered {
            // The first refusal at or past `before`.
            var low = 0
            while low < end {
                let middle = (low + end) / 2
                if errors[positions[middle]].record < before { low = middle + 1 } else { end = middle }
            }
        }
        for position in positions[..<end].reversed() {
            let record = errors[position].record
            if ordered, record <= after { break }
            if errors[position].connection == handle, record < before, record > after, accept(errors[position]) {
                return errors[position]
            }
        }
        return nil
    }
}
