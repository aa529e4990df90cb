import ATT
import AndroidCodes
import CoreBluetoothCodes
import HCI
import TraceFiles
import Wire

/// One failure found in a capture, with what it answered and what an iOS app would have been
/// told.
public struct TraceError: Hashable, Sendable, Codable {
    /// The protocol whose message carried the error.
    public enum Layer: String, Hashable, Sendable, Codable { case att, hci, smp }

    /// What CoreBluetooth would report, in which domain, and how sure that is.
    public struct CoreBluetoothEquivalent: Hashable, Sendable, Codable {
        public var domain: String
        public var code: Int
        public var name: String?
        public var evidence: Evidence
        /// The delegate method that would carry it.
        public var callback: String

        /// The Swift type a CoreBluetooth app sees the error as, from its domain: `CBError`,
        /// `CBATTError` or `CBInternalError`.
        public var typeName: String {
            switch domain {
            case CBError.errorDomain: "CBError"
            case CBInternalError.errorDomain: "CBInternalError"
            default: "CBATTError"
            }
        }
    }

    public var record: Int
    public var time: Timestamp
    /// The connection handle, where the failure belongs to one.
    public var connection: UInt16?
    public var peer: BluetoothAddress?
    /// LE or BR/EDR, where the failure belongs to a connection or an attempt the capture shows.
    public var transport: Connection.Transport?
    public var layer: Layer
    public var code: UInt8
    public var name: String
    /// For ATT: the request the Error Response answers. For HCI: the command whose status this
    /// is. For SMP: nil.
    public var requestOpcode: UInt16?
    public var requestName: String?
    /// For ATT: the attribute in error, and what discovery in the capture says it is. For an
    /// error that answers a discovery request (``procedure``), the start of the range searched,
    /// and no attribute: the error is about the range, not about the attribute at its start.
    public var attributeHandle: UInt16?
    public var attribute: AttributeInfo?
    /// For ATT: the search over a range of handles the failed request was, if it was one: a
    /// discovery procedure (Core 6.0, Vol 3, Part G, §4.4-§4.7) or a Read Using Characteristic
    /// UUID (§4.8.2).
    public var procedure: Discovery?
    /// For ATT: the attribute type the search asked for, where the capture has the request.
    public var searchedType: BluetoothUUID?

    /// The searches over a range of handles, as a request's opcode and attribute type tell them
    /// apart.
    public enum Discovery: String, Hashable, Sendable, Codable {
        case services = "service discovery", includedServices = "included service discovery"
        case characteristics = "characteristic discovery", descriptors = "descriptor discovery"
        /// Read By Type of a characteristic's UUID (Read Using Characteristic UUID).
        case valueSearch = "search by characteristic UUID"
    }
    /// A normal part of a procedure, not a fault: Attribute Not Found ending a discovery, status
    /// 0x02 ending an attempt the host cancelled.
    public var expected: Bool
    public var coreBluetooth: CoreBluetoothEquivalent?
    /// Who sent it, where the capture records directions: `host` for an Error Response of this
    /// host's server or a Pairing Failed this host sent, `peer` for the peer's.
    public var sentBy: Pairing.Side?
    /// For ATT: the server that refused (``GATTServer``): the peer's refused this host's client
    /// (the app); this host's refused the peer's client, and no app callback carries it.
    public var server: GATTServer?
    /// For a refusal for security (Insufficient Authentication, Encryption, Encryption Key Size)
    /// of the peer's server: the record of the answer to the same request sent again once the
    /// link was encrypted. iOS pairs and retries by itself, so the app gets that answer instead.
    public var retryRecord: Int?
    /// For a refusal for security, and for Pairing Failed: the record of the Pairing Failed that
    /// ended the pairing it led to.
    public var pairingFailedRecord: Int?
    /// What Android's `BluetoothGattCallback` would receive for the same failure
    /// (AndroidMapping); nil where an Android app is told nothing of it (an expected error).
    public var android: AndroidStatus? = nil
}

