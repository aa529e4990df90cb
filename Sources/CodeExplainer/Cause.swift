import ATT
import AndroidCodes
import CoreBluetoothCodes
import HCI
import Wire

/// Something on the wire (or its absence) that makes an app see a code, with what each platform
/// reports for it: the rows of `AndroidMapping` and `CoreBluetoothMapping` read backwards.
package struct Cause: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        /// A disconnection with the HCI reason; `requestedByApp` when this host asked for it.
        case disconnection(HCIStatus, requestedByApp: Bool)
        /// A connection attempt whose completion failed with the status.
        case connectFailed(HCIStatus)
        /// An attempt the host cancelled at Android's 30-s direct-connection timeout.
        case connectTimedOut
        /// A connect with no HCI attempt at all: the phone's stack refused it.
        case connectRefusedLocally
        /// An ATT Error Response from the peer's server.
        case attError(ATTErrorCode)
        /// An SMP Pairing Failed with the reason.
        case pairingFailed(UInt8)
    }

    package var kind: Kind

    package init(_ kind: Kind) { self.kind = kind }

    /// What it is, in a line: `disconnection with HCI reason 0x08 Connection Timeout`.
    package var summary: String {
        switch kind {
        case .disconnection(_, requestedByApp: true):
            return "a disconnection the app asked for"
        case .disconnection(let reason, _):
            return "a disconnection with HCI reason \(hex(reason.rawValue, digits: 2)) \(reason.name ?? "(unnamed)")"
        case .connectFailed(let status):
            return
                "a connection attempt that failed with HCI status \(hex(status.rawValue, digits: 2)) \(status.name ?? "(unnamed)")"
        case .connectTimedOut:
            return "a connection attempt the phone's stack cancelled after 30 s (the peer never answered)"
        case .connectRefusedLocally:
            return "a connect the phone's stack refused before any HCI command"
        case .attError(let code):
            return "the peer's ATT error \(hex(code.rawValue, digits: 2)) \(code.name ?? "(reserved)")"
        case .pairingFailed(let reason):
            return
                "a failed pairing: SMP Pairing Failed, reason \(hex(reason, digits: 2)) \(SMPPairingFailedReason(rawValue: reason).name ?? "(reserved)")"
        }
    }

    /// What it leaves in an HCI trace: what to look for.
    package var trace: String {
        switch kind {
        case .disconnection(_, requestedByApp: true):
            return
                "HCI Disconnect (command 0x0406) from this host for the handle, then Disconnection Complete (event 0x05), whose reason most controllers give as 0x16"
        case .disconnection(let reason, _):
            return
                "Disconnection Complete (event 0x05) with reason \(hex(reason.rawValue, digits: 2)), and no HCI Disconnect from this host before it"
        case .connectFailed(let status):
            return
                "LE Create Connection (0x200D or 0x2043), then LE Connection Complete (LE Meta event 0x01 or 0x0A) with status \(hex(status.rawValue, digits: 2))"
        case .connectTimedOut:
            return
                "LE Create Connection, LE Create Connection Cancel (0x200E) about 30 s later with no advertising from the peer in between, then LE Connection Complete with status 0x02"
        case .connectRefusedLocally:
            return
                "nothing: no LE Create Connection for the peer after the app's connectGatt (logcat shows why: bt_stack, BtGatt.GattService)"
        case .attError(let code):
            return
                "an ATT Error Response (opcode 0x01) from the peer with error code \(hex(code.rawValue, digits: 2)), naming the request and the handle it refuses"
        case .pairingFailed(let reason):
            return
                "SMP Pairing Failed (code 0x05, L2CAP channel 0x0006) with reason \(hex(reason, digits: 2)), from either side"
        }
    }

    /// What Android reports for it.
    package var android: AndroidStatus? {
        switch kind {
        case .disconnection(let reason, let requested):
            AndroidMapping.disconnection(reason: reason, requestedByApp: requested)
        case .connectFailed(let status): AndroidMapping.connectionFailure(status: status)
        case .connectTimedOut: AndroidMapping.cancelledAttempt(after: AndroidMapping.directConnectTimeout)
        case .connectRefusedLocally: AndroidMapping.connectRefusedLocally
        case .attError(let code): AndroidMapping.attError(code, operation: .readCharacteristic).inRequestsCallback
        case .pairingFailed(let reason): AndroidMapping.pairingFailure(reason: reason)
        }
    }

    /// What iOS reports for it: the delegate method and error, with the grade.
    package var ios: IOSView {
        switch kind {
        case .disconnection(let reason, false) where reason == .connectionFailedToBeEstablished:
            return Self.establishmentRetried("centralManager(_:didDisconnectPeripheral:error:)")
        case .connectFailed(let status) where status == .connectionFailedToBeEstablished:
            return Self.establishmentRetried("centralManager(_:didFailToConnect:error:)")
        case .disconnection(let reason, let requested):
            let mapped = CoreBluetoothMapping.disconnectionError(reason: reason, requestedByApp: requested)
            return IOSView(
                domain: mapped.value?.domain, code: mapped.value?.errorCode, name: mapped.value?.name,
                callback: "centralManager(_:didDisconnectPeripheral:error:)", evidence: mapped.evidence.rawValue)
        case .connectFailed(let status):
            let mapped = CoreBluetoothMapping.connectionFailureError(status: status)
            return IOSView(
                domain: CBError.errorDomain, code: mapped.value.errorCode, name: mapped.value.name,
                callback: "centralManager(_:didFailToConnect:error:)", evidence: mapped.evidence.rawValue)
        case .connectTimedOut:
            return IOSView(
                callback:
                    "no callback: a CoreBluetooth connect never times out; iOS keeps waiting until the app cancels it",
                evidence: "documented")
        case .connectRefusedLocally:
            return IOSView(callback: "no equivalent known: iOS queues the connect", evidence: "hypothesis")
        case .attError(let code):
            let mapped = CoreBluetoothMapping.attError(code)
            return IOSView(
                domain: CBATTError.errorDomain, code: mapped.value.errorCode, name: mapped.value.name,
                callback: "the request's delegate method (peripheral(_:didUpdateValueFor:error:), didWriteValueFor, …)",
                evidence: mapped.evidence.rawValue)
        case .pairingFailed(let reason):
            let mapped = CoreBluetoothMapping.pairingFailureError(reason: reason)
            return IOSView(
                domain: CBATTError.errorDomain, code: mapped.value.errorCode, name: mapped.value.name,
                callback: "the delegate method of the request that needed pairing", evidence: mapped.evidence.rawValue)
        }
    }
}

