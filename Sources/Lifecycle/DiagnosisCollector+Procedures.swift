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

    /// Reasons that are not the peer ending the link of its own accord, or that another rule names:
    /// a link lost (0x08), a procedure unanswered (0x22), never established (0x3E), a MIC failure
    /// (0x3D), a missing bond (0x05, 0x06), parameters refused (0x3B).
    private static let otherEnds: Set<UInt8> = [0x08, 0x22, 0x3E, 0x3D, 0x05, 0x06, 0x3B]

    private func endedAfterProcedure(_ c: Connection, _ trail: ProcedureTrail?) -> Finding? {
        guard c.transport == .le, let disconnection = c.disconnection, disconnection.initiator == .remote,
            disconnection.request == nil, !Self.otherEnds.contains(disconnection.reason.rawValue)
        else { return nil }
        let (end, endTime, reason) = (disconnection.record, disconnection.time, disconnection.reason)
        guard let done = lastCompleted(c, trail, before: end) else { return nil }
        let gap = endTime.seconds(since: done.time)
        // The peer sent nothing after the procedure: its end of the link was its next word.
        let link = link(c.id)
        guard gap <= Self.procedureWindow, (link.lastReceived ?? -1) <= done.record else { return nil }
        return Finding(
            rule: .endedAfterProcedure, record: end, time: endTime, connection: c,
            evidence: [done.start, done.record, end].compactMap { $0 },
            facts: .endedAfterProcedure(c, procedure: done, reason: reason, after: gap), android: c.android,
            values: ["after_s": (gap * 1_000_000).rounded() / 1_000_000])
    }

    /// The last procedure that completed on `c` before record `end`: an MTU exchange, a PHY
    /// update, a data length update, an encryption start or refresh.
    private func lastCompleted(_ c: Connection, _ trail: ProcedureTrail?, before end: Int) -> Finding.Procedure? {
        var last: Finding.Procedure?
        func consider(_ done: Finding.Procedure) {
            if done.record < end, done.record > last?.record ?? -1 { last = done }
        }
        func started(_ last: DiagnosisCollector.Procedure?, _ record: Int) -> Int? {
            last?.completeRecord == record ? last?.record : nil
        }
        for change in c.changes where change.record < end {
            switch change.kind {
            case .phy(let tx, let rx):
                let start = started(trail?.lastPHYUpdate, change.record)
                consider(.init(kind: .phy(tx: tx, rx: rx), start: start, record: change.record, time: change.time))
            case .dataLength(let tx, let rx):
                let start = trail?.lastDataLength.flatMap { $0.change == change.record ? $0.start : nil }
                consider(
                    .init(kind: .dataLength(tx: tx, rx: rx), start: start, record: change.record, time: change.time))
            case .encryption(true, _), .keyRefresh:
                let refresh = change.kind == .keyRefresh
                let start = started(trail?.lastEncryption, change.record)
                consider(
                    .init(kind: .encryption(refresh: refresh), start: start, record: change.record, time: change.time))
            default:
                break
            }
        }
        if let exchange = trail?.lastMTUExchange, exchange.response < end {
            consider(
                .init(
                    kind: .mtuExchange(mtu: exchange.mtu), start: exchange.request, record: exchange.response,
                    time: exchange.time))
        }
        return last
    }

    // MARK: ATT values too long

    private func valuesTooLong(
        _ c: Connection, _ trail: ProcedureTrail, _ report: LifecycleReport, _ errors: [TraceError]
    ) -> [Finding] {
        var findings: [Finding] = []
        for value in trail.tooLong {
            let record = value.kind == .read ? value.answer ?? value.request : value.request
            let answer =
                value.kind == .read || value.answerError == nil
                ? nil : value.answer.flatMap { reply in errors.first { $0.record == reply && $0.layer == .att } }
            findings.append(
                Finding(
                    rule: .valueTooLong, record: record, time: value.time, connection: c,
                    evidence: [value.request] + value.evidence + [value.mtuRecord, value.answer].compactMap { $0 },
                    facts: .valueTooLong(c, value: value, answer: answer),
                    android: answer?.android,
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
                findings.append(
                    Finding(
                        rule: .scanFilterUnmatched, record: filter.record, time: filter.time, connection: c,
                        evidence: [filter.record, filter.completeRecord, first, service.record].compactMap { $0 },
                        facts: .scanFilterUnmatched(
                            c,
                            .init(
                                command: ProcedureTrails.apcf, service: service.uuid, serviceRecord: service.record,
                                filterIndex: filter.index,
                                filterRecord: filter.record, filterComplete: filter.completeRecord, times: times,
                                reports: reports, firstReport: first, advertised: advertised, anyoneAdvertised: anyone))
                    ))
            }
        }
        return findings
    }
}
