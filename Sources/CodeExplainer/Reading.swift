import ATT
import AndroidCodes
import CoreBluetoothCodes
import HCI
import Wire

/// One way to read a code: as what, on which platform, what it means there, and the causes on
/// the wire that produce it.
package struct Reading: Hashable, Sendable {
    package enum Kind: String, Hashable, Sendable, CaseIterable {
        case androidConnection = "android-connection-status"
        case androidOperation = "android-operation-status"
        case androidUnbond = "android-unbond-reason"
        case hci = "hci-code"
        case att = "att-error"
        case cbError = "cberror"
        case cbATTError = "cbatterror"
        case cbInternalError = "cbinternalerror"
        case bluetoothd = "bluetoothd-reason"

        /// As a heading says it.
        var title: String {
            switch self {
            case .androidConnection: "Android: status of onConnectionStateChange"
            case .androidOperation: "Android: status of a GATT operation's callback"
            case .androidUnbond: "Android: UNBOND_REASON of ACTION_BOND_STATE_CHANGED"
            case .hci: "HCI status or disconnection reason"
            case .att: "ATT error code"
            case .cbError: "iOS: CBErrorDomain code"
            case .cbATTError: "iOS: CBATTErrorDomain code"
            case .cbInternalError: "iOS: CBInternalErrorDomain code"
            case .bluetoothd: "iOS: bluetoothd's disconnection reason (700 + the HCI reason)"
            }
        }
    }

    package var kind: Kind
    package var code: Int
    /// The code's name on that platform.
    package var name: String?
    /// What the code is there.
    package var meaning: String
    /// How sure the reading itself is (`documented` unless it rests on an inference).
    package var grade: String
    package var causes: [Cause]

    /// The reading of `code` as `kind`, or nil when nothing of that kind has the number.
    static func make(_ kind: Kind, _ code: Int) -> Reading? {
        switch kind {
        case .androidConnection: androidConnection(code)
        case .androidOperation: androidOperation(code)
        case .androidUnbond: androidUnbond(code)
        case .hci: hci(code, bluetoothd: false)
        case .att: att(code)
        case .cbError: cbError(code)
        case .cbATTError: cbATTError(code)
        case .cbInternalError: cbInternalError(code)
        case .bluetoothd: hci(code - 700, bluetoothd: true)
        }
    }

    // MARK: The causes every reading searches

    /// The disconnection reasons seen in the field (HCI codes with a name).
    static let disconnectionReasons: [UInt8] = [0x05, 0x06, 0x08, 0x13, 0x14, 0x15, 0x16, 0x22, 0x3B, 0x3D, 0x3E]
    /// The failed completions the mappings tell apart.
    static let failedCompletions: [UInt8] = [0x3E, 0x05, 0x06]

    /// Every connection-level cause: each reason, the app's own disconnect, each failed
    /// completion, the 30-s timeout, the connect refused locally.
    static let connectionCauses: [Cause] =
        [Cause(.disconnection(.success, requestedByApp: true))]
        + disconnectionReasons.map { Cause(.disconnection(HCIStatus(rawValue: $0), requestedByApp: false)) }
        + failedCompletions.map { Cause(.connectFailed(HCIStatus(rawValue: $0))) }
        + [Cause(.connectTimedOut), Cause(.connectRefusedLocally)]

    /// The SMP Pairing Failed reasons of the specification.
    static let pairingCauses: [Cause] = (0x01...0x0E).map { Cause(.pairingFailed(UInt8($0))) }

    // MARK: Each kind

    private static func androidConnection(_ code: Int) -> Reading? {
        let causes = connectionCauses.filter { cause in
            guard let view = cause.android else { return false }
            return view.status == code || view.later?.status == code
        }
        let named = AndroidCodes.constant(code, forConnectionState: true)
        guard
            named != nil || !causes.isEmpty
                || (0x01...0xFF).contains(code) && HCIStatus(rawValue: UInt8(code)).name != nil
        else { return nil }
        var meaning: String
        switch code {
        case 0: meaning = "success: with STATE_DISCONNECTED, a disconnection the app asked for"
        case 0x85:
            meaning =
                "the stack's generic failure: the connect failed (any failed completion, the 30-s timeout before Android 15, or a refusal of the stack's own with no HCI attempt)"
        case 0x93: meaning = "Android 15 and later: the connect failed (the 30-s timeout, or any failed completion)"
        case 0x101: meaning = "GATT_FAILURE: the framework's generic failure"
        default:
            let reason = HCIStatus(rawValue: UInt8(truncatingIfNeeded: code))
            meaning =
                "the disconnection's HCI reason \(hex(code, digits: 2)) \(reason.name ?? ""), which the stack passes on as the status"
        }
        if code > 0xFF && code != 0x101 { return nil }
        return Reading(
            kind: .androidConnection, code: code, name: named?.name, meaning: meaning, grade: "documented",
            causes: causes)
    }

    /// The statuses of GATT operations the stack makes itself, not an ATT error's.
    static let stackStatuses: [Int: String] = [
        0x81: "the stack's internal error (discovery that found nothing; hypothesis)",
        0x84: "the stack is busy with another request",
        0x85: "the stack's generic failure, or the peer's ATT application error 0x85 passed on",
        0x89: "the pairing the request needed failed",
        0x8F: "the link is congested (writes without response queued)",
        0x101: "GATT_FAILURE: the framework's generic failure",
    ]

    private static func androidOperation(_ code: Int) -> Reading? {
        let named = AndroidCodes.constant(code, forConnectionState: false)
        var causes: [Cause] = []
        if (0x01...0x13).contains(code) || (0x80...0x9F).contains(code) || (0xE0...0xFF).contains(code) {
            causes.append(Cause(.attError(ATTErrorCode(rawValue: UInt8(code)))))
        }
        if code == 0x89 { causes += pairingCauses.filter { [0x03, 0x05, 0x08].contains(pairingReason($0)) } }
        guard named != nil || !causes.isEmpty else { return nil }
        let meaning =
            stackStatuses[code].map { $0 + (causes.isEmpty ? "" : "; or the peer's error with the same number") }
            ?? "the peer's ATT error \(hex(code, digits: 2)), passed on unchanged"
        return Reading(
            kind: .androidOperation, code: code, name: named?.name, meaning: meaning, grade: "documented",
            causes: causes)
    }

    private static func pairingReason(_ cause: Cause) -> UInt8? {
        if case .pairingFailed(let reason) = cause.kind { return reason }
        return nil
    }

    private static func androidUnbond(_ code: Int) -> Reading? {
        guard let named = AndroidCodes.unbondReasons.first(where: { $0.value == code }) else { return nil }
        let causes = pairingCauses.filter { $0.android?.status == code }
        return Reading(
            kind: .androidUnbond, code: code, name: named.name,
            meaning: "why a bond attempt ended (ACTION_BOND_STATE_CHANGED to BOND_NONE)",
            grade: "documented", causes: causes)
    }

    private static func hci(_ code: Int, bluetoothd: Bool) -> Reading? {
        guard (0x01...0xFF).contains(code), let name = HCIStatus(rawValue: UInt8(code)).name else { return nil }
        let status = HCIStatus(rawValue: UInt8(code))
        var causes = [Cause(.disconnection(status, requestedByApp: false))]
        // A completion's status, too, but for the reasons that only end a link, 0x02 (what a
        // cancel leaves) and 0x3C (directed advertising's end).
        if ![0x02, 0x08, 0x13, 0x14, 0x15, 0x16, 0x22, 0x3C, 0x3D].contains(status.rawValue) {
            causes.append(Cause(.connectFailed(status)))
        }
        if status == .unknownConnectionIdentifier { causes = [Cause(.connectTimedOut)] }
        return Reading(
            kind: bluetoothd ? .bluetoothd : .hci, code: bluetoothd ? code + 700 : code, name: name,
            meaning: bluetoothd
                ? "bluetoothd's reason \(code + 700): the HCI code \(hex(code, digits: 2)) \(name) plus 700"
                : "the HCI code \(hex(code, digits: 2)) \(name) (Core 6.0, Vol 1, Part F), as a connection's status or a disconnection's reason",
            grade: bluetoothd ? "hypothesis" : "documented", causes: causes)
    }

    private static func att(_ code: Int) -> Reading? {
        guard (0x01...0xFF).contains(code) else { return nil }
        let error = ATTErrorCode(rawValue: UInt8(code))
        guard let name = error.name else { return nil }
        return Reading(
            kind: .att, code: code, name: name,
            meaning:
                "the ATT error \(hex(code, digits: 2)) \(name) (Core 6.0, Vol 3, Part F, §3.4.1.1), a server's refusal",
            grade: "documented", causes: [Cause(.attError(error))])
    }

    private static func cbError(_ code: Int) -> Reading? {
        guard let name = CBError.Code(rawValue: code)?.name else { return nil }
        let causes = connectionCauses.filter { $0.ios.domain == CBError.errorDomain && $0.ios.code == code }
        return Reading(
            kind: .cbError, code: code, name: name,
            meaning: "CBError.\(name)"
                + (CBError.frameworkDescription(of: CBError.Code(rawValue: code)!).map { ", \"\($0)\"" } ?? ""),
            grade: "documented", causes: causes)
    }

    private static func cbATTError(_ code: Int) -> Reading? {
        guard (0x00...0xFF).contains(code), code != 0 else { return nil }
        let error = ATTErrorCode(rawValue: UInt8(code))
        guard error.name != nil else { return nil }
        let causes =
            [Cause(.attError(error))]
            + pairingCauses.filter { $0.ios.code == code && $0.ios.domain == CBATTError.errorDomain }
        return Reading(
            kind: .cbATTError, code: code, name: CBATTError.Code(rawValue: code)?.name,
            meaning: "the ATT error \(hex(code, digits: 2)) \(error.name!), passed on by CoreBluetooth",
            grade: "documented", causes: causes)
    }

    private static func cbInternalError(_ code: Int) -> Reading? {
        let error = CBInternalError(errorCode: code)
        guard let name = error.code.map({ "\($0)" }) else { return nil }
        let causes = connectionCauses.filter { $0.ios.domain == CBInternalError.errorDomain && $0.ios.code == code }
        return Reading(
            kind: .cbInternalError, code: code, name: name,
            meaning: "\"\(error.localizedDescription)\", an error Apple's headers do not list",
            grade: "reported", causes: causes)
    }
}