/// Collects every ATT error, HCI failure and SMP failure of a capture, record by record, next to
/// a ``LifecycleAnalyzer`` that has already seen the record.
public struct ErrorCollector {
    /// The failures found so far, in record order. Refusals for security still waiting for what
    /// iOS makes of them (`SecurityRefusal`) are settled as of the capture's end so far.
    public var errors: [TraceError] {
        guard let lastTime, !awaitingRetry.isEmpty else { return found }
        var settled = self
        for handle in awaitingRetry.keys { settled.step(.captureEnded(lastTime), on: handle) }
        return settled.found
    }
    private var found: [TraceError] = []
    /// Refusals for security of the peer's server, per connection handle, waiting for what iOS
    /// makes of them: pairing, and the request sent again on the encrypted link.
    private var awaitingRetry: [UInt16: [Waiting]] = [:]
    private struct Waiting {
        /// The error's index in ``found``, its request's opcode and attribute.
        var error: Int
        var opcode: ATTOpcode
        var attribute: UInt16
        var refusal = SecurityRefusal()
    }
    /// The earliest time at which SMP's timer runs out for a pairing a refusal waits for
    /// (microseconds; `Int64.max` when none runs).
    private var nextDeadline = Int64.max
    /// The latest record's time while refusals wait: where the capture ends for those still
    /// waiting.
    private var lastTime: Timestamp?
    /// Links on which this host cancelled a pairing (the record of its Pairing Failed): iOS ends
    /// such a link there, so nothing after it on the link reaches an app.
    private var endedOnIOS: [UInt16: Int] = [:]

    public init() {}

    /// ATT requests whose "not found" answer ends a discovery procedure (Core 6.0, Vol 3, Part G,
    /// §4.4-§4.7): Find Information, Find By Type Value, Read By Type, Read By Group Type.
    static let discoveryRequests: Set<ATTOpcode> = [
        .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest, .readByGroupTypeRequest,
    ]

    public mutating func add(_ record: CaptureRecord, _ decoded: DecodedRecord, analyzer: LifecycleAnalyzer) {
        addWhole(record, decoded, analyzer)
    }

    /// ``add(_:_:analyzer:)`` with the record and the analyzer passed by address (inout, never
    /// changed), as ``CaptureAnalyzer`` passes them: passed by value from the fields of a struct
    /// being changed, Swift copied both (232 and 360 bytes, their references retained) for each
    /// record decoded whole.
    mutating func add(_ record: CaptureRecord, _ decoded: inout DecodedRecord, analyzer: inout LifecycleAnalyzer) {
        addWhole(record, decoded, analyzer)
    }

    @inline(__always)
    private mutating func addWhole(_ record: CaptureRecord, _ decoded: DecodedRecord, _ analyzer: LifecycleAnalyzer) {
        if !awaitingRetry.isEmpty { passTime(record.timestamp) }
        switch decoded.packet {
        case .event(let event):
            collect(event, record, analyzer)
            switch event {
            case .disconnectionComplete(_, let handle, _):
                endedOnIOS[handle] = nil
                if awaitingRetry[handle] != nil { step(.linkEnded(record.timestamp), on: handle) }
            case .unknown(let code, _) where !awaitingRetry.isEmpty && Self.changesEncryption(code):
                encryption(record, analyzer)
            default: break
            }
        case .acl(let acl):
            if let smp = decoded.smp, awaitingRetry[acl.handle] != nil, SecurityRefusal.isPairingMessage(smp.code) {
                step(.pairingMessage(record.timestamp), on: acl.handle)
            }
            if let pdu = decoded.att, case .errorResponse = pdu { collect(pdu, on: acl.handle, record, analyzer) }
            if decoded.att != nil, let answered = analyzer.lastAnswered {
                retried(answered, on: acl.handle, record, analyzer)
            }
            if let smp = decoded.smp, let reason = smp.pairingFailedReason {
                let connection = analyzer.openConnection(on: acl.handle)
                let sentBy: Pairing.Side? = record.direction.map { $0 == .sent ? .host : .peer }
                let refusal = awaitingRetry[acl.handle]?.first.map { found[$0.error].code }
                let endedBefore = endedOnIOS[acl.handle]
                if awaitingRetry[acl.handle] != nil {
                    step(
                        .pairingFailed(record.timestamp, record: record.index, byHost: sentBy == .host), on: acl.handle)
                }
                // The Pairing Failed itself: what the operation that needed the pairing gets; but
                // a pairing this host cancelled (a user's Cancel) ends the link on iOS.
                let mapped = CoreBluetoothMapping.pairingFailureError(reason: reason.rawValue, refusal: refusal)
                let cb: TraceError.CoreBluetoothEquivalent
                if let endedBefore {
                    cb = Self.afterIOSEnded(mapped.value, mapped.evidence, at: endedBefore)
                } else if sentBy == .host {
                    endedOnIOS[acl.handle] = record.index
                    let cancelled = CoreBluetoothMapping.pairingCancelledError
                    cb = TraceError.CoreBluetoothEquivalent(
                        domain: CBInternalError.errorDomain, code: cancelled.value.errorCode,
                        name: cancelled.value.code.map { "\($0)" },
                        evidence: cancelled.evidence,
                        callback:
                            "centralManager(_:didDisconnectPeripheral:error:): iOS ends the link after a cancelled pairing"
                    )
                } else {
                    cb = equivalent(mapped.value, mapped.evidence, callback: "the GATT operation that needed pairing")
                }
                found.append(
                    TraceError(
                        record: record.index, time: record.timestamp, connection: acl.handle, peer: connection?.peer,
                        transport: connection?.transport, layer: .smp, code: reason.rawValue,
                        name: reason.name ?? "\(reason)",
                        requestOpcode: nil, requestName: nil, attributeHandle: nil, attribute: nil, procedure: nil,
                        searchedType: nil, expected: false, coreBluetooth: cb, sentBy: sentBy,
                        android: AndroidMapping.pairingFailure(reason: reason.rawValue)))
            }
        default:
            break
        }
    }

