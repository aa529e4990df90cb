import ATT
import AndroidCodes
import CoreBluetoothCodes
import HCI
import Wire

extension DiagnosisCollector {
    /// Every finding of the capture, most serious first: the rules of ``DiagnosisRule`` applied
    /// to the lifecycles (`report`), the errors (`errors`) and what this collector gathered.
    package func findings(report: LifecycleReport, errors: [TraceError]) -> [Finding] {
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
            if let again = indication.rediscovery {
                findings.append(
                    Finding(
                        rule: .rediscoveryAfterServiceChanged, record: indication.record, time: time, connection: c,
                        evidence: [indication.record, again],
                        facts: .rediscoveryAfterServiceChanged(start: start, end: end, rediscovery: again)))
            } else {
                findings.append(
                    Finding(
                        rule: .serviceChangedIgnored, record: indication.record, time: time, connection: c,
                        evidence: [indication.record],
                        facts: .serviceChangedIgnored(start: start, end: end, linkEnded: c.disconnection != nil)))
            }
        }
        return findings
    }

    // MARK: Why each link ended

    private func linkEnd(_ c: Connection, _ link: Link, _ report: LifecycleReport, _ refusals: Refusals) -> [Finding] {
        var findings: [Finding] = []
        // Never established: status 0x3E on the completion, or as the reason right after it.
        if c.completion?.status == .connectionFailedToBeEstablished
            || c.disconnection?.reason == .connectionFailedToBeEstablished,
            let record = c.disconnection?.record ?? c.completion?.record,
            let time = c.disconnection?.time ?? c.completion?.time
        {
            let features = link.failed.filter { $0.status == .connectionFailedToBeEstablished }
            let exchange = features.first.flatMap { first in first.completeRecord.map { (first.name, $0) } }
            findings.append(
                Finding(
                    rule: .failedToEstablish, record: record, time: time, connection: c,
                    evidence: [c.attempt?.record, c.completion?.record, c.disconnection?.record].compactMap { $0 }
                        + features.compactMap(\.completeRecord),
                    facts: .failedToEstablish(c, exchange: exchange?.0, exchangeComplete: exchange?.1),
                    android: c.android))
        }
        guard let disconnection = c.disconnection else { return findings }
        let (record, time, reason) = (disconnection.record, disconnection.time, disconnection.reason)
        // This host sent HCI Disconnect: it ended the link, whatever the completion's reason (a
        // controller whose terminate went unacknowledged reports 0x08 or 0x22), and no loss of the
        // link is the peer's.
        let hostEnded = disconnection.request != nil
        // (0x00, Success, is never a disconnection's reason: no rule below.)
        switch hostEnded && [0x08, 0x22, 0x3B, 0x3D].contains(reason.rawValue) ? 0x00 : reason.rawValue {
        case 0x08:
            let update = c.changes.last { change in
                if case .parameters = change.kind {
                    return change.record < record && time.seconds(since: change.time) <= 5
                }
                return false
            }
            var evidence = [record]
            var pendingUpdate: Int?
            if let update, case .parameters = update.kind {
                evidence.append(update.record)
            } else if let pending = link.pending.last(where: { $0.name == "connection update" }),
                let started = pending.record
            {
                pendingUpdate = started
                evidence.append(started)
            }
            if let last = link.lastReceived, link.lastReceivedTime != nil { evidence.append(last) }
            let timeout = c.parameters(after: record)?.supervisionTimeout
            // Data from the peer longer ago than the timeout: the link lived on link-layer
            // packets HCI does not show, and the peer fell silent only in the timeout's span.
            let outlived =
                timeout.map { timeout in
                    link.lastReceivedTime.map { time.seconds(since: $0) > Double(timeout) * 0.01 } ?? false
                } ?? false
            findings.append(
                Finding(
                    rule: .supervisionTimeout, record: record, time: time, connection: c, evidence: evidence,
                    facts: .supervisionTimeout(
                        c, update: update, pendingUpdate: pendingUpdate,
                        lastReceived: link.lastReceivedTime == nil ? nil : link.lastReceived,
                        lastReceivedTime: link.lastReceived == nil ? nil : link.lastReceivedTime, timeout: timeout,
                        outlivedSilence: outlived),
                    android: c.android))
        case 0x22:
            var evidence = [record]
            var facts = Finding.Facts.llResponseTimeout(
                c, failed: nil, failedComplete: nil, failedStart: nil, pending: nil, pendingStart: nil)
            if let failed = link.failed.last(where: { $0.status == .llResponseTimeout }),
                let complete = failed.completeRecord
            {
                facts = .llResponseTimeout(
                    c, failed: failed.name, failedComplete: complete, failedStart: failed.record, pending: nil,
                    pendingStart: nil)
                evidence += [complete] + (failed.record.map { [$0] } ?? [])
            } else if let pending = link.pending.last, let started = pending.record {
                facts = .llResponseTimeout(
                    c, failed: nil, failedComplete: nil, failedStart: nil, pending: pending.name, pendingStart: started)
                evidence.append(started)
            }
            findings.append(
                Finding(
                    rule: .llResponseTimeout, record: record, time: time, connection: c, evidence: evidence,
                    facts: facts, android: c.android))
        case 0x06, 0x05:
            findings.append(bondMissing(c, link, report, record: record, time: time, reason: reason))
        case 0x3D:
            // Encryption started and not completed: the keys the two sides used differ.
            let encryption = link.pending.last { $0.name == "encryption" }?.record
            findings.append(
                Finding(
                    rule: .micFailure, record: record, time: time, connection: c,
                    evidence: [record] + (encryption.map { [$0] } ?? []),
                    facts: .micFailure(c, encryptionStart: encryption), android: c.android))
        case 0x3B:
            let request = link.parameterRequests.last { $0.record < record }
            findings.append(
                Finding(
                    rule: .unacceptableParameters, record: record, time: time, connection: c,
                    evidence: [record] + (request.map { [$0.record] } ?? []),
                    facts: .unacceptableParameters(c, request: request), android: c.android))
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
            guard elapsed >= 29.5, elapsed <= 40, disconnection.initiator == (hostWaited ? .local : .remote),
                hostEnded || ![0x08, 0x22, 0x3E].contains(reason.rawValue)
            else { continue }
            findings.append(
                Finding(
                    rule: .attTimeout, record: record, time: time, connection: c, evidence: [request.record, record],
                    facts: .attTimeout(c, request: request, hostWaited: hostWaited),
                    android: hostWaited ? c.android : nil))
        }
        // The host giving up right after a refused request (not the link iOS ends after a pairing
        // this host cancelled: that is the pairing's finding).
        if disconnection.initiator == .local,
            !c.pairings.contains(where: { $0.outcome == .failed && $0.failedBy == .host }),
            let refusal = refusals.last(
                on: c.handle, after: c.completion?.record ?? -1, before: record,
                where: { time.seconds(since: $0.time) <= 2 })
        {
            findings.append(
                Finding(
                    rule: .gaveUpAfterRefusal, record: record, time: time, connection: c,
                    evidence: [refusal.record, record], facts: .gaveUpAfterRefusal(refusal: refusal),
                    android: refusal.android))
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
        let paired = pairing.flatMap { pairing in earlier.map { ($0.id, pairing.record) } }
        return Finding(
            rule: .bondMissing, record: record, time: time, connection: c,
            evidence: [record] + [failed?.record, c.disconnection?.record, pairing?.record].compactMap { $0 },
            facts: .bondMissing(reason: reason, pairedOn: paired?.0, pairing: paired?.1),
            android: c.android)
    }

    // MARK: Security

    private func security(_ c: Connection, _ link: Link, _ report: LifecycleReport, _ errors: [TraceError]) -> [Finding]
    {
        var findings: [Finding] = []
        for pairing in c.pairings {
            switch pairing.outcome {
            case .unfinished:
                let ended = c.disconnection?.record
                findings.append(
                    Finding(
                        rule: .pairingUnfinished, record: pairing.record, time: pairing.time, connection: c,
                        evidence: [pairing.record] + (ended.map { [$0] } ?? []),
                        facts: .pairingUnfinished(pairing, linkEnd: ended)))
            case .failed:
                let record = pairing.endRecord ?? pairing.record
                let refusal = pairing.causeRecord.flatMap { cause in
                    errors.first { $0.record == cause && $0.layer == .att }?.code
                }
                let mapped = pairing.failureReason.map {
                    CoreBluetoothMapping.pairingFailureError(reason: $0, refusal: refusal)
                }
                findings.append(
                    Finding(
                        rule: .pairingFailed, record: record, time: pairing.endTime ?? pairing.time, connection: c,
                        evidence: [pairing.record, record] + (pairing.causeRecord.map { [$0] } ?? []),
                        facts: .pairingFailed(pairing, error: mapped),
                        android: pairing.failureReason.map { AndroidMapping.pairingFailure(reason: $0) }))
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
                        facts: .bondNotKept(connection: c.id, before: before, bonded: bonded)))
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
        var evidence = [record]
        if let pairing, let request = pairing.requestRecord, let response = pairing.responseRecord,
            pairing.requestMaxKeySize != nil, pairing.responseMaxKeySize != nil, pairing.keySize != nil
        {
            evidence += [request, response] + (pairing.endRecord.map { [$0] } ?? [])
        }
        return Finding(
            rule: .shortKey, record: record, time: time, connection: c, evidence: evidence,
            facts: .shortKey(c, size: size, via: via, pairing: pairing),
            values: ["key_size": Double(size)])
    }

    // MARK: GATT

    private func discoveryRepeated(_ report: LifecycleReport) -> [Finding] {
        // Each peer's connections by their place in the report: a copy of each connection here
        // was a second copy of the report (512 bytes a connection, and the array's spare room).
        var byPeer: [BluetoothAddress: [Int]] = [:]
        var order: [BluetoothAddress] = []
        for (index, c) in report.connections.enumerated() where c.completion?.status == .success {
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
                    rule: .discoveryRepeated, record: procedure.record ?? second.completion?.record ?? 0,
                    time: procedure.start, connection: second,
                    evidence: discovered.compactMap {
                        report.connections[$0].discoveryProcedures.first(where: { $0.kind == .services })?.record
                    },
                    facts: .discoveryRepeated(
                        peer: peer, connections: connections.count,
                        discovered: discovered.map { report.connections[$0].id }, total: total),
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
                        return (c.completion?.record ?? -1) < error.record
                            && (c.disconnection?.record ?? .max) > error.record
                    }
                }.map { report.connections[$0] }
            }
            let cb = error.coreBluetooth
            if let callback = cb?.callback, callback.hasPrefix("no callback: the attribute is not in the database") {
                findings.append(
                    Finding(
                        rule: .outsideDatabase, record: error.record, time: error.time, connection: connection,
                        evidence: [error.record], facts: .outsideDatabase(error), android: error.android))
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
                        facts: .securityRefusalNotRetried(error), android: error.android))
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
                    facts: .refused(error, subscription: subscription), android: error.android))
        }
        return findings
    }

    // MARK: Connection parameters

    /// A way connection parameters break what Apple's Accessory Design Guidelines (§ "Connection
    /// Parameters") ask of an accessory, with the figures that break it (milliseconds, but the
    /// timeout's range in seconds). `requested`: said of a request's bounds (else of a link's one
    /// interval).
    public enum GuidelineViolation: Hashable, Sendable, Codable {
        /// The interval (a request's minimum) is under 15 ms.
        case intervalUnder15(ms: Double, requested: Bool)
        /// A request's minimum interval is not a multiple of 15 ms.
        case intervalMinNotMultipleOf15(ms: Double)
        /// A request's maximum interval is not 15 ms above its minimum (nor are both 15 ms).
        case intervalMaxTooClose(maxMS: Double, minMS: Double)
        /// The peripheral latency is over 30.
        case latencyOver30(UInt16)
        /// The supervision timeout is not between 2 s and 6 s.
        case timeoutOutOfRange(seconds: Double)
        /// Interval (a request's maximum) × (latency + 1) is over 2 s.
        case effectiveIntervalOver2s(ms: Double, requested: Bool)
        /// The supervision timeout is not above 3 × interval × (latency + 1).
        case timeoutNotAboveEffective(timeoutMS: Double, threeTimesMS: Double, requested: Bool)
    }

    /// What Apple's Accessory Design Guidelines (§ "Connection Parameters") ask of the parameters
    /// an accessory requests, which `intervalMin`…`intervalMax` (1.25 ms units), `latency` and
    /// `timeout` (10 ms units) break. `requested`: the two interval bounds of a request (else the
    /// one interval of a link).
    package static func appleGuidelineViolations(
        intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, timeout: UInt16, requested: Bool
    ) -> [GuidelineViolation] {
        var broken: [GuidelineViolation] = []
        let minMS = Double(intervalMin) * 1.25, maxMS = Double(intervalMax) * 1.25, timeoutMS = Double(timeout) * 10
        let effective = maxMS * Double(Int(latency) + 1)
        if minMS < 15 { broken.append(.intervalUnder15(ms: minMS, requested: requested)) }
        if requested, intervalMin % 12 != 0 { broken.append(.intervalMinNotMultipleOf15(ms: minMS)) }
        if requested, !(maxMS >= minMS + 15 || (intervalMin == 12 && intervalMax == 12)) {
            broken.append(.intervalMaxTooClose(maxMS: maxMS, minMS: minMS))
        }
        if latency > 30 { broken.append(.latencyOver30(latency)) }
        if timeoutMS < 2000 || timeoutMS > 6000 { broken.append(.timeoutOutOfRange(seconds: timeoutMS / 1000)) }
        if effective > 2000 { broken.append(.effectiveIntervalOver2s(ms: effective, requested: requested)) }
        if !(timeoutMS > effective * 3) {
            broken.append(
                .timeoutNotAboveEffective(timeoutMS: timeoutMS, threeTimesMS: effective * 3, requested: requested))
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
            findings.append(
                Finding(
                    rule: .requestedParameters, record: request.record, time: request.time, connection: c,
                    evidence: [request.record] + (request.rejectedRecord.map { [$0] } ?? []),
                    facts: .requestedParameters(request, broken: broken),
                    values: [
                        "interval_min_ms": Double(request.intervalMin) * 1.25,
                        "interval_max_ms": Double(request.intervalMax) * 1.25,
                        "latency": Double(request.latency), "supervision_timeout_ms": Double(request.timeout) * 10,
                    ]))
        }
        // What the link ran with: at completion, then after each update.
        var sets: [(record: Int, time: Timestamp, interval: UInt16, latency: UInt16, timeout: UInt16)] = []
        if let record = c.completion?.record, let time = c.completion?.time, let interval = c.interval,
            let latency = c.latency,
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
                    facts: .linkParameters(
                        interval: set.interval, latency: set.latency, timeout: set.timeout, broken: broken),
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
        guard c.completion?.status == .success || c.beganBeforeCapture,
            !link.latencies.isEmpty || c.att.notifications > 0 || link.gaps > 0,
            let record = c.completion?.record ?? link.firstTraffic
        else { return nil }
        var values: [String: Double] = [:]
        values.reserveCapacity(9)
        var evidence = [record]
        var latencies: [Double] = []
        if let (low, median, p95, high) = Self.quantiles(link.latencies.seconds) {
            latencies = [low, median, p95, high]
            // (The keys spelled whole: literals, where made by interpolation each was a new string.)
            let figures = [
                ("latency_ms_min", low), ("latency_ms_median", median), ("latency_ms_p95", p95),
                ("latency_ms_max", high),
            ]
            for (key, value) in figures { values[key] = (value * 1_000_000).rounded() / 1000 }
            values["requests"] = Double(link.latencies.count)
        }
        let start = c.completion?.time ?? report.firstTime
        let end = c.disconnection?.time ?? report.lastTime
        var perSecond: Double?
        if c.att.notifications > 0 {
            values["notifications"] = Double(c.att.notifications)
            if let start, let end, end > start {
                let rate = Double(c.att.notifications) / end.seconds(since: start)
                values["notifications_per_s"] = (rate * 1000).rounded() / 1000
                perSecond = rate
            }
        }
        if let longest = link.longestGap {
            values["gaps"] = Double(link.gaps)
            values["longest_gap_s"] = (longest.seconds * 1000).rounded() / 1000
            evidence += [longest.from, longest.to]
        }
        return Finding(
            rule: .traffic, record: record,
            time: c.completion?.time ?? link.firstTrafficTime ?? start ?? Timestamp(microseconds: 0), connection: c,
            evidence: evidence,
            facts: .traffic(
                requests: latencies.isEmpty ? 0 : link.latencies.count, latencies: latencies,
                notifications: c.att.notifications, perSecond: perSecond, gaps: link.gaps,
                longestGap: link.longestGap?.seconds, gapFrom: link.longestGap?.from, gapTo: link.longestGap?.to),
            values: values)
    }
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
