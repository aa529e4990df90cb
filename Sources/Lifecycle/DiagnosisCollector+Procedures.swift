import ATT
import HCI
import Wire

extension DiagnosisCollector {
    /// How soon after a procedure's completion the peer's end of the link counts as its answer to
    /// it (Formats/diagnose.md, `link-ended-after-procedure`).
    static let procedureWindow = 2.0

    /// Three rules of issue 43 §5 (what ``ProcedureTrails`` gathered): the peer ending the link
    /// right after a procedure, ATT values too long, a scan filter that cannot match a peer.
    func procedureRules(_ report: LifecycleReport, _ errors: [TraceError]) -> [Finding] {
        var findings: [Finding] = []
        for c in report.connections {
            let trail = trails.trail(c.id)
            if let finding = endedAfterProcedure(c, trail) { findings.append(finding) }
            if let trail { findings += valuesTooLong(c, trail, report, errors) }
        }
        findings += scanFiltersUnmatched(report)
        return findings
    }

    // MARK: The peer ending the link right after a procedure

    /// A procedure that completed on a link: its completion, the record that started it, and its
    /// words.
    private struct Completed {
        var record: Int
        var time: Timestamp
        var start: Int?
        /// `a data length update`, its frames' words, the likely cause and what to look at.
        var what: String
        var frames: String
        var cause: String
        var lookAt: String
    }

    /// Reasons that are not the peer ending the link of its own accord, or that another rule names:
    /// a link lost (0x08), a procedure unanswered (0x22), never established (0x3E), a MIC failure
    /// (0x3D), a missing bond (0x05, 0x06), parameters refused (0x3B).
    private static let otherEnds: Set<UInt8> = [0x08, 0x22, 0x3E, 0x3D, 0x05, 0x06, 0x3B]

    private func endedAfterProcedure(_ c: Connection, _ trail: ProcedureTrail?) -> Finding? {
        guard c.transport == .le, c.outcome == .disconnected, c.initiator == .remote, c.disconnectRequestRecord == nil,
            let end = c.disconnectRecord, let endTime = c.disconnectTime, let reason = c.reason,
            !Self.otherEnds.contains(reason.rawValue)
        else { return nil }
        guard let done = lastCompleted(c, trail, before: end) else { return nil }
        let gap = endTime.seconds(since: done.time)
        // The peer sent nothing after the procedure: its end of the link was its next word.
        let link = link(c.id)
        guard gap <= Self.procedureWindow, (link.lastReceived ?? -1) <= done.record else { return nil }
        var peer: String { c.peer.map { "\($0)" + (c.peerName.map { " \"\($0)\"" } ?? "") } ?? "The peer" }
        let name = reason.name.map { "\($0), " } ?? ""
        return Finding(
            rule: .endedAfterProcedure, record: end, time: endTime, connection: c,
            evidence: [done.start, done.record, end].compactMap { $0 },
            summary:
                "\(peer) ended the link (\(name)\(hex(reason.rawValue, digits: 2)), frame \(end + 1)) \(Wording.duration(gap)) after \(done.what) completed (\(done.frames)), and sent nothing in between: the timing points at \(done.cause).",
            coreBluetooth: disconnectionCallback(c), android: c.android,
            lookAt: done.lookAt,
            values: ["after_s": (gap * 1_000_000).rounded() / 1_000_000])
    }