    /// A request refused for security, answered again on `handle`: the retry iOS makes once the
    /// link is encrypted (`SecurityRefusal`). `answered` is the request the record answered
    /// (``LifecycleAnalyzer/lastAnswered``). The analyzer is read in place, never copied: passed
    /// by value it was copied whole (0x1a8 bytes) for every ATT record while a refusal awaited
    /// its retry.
    @inline(__always)
    private mutating func retried(
        _ answered: ATTRequest, on handle: UInt16, _ record: CaptureRecord, _ analyzer: borrowing LifecycleAnalyzer
    ) {
        // (Called only for a record that answered something: most answer nothing, and the
        // refusals' lookup hashes.)
        guard answered.server == .peer,
            let position = awaitingRetry[handle]?.firstIndex(where: {
                $0.opcode == answered.opcode && $0.attribute == answered.attributeHandle
            })
        else { return }
        guard answered.record > found[awaitingRetry[handle]![position].error].record else { return }
        step(.answeredAgain(record.timestamp, record: record.index), on: handle, only: position)
    }

    /// An Encryption Change or Key Refresh Complete while refusals wait: as the lifecycles took it
    /// (they have seen the record), encryption on, or failed.
    @inline(never)
    private mutating func encryption(_ record: CaptureRecord, _ analyzer: LifecycleAnalyzer) {
        guard let handle = (try? HCIEventParameters.decode(record.bytes))?.handle, awaitingRetry[handle] != nil,
            let id = analyzer.connectionID(on: handle), let change = analyzer.connections[id].changes.last,
            change.record == record.index
        else { return }
        switch change.kind {
        case .encryption(true, _): step(.encrypted(record.timestamp), on: handle)
        case .failed(let what, _) where what == "encryption" || what == "key refresh":
            step(.encryptionFailed(record.timestamp), on: handle)
        default: break
        }
    }

    /// Encryption Change (v1, v2) and Encryption Key Refresh Complete.
    static func changesEncryption(_ code: HCIEventCode) -> Bool {
        code == .encryptionChange || code == .encryptionChangeV2 || code == .encryptionKeyRefreshComplete
    }

    /// Time passes for the refusals waiting: SMP's timer may run out for some.
    @inline(__always)
    private mutating func passTime(_ time: Timestamp) {
        lastTime = time
        if time.microseconds >= nextDeadline { expire(at: time) }
    }

    /// The refusals whose pairing's SMP timer ran out by `time`. (Out of line: rare.)
    @inline(never)
    private mutating func expire(at time: Timestamp) {
        for handle in awaitingRetry.keys { step(.elapsed(time), on: handle) }
    }