extension Cause {
    /// A failed establishment (0x3E): by default iOS tries again and calls nothing; the error is
    /// the one the other reading gives (``EstablishmentFailure``, as `errors` and the replay).
    fileprivate static func establishmentRetried(_ callback: String) -> IOSView {
        let error = EstablishmentFailure.failError
        return IOSView(
            domain: CBError.errorDomain, code: error.value.errorCode, name: error.value.name,
            callback: EstablishmentFailure.retried(failing: callback, namingError: false),
            evidence: error.evidence.rawValue)
    }
}

/// What iOS reports for a cause: the error (none when the domain is nil) and its method.
package struct IOSView: Hashable, Sendable, Encodable, CustomStringConvertible {
    package var domain: String?
    package var code: Int?
    package var name: String?
    package var callback: String
    package var evidence: String

    package init(domain: String? = nil, code: Int? = nil, name: String? = nil, callback: String, evidence: String) {
        self.domain = domain
        self.code = code
        self.name = name
        self.callback = callback
        self.evidence = evidence
    }

    /// `centralManager(_:didDisconnectPeripheral:error:) with CBError.connectionTimeout (6) [reported]`.
    package var description: String {
        guard let domain, let code else {
            return callback.hasPrefix("no ") ? "\(callback) [\(evidence)]" : "\(callback) with no error [\(evidence)]"
        }
        let type =
            switch domain {
            case CBError.errorDomain: "CBError"
            case CBATTError.errorDomain: "CBATTError"
            default: domain
            }
        let error = name.map { "\(type).\($0) (\(code))" } ?? "\(domain) code \(code), no named case"
        return "\(callback) with \(error) [\(evidence)]"
    }
}

extension AndroidStatus {
    /// The view of an ATT error with the callback of whatever request it answers.
    var inRequestsCallback: AndroidStatus {
        var copy = self
        copy.callback = "the request's callback (onCharacteristicRead/Write, onDescriptorRead/Write)"
        return copy
    }
}