    /// The last procedure that completed on `c` before record `end`: an MTU exchange, a PHY
    /// update, a data length update, an encryption start or refresh.
    private func lastCompleted(_ c: Connection, _ trail: ProcedureTrail?, before end: Int) -> Completed? {
        var last: Completed?
        func consider(_ done: Completed) {
            if done.record < end, done.record > last?.record ?? -1 { last = done }
        }
        func started(_ last: DiagnosisCollector.Procedure?, _ record: Int) -> Int? {
            last?.completeRecord == record ? last?.record : nil
        }
        for change in c.changes where change.record < end {
            switch change.kind {
            case .phy(let tx, let rx):
                let start = started(trail?.lastPHYUpdate, change.record)
                let phys =
                    tx == rx ? "\(Self.phyName(tx)) both ways" : "\(Self.phyName(tx)) out, \(Self.phyName(rx)) in"
                consider(
                    Completed(
                        record: change.record, time: change.time, start: start, what: "a PHY update",
                        frames: (start.map { "LE Set PHY at frame \($0 + 1), " } ?? "")
                            + "LE PHY Update Complete at frame \(change.record + 1): \(phys)",
                        cause: "a peer whose radio or firmware does not work on the PHY it accepted",
                        lookAt:
                            "the accessory's PHY support: it should answer the PHY request with the PHYs it really runs; an Android app can keep 1M (setPreferredPhy), iOS chooses the PHY by itself"
                    ))
            case .dataLength(let tx, let rx):
                let start = trail?.lastDataLength.flatMap { $0.change == change.record ? $0.start : nil }
                consider(
                    Completed(
                        record: change.record, time: change.time, start: start, what: "a data length update",
                        frames: (start.map { "LE Set Data Length at frame \($0 + 1), " } ?? "")
                            + "LE Data Length Change at frame \(change.record + 1): \(tx) bytes out, \(rx) in",
                        cause: "a peer firmware that cannot take the \(max(tx, rx))-byte link-layer PDUs it agreed to",
                        lookAt:
                            "the accessory's link layer and buffers: it must take the PDU lengths it agrees to in LL_LENGTH_RSP, or offer smaller ones; phones start this update by themselves, neither app can stop it"
                    ))
            case .encryption(true, _), .keyRefresh:
                let refresh = change.kind == .keyRefresh
                let start = started(trail?.lastEncryption, change.record)
                consider(
                    Completed(
                        record: change.record, time: change.time, start: start,
                        what: refresh ? "an encryption key refresh" : "the encryption",
                        frames: (start.map { "its start at frame \($0 + 1), " } ?? "")
                            + "\(refresh ? "Encryption Key Refresh Complete" : "Encryption Change") at frame \(change.record + 1)",
                        cause:
                            "a peer that does not accept the key or its security: a bond it no longer trusts, an unauthenticated or short key where it requires more",
                        lookAt:
                            "the accessory's security requirements and bond storage (the key it expects, its minimum key size, whether it requires authenticated pairing)"
                    ))
            default:
                break
            }
        }
        if let exchange = trail?.lastMTUExchange, exchange.response < end {
            consider(
                Completed(
                    record: exchange.response, time: exchange.time, start: exchange.request, what: "an MTU exchange",
                    frames: (exchange.request.map { "Exchange MTU Request at frame \($0 + 1), " } ?? "")
                        + "Exchange MTU Response at frame \(exchange.response + 1): ATT_MTU \(exchange.mtu)",
                    cause:
                        "a peer firmware that cannot handle the ATT MTU of \(exchange.mtu) it agreed to (buffers sized for 23)",
                    lookAt:
                        "the accessory's Exchange MTU Response: it should offer only the MTU its buffers take; an Android app asks with requestMtu (ask less), iOS exchanges by itself"
                ))
        }
        return last
    }

    /// `1M`, `2M`, `Coded`.
    private static func phyName(_ phy: UInt8) -> String { LEPHY(rawValue: phy).shortName }

    // MARK: ATT values too long