    /// Gives `step` to the refusals waiting on `handle` (or to the one at `only`), and writes
    /// down the outcome of each it decides.
    private mutating func step(_ step: SecurityRefusal.Step, on handle: UInt16, only: Int? = nil) {
        guard var waiting = awaitingRetry[handle] else { return }
        for position in (only.map { [$0] } ?? Array(waiting.indices)).reversed() {
            guard let outcome = waiting[position].refusal.observe(step) else { continue }
            settle(found: waiting[position].error, outcome, on: handle)
            waiting.remove(at: position)
        }
        awaitingRetry[handle] = waiting.isEmpty ? nil : waiting
        nextDeadline = awaitingRetry.values.joined().compactMap { $0.refusal.deadline?.microseconds }.min() ?? .max
    }

    /// What the app gets for the refusal at `index`, as `SecurityRefusal` decided it.
    private mutating func settle(found index: Int, _ outcome: SecurityRefusal.Outcome, on handle: UInt16) {
        switch outcome {
        case .retried(let record, _):
            found[index].retryRecord = record
            found[index].expected = true
            found[index].coreBluetooth?.callback =
                "no callback: iOS paired and sent the request again, and the app got that answer (frame \(record + 1))"
            if found[index].code == 0x05 || found[index].code == 0x0F {
                found[index].android = found[index].android?.withoutCallback(
                    "BluetoothGatt paired and sent the request again, and the app got that answer (frame \(record + 1))"
                )
            }
        case .refused(.pairingFailed(let record)):
            found[index].pairingFailedRecord = record
            found[index].android = found[index].android.map { _ in
                AndroidMapping.pairingFailedRequest(TraceError.androidOperation(of: found[index]))
            }
        case .refused(.encryptionFailed), .refused(.noRetry):
            break
        case .cancelled(let record, _):
            found[index].pairingFailedRecord = record
            found[index].android = found[index].android.map { _ in
                AndroidMapping.pairingFailedRequest(TraceError.androidOperation(of: found[index]))
            }
            if endedOnIOS[handle] == nil {
                found[index].coreBluetooth?.callback =
                    "no callback: this host cancelled the pairing the refusal led to (frame \(record + 1)); iOS then ends the link, and requests in flight get no callback"
            }
        case .timedOut:
            // The same callback carries it, with another error.
            let error = CoreBluetoothMapping.pairingTimeoutError
            found[index].coreBluetooth?.code = error.value.errorCode
            found[index].coreBluetooth?.name = error.value.name
            found[index].coreBluetooth?.evidence = error.evidence
        case .unfinished(let linkEnded):
            found[index].coreBluetooth?.callback =
                linkEnded
                ? "no callback: the pairing the refusal led to was still going when the link ended, and the request ended with it"
                : "no callback yet: the pairing the refusal led to was still going when the capture ended, and the request waits for it"
        }
    }

    /// Adds a record in its quick form (``TraceDecoder/decode(_:into:)``), next to a
    /// ``LifecycleAnalyzer`` that has already seen it, with the same effect as its full decoding.
    /// None is a failure: the quick ATT PDUs are no Error Responses, and the events that report
    /// one (Command Status and Complete, connection and disconnection completions) are never
    /// quick. (`analyzer` is inout only to be passed by address, as ``CaptureAnalyzer`` needs; it
    /// is not changed.)
    @inline(__always)
    public mutating func add(_ quick: QuickRecord, _ record: CaptureRecord, analyzer: inout LifecycleAnalyzer) {
        // With no refusal for security waiting (most of a capture), a quick record changes
        // nothing: an inlined test instead of a call. While one waits (a third of the generated
        // capture), time passes for SMP's timer, an answer may be its retry, and an encryption
        // event may be the pairing's end.
        guard !awaitingRetry.isEmpty else { return }
        passTime(record.timestamp)
        switch quick {
        case .att(let handle, _, _, _) where analyzer.lastAnswered != nil:
            // A Read Response may answer a read refused for security before.
            retriedQuick(on: handle, record, &analyzer)
        case .event(let code) where Self.changesEncryption(code):
            encryption(record, analyzer)
        default:
            break
        }
    }

