import ATT
import HCI

/// How strongly a mapping row is supported. Apple publishes no table from HCI codes to
/// `CBError`; see Formats/error-mapping.md for each row's source.
public enum Evidence: String, Hashable, Sendable {
    /// Stated in Apple's documentation.
    case documented
    /// Observed on devices and reported publicly.
    case reported
    /// Reasoned from the specification, with no public observation.
    case hypothesis
}

/// One answer of the mapping: what CoreBluetooth would report, and how sure that is.
public struct Mapped<Value: Hashable & Sendable>: Hashable, Sendable {
    public var value: Value
    public var evidence: Evidence

    public init(value: Value, evidence: Evidence) {
        self.value = value
        self.evidence = evidence
    }
}

/// What an iOS app would have been told, from what the HCI and ATT layers said.
public enum CoreBluetoothMapping {
    /// The error of `centralManager(_:didDisconnectPeripheral:error:)` for a disconnection with
    /// `reason`. Nil when the app asked for it with `cancelPeripheralConnection` (documented).
    public static func disconnectionError(reason: HCIStatus, requestedByApp: Bool) -> Mapped<ConnectionError?> {
        if requestedByApp { return Mapped(value: nil, evidence: .documented) }
        if reason == .connectionTerminatedMICFailure {
            // The decompiled framework turns the daemon's MIC failure (its result 182) into
            // CBInternalErrorDomain 31; one branch of a decompiled bluetoothd turns it into
            // CBError 0 instead (Formats/error-mapping.md).
            return Mapped(value: .internal(CBInternalError(.micFailure)), evidence: .hypothesis)
        }
        let mapped = cbDisconnectionError(reason: reason)
        return Mapped(value: .cb(mapped.value), evidence: mapped.evidence)
    }

    private static func cbDisconnectionError(reason: HCIStatus) -> Mapped<CBError> {
        switch reason {
        case .connectionTimeout:
            return Mapped(value: CBError(.connectionTimeout), evidence: .reported)
        case .remoteUserTerminatedConnection:
            return Mapped(value: CBError(.peripheralDisconnected), evidence: .reported)
        case .remoteDeviceTerminatedLowResources, .remoteDeviceTerminatedPowerOff:
            return Mapped(value: CBError(.peripheralDisconnected), evidence: .hypothesis)
        case .connectionFailedToBeEstablished:
            // Under the `fail` reading only: by default iOS tells the app nothing (EstablishmentFailure).
            return EstablishmentFailure.failError
        case .llResponseTimeout:
            return Mapped(value: CBError(.connectionTimeout), evidence: .hypothesis)
        case .authenticationFailure, .pinOrKeyMissing:
            return Mapped(value: CBError(.peerRemovedPairingInformation), evidence: .hypothesis)
        default:
            return Mapped(value: CBError(.unknown), evidence: .reported)
        }
    }

    /// The error of `centralManager(_:didFailToConnect:error:)` for a connection attempt that
    /// completed with `status` (not success, and not the 0x02 that follows the app's own cancel).
    /// For 0x3E it is the error of the ``EstablishmentFailure/fail`` reading: by default
    /// (``EstablishmentFailure/default``) iOS tries again and no `didFailToConnect` comes.
    public static func connectionFailureError(status: HCIStatus) -> Mapped<CBError> {
        switch status {
        case .connectionFailedToBeEstablished:
            EstablishmentFailure.failError
        case .authenticationFailure, .pinOrKeyMissing:
            // Reported on connect when the peer removed the bond; which HCI code shows it is not.
            Mapped(value: CBError(.peerRemovedPairingInformation), evidence: .hypothesis)
        default:
            Mapped(value: CBError(.unknown), evidence: .reported)
        }
    }

    /// The `CBATTError` for an ATT Error Response. CoreBluetooth passes the ATT code's value
    /// through: `CBATTError.Code` names 0x01-0x11 with the specification's values (documented);
    /// application and profile codes (0x80-0xFF) reach apps as their raw value, "Unknown ATT
    /// error." (reported); 0x12, 0x13 have no public observation (hypothesis).
    public static func attError(_ code: ATTErrorCode) -> Mapped<CBATTError> {
        let evidence: Evidence =
            switch code.rawValue {
            case 0x01...0x11: .documented
            case 0x80...0x9F, 0xE0...0xFF: .reported
            default: .hypothesis
            }
        return Mapped(value: CBATTError(errorCode: Int(code.rawValue)), evidence: evidence)
    }

    /// What a GATT operation reports when pairing fails (SMP Pairing Failed from the peer): the
    /// operation that needed the security fails with the refusal that led to the pairing,
    /// `insufficientAuthentication` (5) or `insufficientEncryption` (15) as both are reported
    /// (Meshtastic-Apple 1363, cordova-plugin-bluetoothle 728); with no refusal seen,
    /// `insufficientAuthentication` (hypothesis). A pairing this host cancelled is another
    /// story: iOS ends the link (``CBInternalError/Code/pairingCancelled``).
    public static func pairingFailureError(reason: UInt8, refusal: UInt8? = nil) -> Mapped<CBATTError> {
        guard let refusal else { return Mapped(value: CBATTError(.insufficientAuthentication), evidence: .hypothesis) }
        return Mapped(
            value: CBATTError(errorCode: Int(refusal)),
            evidence: refusal == 0x05 || refusal == 0x0F ? .reported : .hypothesis)
    }

    /// What a GATT operation refused for security reports when the pairing iOS started for it
    /// neither finishes nor fails, and SMP's 30-second timer runs out with the link up:
    /// `insufficientEncryption` (reported: an Apple Developer Forums reply).
    public static let pairingTimeoutError = Mapped(value: CBATTError(.insufficientEncryption), evidence: .reported)

    /// The error of `didDisconnectPeripheral` when ATT's transaction timeout (a request
    /// unanswered for 30 s, Core 6.0, Vol 3, Part F, §3.3.3) ends the link: none. The one field
    /// trace found (react-native-ble-plx #566, iOS 12.1.4) shows `discoverServices` unanswered,
    /// then `didDisconnect` 30.0 s later with `error: nil` (reported, once). bletrace before said
    /// `CBError.connectionTimeout`, with no source; the replay keeps it as a choice
    /// (`Platform.attTimeoutError`).
    public static let attTimeoutError = Mapped<CBError?>(value: nil, evidence: .reported)

    /// The disconnection error after this host cancelled a pairing (a user's Cancel on the
    /// pairing alert): iOS ends the link, and the requests waiting for the pairing get no
    /// callback (hypothesis: Formats/corebluetooth.md).
    public static let pairingCancelledError = Mapped(value: CBInternalError(.pairingCancelled), evidence: .hypothesis)
}