    private func valuesTooLong(
        _ c: Connection, _ trail: ProcedureTrail, _ report: LifecycleReport, _ errors: [TraceError]
    ) -> [Finding] {
        var findings: [Finding] = []
        for value in trail.tooLong {
            let client = value.server == .peer ? "This host's client" : "The peer's client"
            let server = value.server == .peer ? "the peer's server" : "this host's server"
            let attribute = hex(value.attribute, digits: 4)
            var summary: String
            var record = value.request
            let time = value.time
            switch value.kind {
            case .write:
                let name = ATTOpcode(rawValue: value.opcode).name ?? "a write"
                summary =
                    "\(client) sent \(name) of \(attribute) with a \(value.length)-byte value (frame \(value.request + 1))"
                var broken: [String] = []
                if value.overMTU, let mtu = value.mtu {
                    // What of the PDU is not the value: opcode and handle; a Prepare Write's
                    // offset; a Signed Write's signature.
                    let overhead = value.opcode == 0x16 ? 5 : value.opcode == 0xD2 ? 15 : 3
                    let agreed =
                        value.mtuRecord.map { "agreed at frame \($0 + 1)" }
                        ?? "LE's default: no Exchange MTU before it"
                    broken.append(
                        "longer than ATT_MTU − \(overhead) = \(Int(mtu) - overhead) (ATT_MTU \(mtu), \(agreed))")
                }
                if value.length > ProcedureTrails.maximumValue && value.opcode != 0x16 {
                    broken.append("longer than the 512 bytes an attribute value may have")
                }
                summary += ", " + broken.joined(separator: ", and ")
            case .queue:
                let first = value.evidence.first ?? value.request
                let over = value.evidence.last ?? value.request
                summary =
                    "\(client) queued Prepare Write Requests from frame \(first + 1) that make \(attribute) a \(value.length)-byte value (frame \(over + 1) takes it past 512 bytes, the most an attribute value may have), and executed them (frame \(value.request + 1))"
            case .read:
                record = value.answer ?? value.request
                summary =
                    "\(client) read \(attribute) as a long read, and \(server) handed out \(value.length) bytes of it, more than the 512 an attribute value may have (Read Blob Request at frame \(value.request + 1), its response at frame \(record + 1))"
            }
            var answer: TraceError?
            switch (value.kind, value.answer) {
            case (.read, _):
                summary += "."
            case (_, let reply?):
                if let code = value.answerError {
                    answer = errors.first { $0.record == reply && $0.layer == .att }
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
                    "; \(server) sent no answer before \(c.disconnectRecord == nil ? "the capture ended" : "the link ended")."
            }
            if value.count > 1 {
                summary += " \(value.count - 1) more like it on this connection."
            }
            let coreBluetooth: String?
            if let cb = answer?.coreBluetooth {
                coreBluetooth =
                    "\(cb.name.map { "\(cb.typeName).\($0) (\(cb.code))" } ?? "\(cb.typeName) code \(cb.code)") in \(cb.callback)"
            } else if value.server == .peer && value.kind != .read {
                coreBluetooth =
                    "none from this PDU: CoreBluetooth keeps an app's writes within maximumWriteValueLength(for:) (ATT_MTU − 3 without response, 512 with, sent as a long write), so the sender is not an iOS app's own write"
            } else {
                coreBluetooth = nil
            }
            findings.append(
                Finding(
                    rule: .valueTooLong, record: record, time: time, connection: c,
                    evidence: [value.request] + value.evidence + [value.mtuRecord, value.answer].compactMap { $0 },
                    summary: summary,
                    coreBluetooth: coreBluetooth,
                    android: answer?.android,
                    lookAt: value.kind == .read
                        ? "the accessory's value: no attribute value may exceed 512 bytes (Core 6.0, Vol 3, Part F, §3.2.9); the client should not rely on more"
                        : "the writer: each write within ATT_MTU − 3 of the MTU in force (Android: the MTU of onMtuChanged; iOS: maximumWriteValueLength(for:)), and no value over 512 bytes (Core 6.0, Vol 3, Part F, §3.2.9); a longer value goes as a long write or in pieces the accessory reassembles",
                    values: [
                        "length": Double(value.length), "count": Double(value.count),
                    ].merging(value.mtu.map { ["mtu": Double($0)] } ?? [:]) { a, _ in a }))
        }
        return findings
    }

    // MARK: A scan filter that cannot match a peer

    /// Each service UUID filter this host's controller took (Android's APCF) on a service that a
    /// peer this host then connected to has in its database (its primary services, as discovered
    /// in the capture) but never advertised while the capture's active scans heard it; once per
    /// service and peer.
    private func scanFiltersUnmatched(_ report: LifecycleReport) -> [Finding] {
        let filters = trails.scanFilters.filter { $0.status == 0 }
        guard !filters.isEmpty else { return [] }
        var findings: [Finding] = []
        var said: Set<String> = []
        for c in report.connections where c.transport == .le {
            guard let peer = c.peer, let trail = trails.trail(c.id), !trail.services.isEmpty else { continue }
            for service in trail.services {
                // The first filter on the service with a scan after it.
                guard
                    let filter = filters.first(where: { filter in
                        filter.uuid == service.uuid && filter.record < service.record
                            && report.scans.contains { $0.startTime.map { $0 >= filter.time } ?? false }
                    }),
                    !said.contains("\(service.uuid) \(peer)")
                else { continue }
                let heard = report.scans.flatMap { scan in
                    scan.devices.filter { $0.address == peer }.map { (active: scan.active == true, device: $0) }
                }
                // Heard, by an active scan (which asks for the scan response too), and never with
                // the service in its advertising.
                guard heard.contains(where: \.active),
                    !heard.contains(where: { $0.device.serviceUUIDs.contains(service.uuid) })
                else { continue }
                said.insert("\(service.uuid) \(peer)")
                var advertised: [BluetoothUUID] = []
                for (_, device) in heard {
                    for uuid in device.serviceUUIDs where !advertised.contains(uuid) { advertised.append(uuid) }
                }
                let reports = heard.reduce(0) { $0 + $1.device.reports }
                let first = heard.compactMap(\.device.firstRecord).min()
                let anyone = report.scans.contains { $0.devices.contains { $0.serviceUUIDs.contains(service.uuid) } }
                let times = filters.filter { $0.uuid == service.uuid }.count
                var summary =
                    "This host's controller was given a scan filter on the service \(service.uuid) (Android's APCF vendor command 0x\(String(ProcedureTrails.apcf, radix: 16, uppercase: true)), filter index \(filter.index), frame \(filter.record + 1)"
                summary += filter.completeRecord.map { ", accepted at frame \($0 + 1)" } ?? ""
                summary += times > 1 ? "; set \(times) times in all)" : ")"
                summary +=
                    ", but \(peer)\(c.peerName.map { " \"\($0)\"" } ?? ""), which has that service in its database (frame \(service.record + 1)), never advertised it: the capture heard it in \(Wording.count(reports, "report"))"
                summary += first.map { " (the first at frame \($0 + 1))" } ?? ""
                summary +=
                    advertised.isEmpty
                    ? " with no service UUID"
                    : " listing \(advertised.map { "\($0)" }.joined(separator: ", ")) only"
                summary += anyone ? "" : ", and no device it heard advertised \(service.uuid)"
                summary +=
                    ". A scan filtered on \(service.uuid) never reports this peer. Which app set the filter, and whether it also scanned without one, the capture does not say."
                findings.append(
                    Finding(
                        rule: .scanFilterUnmatched, record: filter.record, time: filter.time, connection: c,
                        evidence: [filter.record, filter.completeRecord, first, service.record].compactMap { $0 },
                        summary: summary,
                        coreBluetooth:
                            "scanForPeripherals(withServices:) with \(service.uuid) never calls centralManager(_:didDiscover:advertisementData:rssi:) for this peer: iOS matches the services the advertisement and scan response list, not the database",
                        lookAt:
                            "the accessory's advertising data: list \(service.uuid) in it (or in its scan response); or filter the app's scan on what it does advertise (Android: ScanFilter.Builder().setServiceUuid matches advertised UUIDs only, and onScanResult never comes for this peer)"
                    ))
            }
        }
        return findings
    }
}