    /// ``add(_:_:analyzer:)`` of a quick ATT PDU that answered a request while a refusal awaits
    /// its retry.
    @inline(never)
    private mutating func retriedQuick(on handle: UInt16, _ record: CaptureRecord, _ analyzer: inout LifecycleAnalyzer)
    {
        if let answered = analyzer.lastAnswered { retried(answered, on: handle, record, analyzer) }
    }

    /// An ATT Error Response on connection `handle`. (The connection is looked up only here: most
    /// ACL records carry no failure.)
    private mutating func collect(
        _ pdu: ATTPDU, on handle: UInt16, _ record: CaptureRecord, _ analyzer: LifecycleAnalyzer
    ) {
        guard case .errorResponse(let request, let attribute, let code) = pdu else { return }
        let connection = analyzer.openConnection(on: handle)
        let mapped = CoreBluetoothMapping.attError(code)
        // The request this answers, as the tracker paired it, tells a discovery apart
        // from a Read Using Characteristic UUID (both Read By Type).
        let asked = analyzer.lastAnswered?.opcode == request ? analyzer.lastAnswered : nil
        let procedure = Self.discovery(request, type: asked?.type)
        // Sent by this host: its own server refused the peer's client.
        let server = GATTServer(.response, direction: record.direction)
        let info = procedure == nil ? analyzer.att.attribute(attribute, on: handle, server: server) : nil
        if server == .peer, SecurityRefusal.asksForSecurity(code) {
            awaitingRetry[handle, default: []].append(
                Waiting(error: found.count, opcode: request, attribute: attribute))
        }
        // A search for secondary services (Read By Group Type of 0x2801), as BlueZ makes after the
        // primary ones: a server with none may answer Unsupported Group Type, which ends it.
        let secondarySearch = request == .readByGroupTypeRequest && asked?.type == .secondaryService
        let callback: String
        if let ended = endedOnIOS[handle] {
            callback = Self.afterIOSEnded(at: ended)
        } else if secondarySearch, server == .peer {
            callback =
                "no callback: the captured host searched for secondary services, which discoverServices does not (they reach apps as included services)"
        } else if server == .local {
            callback =
                "no callback: this host's server sent it to the peer's client (the system answers for its own services and unknown handles; a peripheral-manager app answers its services with respond(to:withResult:))"
        } else if procedure == nil, let service = analyzer.att.service(containing: attribute, on: handle),
            service.isStackService
        {
            // Generic Access and Generic Attribute: the stack's own procedures (iOS hides both
            // services from apps and reads and writes them itself).
            callback =
                "no callback: the stack's own request to \(service == .genericAccess ? "Generic Access" : "Generic Attribute") (iOS keeps both services to itself)"
        } else if let write = analyzer.lastRefusedSubscription, write.value & 0x3 == 0, !write.wasSubscribed {
            // A host other than iOS (Android's stack writes 0 to CCCDs it may never have set):
            // CoreBluetooth answers setNotifyValue(false) on what is not notifying at once, with
            // no write, so no app would meet this refusal.
            callback =
                "no callback: iOS would not have made this write (the notifications were not on; setNotifyValue(false) is answered at once, with nothing sent)"
        } else if procedure == nil, info == nil,
            analyzer.att.attributes(on: handle).values.contains(where: { $0.role == .service })
        {
            // Discovery revealed the peer's database, and this attribute is not in it. (With no
            // service revealed, a replay infers the database from the traffic: Formats/cassette.md.)
            callback =
                "no callback: the attribute is not in the database discovery revealed, and a CoreBluetooth app cannot address it (the captured stack used the handle directly)"
        } else {
            callback = self.callback(for: request, procedure, info)
        }
        var error =
            TraceError(
                record: record.index, time: record.timestamp, connection: handle, peer: connection?.peer,
                transport: connection?.transport, layer: .att, code: code.rawValue, name: code.name ?? "\(code)",
                requestOpcode: UInt16(request.rawValue), requestName: request.name,
                attributeHandle: attribute, attribute: info, procedure: procedure,
                searchedType: procedure == nil ? nil : asked?.type,
                expected: code == .attributeNotFound && Self.discoveryRequests.contains(request)
                    || secondarySearch && code == .unsupportedGroupType,
                coreBluetooth: equivalent(mapped.value, mapped.evidence, callback: callback),
                sentBy: record.direction.map { $0 == .sent ? .host : .peer }, server: server)
        error.android = error.androidView()
        found.append(error)
    }

    private mutating func collect(_ event: HCIEvent, _ record: CaptureRecord, _ analyzer: LifecycleAnalyzer) {
        func hci(
            _ status: HCIStatus, command: HCIOpcode?, connection: UInt16?, peer: BluetoothAddress?,
            transport: Connection.Transport? = nil, expected: Bool = false,
            cb: TraceError.CoreBluetoothEquivalent? = nil,
            android: AndroidStatus? = nil
        ) {
            found.append(
                TraceError(
                    record: record.index, time: record.timestamp, connection: connection, peer: peer,
                    transport: transport, layer: .hci,
                    code: status.rawValue, name: status.name ?? "\(status)", requestOpcode: command?.rawValue,
                    requestName: command?.name, attributeHandle: nil, attribute: nil, procedure: nil,
                    searchedType: nil, expected: expected,
                    coreBluetooth: cb, android: android))
        }
        switch event {
        case .commandStatus(let status, _, let opcode) where status != .success:
            var cb: TraceError.CoreBluetoothEquivalent?
            var android: AndroidStatus?
            if opcode == .leCreateConnection || opcode == .leExtendedCreateConnection {
                let mapped = CoreBluetoothMapping.connectionFailureError(status: status)
                cb = equivalent(mapped.value, mapped.evidence, callback: "centralManager(_:didFailToConnect:error:)")
                android = TraceError.refusedConnect(status)
            }
            hci(status, command: opcode, connection: nil, peer: nil, cb: cb, android: android)
        case .commandComplete(_, let opcode, _):
            if let status = event.status, status != .success {
                hci(status, command: opcode, connection: nil, peer: nil)
            }
        case .le(.connectionComplete(let complete)) where complete.status != .success:
            // The analyzer has already closed the attempt this completion ends.
            let attempt = analyzer.connections.last { $0.completion?.record == record.index }
            let cancelled = attempt?.outcome == .cancelled
            var cb: TraceError.CoreBluetoothEquivalent?
            if !cancelled, let mapped = attempt?.cbError, let error = mapped.value {
                cb = equivalent(error, mapped.evidence, callback: "centralManager(_:didFailToConnect:error:)")
            } else if !cancelled, attempt?.failedEstablishment != nil {
                cb = Self.establishmentRetried(callback: "centralManager(_:didFailToConnect:error:)")
            }
            hci(
                complete.status, command: nil, connection: nil, peer: attempt?.peer, transport: .le,
                expected: cancelled, cb: cb, android: attempt?.android)
        case .connectionComplete(let status, _, let address, _) where status != .success:
            // BR/EDR: CoreBluetooth has no equivalent.
            hci(status, command: nil, connection: nil, peer: address, transport: .classic)
        case .disconnectionComplete(let status, let handle, let reason):
            if status != .success {
                hci(status, command: .disconnect, connection: handle, peer: nil)
                break
            }
            // Only disconnections this host did not ask for are failures.
            guard let connection = analyzer.connections.last(where: { $0.disconnection?.record == record.index }),
                connection.disconnection?.initiator == .remote
            else { break }
            var cb: TraceError.CoreBluetoothEquivalent?
            if connection.transport == .le, let mapped = connection.cbError, let error = mapped.value {
                cb = equivalent(error, mapped.evidence, callback: "centralManager(_:didDisconnectPeripheral:error:)")
            } else if connection.failedEstablishment != nil {
                cb = Self.establishmentRetried(callback: "centralManager(_:didDisconnectPeripheral:error:)")
            }
            hci(
                reason, command: nil, connection: handle, peer: connection.peer, transport: connection.transport,
                cb: cb, android: connection.android)
        default:
            break
        }
    }

    /// The callback of what came after this host cancelled a pairing on the link at `record`.
    static func afterIOSEnded(at record: Int) -> String {
        "no callback: iOS had ended this link when this host cancelled a pairing (frame \(record + 1)); the capture's host kept it"
    }

    private static func afterIOSEnded(_ error: CBATTError, _ evidence: Evidence, at record: Int)
        -> TraceError.CoreBluetoothEquivalent
    {
        TraceError.CoreBluetoothEquivalent(
            domain: CBATTError.errorDomain, code: error.errorCode, name: error.name, evidence: evidence,
            callback: afterIOSEnded(at: record))
    }

    /// A connection that failed to be established (0x3E) under the default reading, where iOS
    /// tries again and calls nothing: the error is the one the other reading gives, and the
    /// callback says no callback comes (EstablishmentFailure).
    static func establishmentRetried(callback: String) -> TraceError.CoreBluetoothEquivalent {
        let error = EstablishmentFailure.failError
        return TraceError.CoreBluetoothEquivalent(
            domain: CBError.errorDomain, code: error.value.errorCode, name: error.value.name,
            evidence: error.evidence, callback: EstablishmentFailure.retried(failing: callback, namingError: false))
    }

    private func equivalent(_ error: ConnectionError, _ evidence: Evidence, callback: String)
        -> TraceError.CoreBluetoothEquivalent
    {
        TraceError.CoreBluetoothEquivalent(
            domain: error.domain, code: error.errorCode, name: error.name, evidence: evidence, callback: callback)
    }

    private func equivalent(_ error: CBError, _ evidence: Evidence, callback: String)
        -> TraceError.CoreBluetoothEquivalent
    {
        TraceError.CoreBluetoothEquivalent(
            domain: CBError.errorDomain, code: error.errorCode, name: error.name, evidence: evidence, callback: callback
        )
    }

    private func equivalent(_ error: CBATTError, _ evidence: Evidence, callback: String)
        -> TraceError.CoreBluetoothEquivalent
    {
        TraceError.CoreBluetoothEquivalent(
            domain: CBATTError.errorDomain, code: error.errorCode, name: error.name, evidence: evidence,
            callback: callback)
    }

    /// The discovery procedure of a request: Read By Group Type and Find By Type Value find
    /// services, Read By Type of 0x2802 included services and of 0x2803 characteristics, Find
    /// Information descriptors. A Read By Type of another type reads values (Read Using
    /// Characteristic UUID, as Android does for Server Supported Features); of an unknown type (the
    /// request not in the capture), it is taken as characteristic discovery, by far the commonest.
    static func discovery(_ request: ATTOpcode, type: BluetoothUUID?) -> TraceError.Discovery? {
        switch request {
        case .readByGroupTypeRequest, .findByTypeValueRequest: .services
        case .findInformationRequest: .descriptors
        case .readByTypeRequest:
            switch type {
            case .includedService: .includedServices
            case .characteristicDeclaration, nil: .characteristics
            default: .valueSearch
            }
        default: nil
        }
    }

    /// The CoreBluetooth callback that carries an ATT error for a request.
    private func callback(for request: ATTOpcode, _ procedure: TraceError.Discovery?, _ attribute: AttributeInfo?)
        -> String
    {
        switch procedure {
        case .services: return "peripheral(_:didDiscoverServices:)"
        case .includedServices: return "peripheral(_:didDiscoverIncludedServicesFor:error:)"
        case .characteristics: return "peripheral(_:didDiscoverCharacteristicsFor:error:)"
        case .descriptors: return "peripheral(_:didDiscoverDescriptorsFor:error:)"
        case .valueSearch: return "no delegate method: CoreBluetooth offers apps no read by characteristic UUID"
        case nil: break
        }
        if request == .writeRequest, attribute?.uuid == .clientCharacteristicConfiguration {
            return "peripheral(_:didUpdateNotificationStateFor:error:)"
        }
        return switch request {
        case .readRequest, .readBlobRequest, .readMultipleRequest, .readMultipleVariableRequest, .readByTypeRequest:
            "peripheral(_:didUpdateValueFor:error:)"
        case .writeRequest, .prepareWriteRequest, .executeWriteRequest:
            "peripheral(_:didWriteValueFor:error:)"
        default:
            "the delegate method of the operation"
        }
    }
}
