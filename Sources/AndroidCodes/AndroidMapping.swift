import ATT
import HCI
import Wire

/// What an Android app's `BluetoothGattCallback` would have been told, from what the HCI, ATT and
/// SMP layers said: the Android column beside CoreBluetoothCodes' `CoreBluetoothMapping`,
/// read from the AOSP Bluetooth module (packages/modules/Bluetooth). Each answer carries its
/// grade and source; Formats/android-mapping.md gives the table with both platforms side by side.
package enum AndroidMapping {
    /// The files and symbols each answer comes from.
    package enum Source {
        package static let close = "system/bta/gatt/bta_gattc_act.cc bta_gattc_close"
        package static let openFail =
            "system/stack/acl/ble_acl.cc acl_ble_connection_fail; system/stack/gatt/gatt_main.cc on_connection_timed_out; system/bta/gatt/bta_gattc_act.cc bta_gattc_open_fail"
        package static let directConnectTimeout =
            "system/gd/hci/acl_manager/le_impl.h kCreateConnectionTimeoutMs, on_create_connection_timeout; system/bta/gatt/bta_gattc_act.cc bta_gattc_open_fail"
        package static let openLocally =
            "system/bta/gatt/bta_gattc_act.cc bta_gattc_open (GATT_Connect refused), bta_gattc_open_fail"
        package static let errorResponse = "system/stack/gatt/gatt_cl.cc gatt_process_error_rsp"
        package static let discoveryError =
            "system/stack/gatt/gatt_cl.cc gatt_proc_disc_error_rsp; system/bta/gatt/bta_gattc_cache.cc bta_gattc_disc_cmpl_cback; system/bta/gatt/bta_gattc_act.cc bta_gattc_search"
        package static let authenticationRetry =
            "framework/java/android/bluetooth/BluetoothGatt.java onCharacteristicRead/Write, onDescriptorRead/Write (mAuthRetryState)"
        package static let securityFailed = "system/stack/gatt/gatt_auth.cc gatt_sec_check_complete"
        package static let bondFailed =
            "system/btif/src/btif_dm.cc btif_dm_ble_auth_cmpl_evt; android/app/src/com/android/bluetooth/btservice/BondStateMachine.java getUnbondReasonFromHALCode"
    }

    /// Android's direct-connection timeout (`connectGatt` with `autoConnect` false): 30 s, after
    /// which the stack cancels the attempt (`bluetooth.core.le.direct_connection_timeout`).
    package static let directConnectTimeout = 30.0

    /// The `onConnectionStateChange` callback's name, as the views give it.
    package static let connectionStateCallback = "onConnectionStateChange"

    /// What a connect that failed reports: 133 `GATT_ERROR`, or from Android 15 (its
    /// `enumerate_gatt_errors` flag, `BluetoothGatt.GATT_CONNECTION_TIMEOUT` of API 35) 147.
    private static let failedOpen = AndroidStatus.Release(
        since: "Android 15 (API 35)", status: 0x93, name: "GATT_CONNECTION_TIMEOUT")

    /// `onConnectionStateChange` for a disconnection with `reason`: status 0 when the app asked
    /// (`BluetoothGatt.disconnect()`), else the HCI reason itself, which the stack passes on as
    /// the status (documented). `requestedByApp` is the same decision CoreBluetooth's mapping
    /// takes (the Lifecycle layer's).
    package static func disconnection(reason: HCIStatus, requestedByApp: Bool) -> AndroidStatus {
        if requestedByApp {
            return AndroidStatus(
                status: 0, name: "GATT_SUCCESS", callback: connectionStateCallback, grade: .documented,
                source: Source.close + " (BTA_GATTC_API_CLOSE_EVT)",
                note:
                    "the app's own disconnect() is answered at once with status 0; were it the phone's stack that ended the link, the status is 22 GATT_CONN_TERMINATE_LOCAL_HOST"
            )
        }
        let status = Int(reason.rawValue)
        let named = AndroidCodes.constant(status, forConnectionState: true)
        var note: String?
        switch reason {
        case .connectionTerminatedByLocalHost:
            note =
                "the phone's stack ended the link without the app asking (an ATT timeout, a failed encryption, a missing bond, another app's disconnect)"
        case .connectionFailedToBeEstablished:
            note =
                "older releases name it GATT_CONN_FAIL_ESTABLISH; a connect whose completion fails with 0x3E gets 133 or 147 instead"
        default:
            if named == nil {
                note = "the HCI reason, passed on unnamed"
                if let clash = AndroidCodes.constant(status, forConnectionState: false) {
                    note! += "; the number is also the GATT status \(clash.name)"
                }
            }
        }
        return AndroidStatus(
            status: status, name: named?.name, callback: connectionStateCallback, grade: .documented,
            source: Source.close
                + " (BTA_GATTC_INT_DISCONN_EVT: the status is the reason); system/stack/include/gatt_api.h tGATT_DISCONN_REASON",
            note: note)
    }

    /// `onConnectionStateChange` for a connection attempt whose completion failed with `status`
    /// (not the 0x02 that follows a cancel): every failed LE completion ends the open with 133
    /// `GATT_ERROR`, from Android 15 with 147 (documented). Nil for 0x3C (Advertising Timeout),
    /// which ends directed advertising, not a GATT client's connect.
    package static func connectionFailure(status: HCIStatus) -> AndroidStatus? {
        if status.rawValue == 0x3C { return nil }
        return AndroidStatus(
            status: 0x85, name: "GATT_ERROR", callback: connectionStateCallback, grade: .documented,
            source: Source.openFail,
            note:
                "any failed completion (here \(status.name ?? "status") \(hex(status.rawValue, digits: 2))) ends the connect the same way; the HCI status itself does not reach the app",
            later: failedOpen)
    }

    /// `onConnectionStateChange` for an attempt the host cancelled `seconds` after it began: at
    /// Android's 30-s direct-connection timeout (29.5 s to 32 s), the stack's own cancel, which
    /// ends the connect with 133 (147 from Android 15; the values documented, the cancel read as
    /// the timeout's by its time: hypothesis). Nil for any other cancel: the app's own
    /// (`disconnect()` while connecting), or the stack pausing a background connection (which
    /// Android does at any time, to change its accept list or its address): no failure.
    package static func cancelledAttempt(after seconds: Double) -> AndroidStatus? {
        guard seconds >= directConnectTimeout - 0.5, seconds <= directConnectTimeout + 2 else { return nil }
        return AndroidStatus(
            status: 0x85, name: "GATT_ERROR", callback: connectionStateCallback, grade: .hypothesis,
            source: Source.directConnectTimeout,
            note:
                "a cancel \(Wording.duration(seconds)) after the attempt is Android's 30-s direct-connection timeout; iOS keeps waiting, with no callback",
            later: failedOpen)
    }

    /// `onConnectionStateChange` for a connect the stack refused before any HCI command (no LE
    /// Create Connection for the peer: too many GATT clients registered, a connection already
    /// pending): 133 (documented), and no trace of it but logcat.
    package static let connectRefusedLocally = AndroidStatus(
        status: 0x85, name: "GATT_ERROR", callback: connectionStateCallback, grade: .documented,
        source: Source.openLocally,
        note: "no HCI command at all: only logcat shows why (bt_stack, BtGatt.GattService)")

    /// The app-facing request an ATT Error Response answered.
    package enum Operation: Hashable, Sendable {
        case readCharacteristic, writeCharacteristic, readDescriptor, writeDescriptor
        /// Execute Write: `executeReliableWrite()`, or the end of a long write.
        case executeWrite
        /// Service, characteristic or descriptor discovery (`discoverServices()`).
        case discovery
        /// Exchange MTU (`requestMtu`).
        case mtu
        /// A request no public `BluetoothGatt` method makes (Read By Type of a value, Read
        /// Multiple), or that an Android app cannot have made.
        case none(String)

        /// The operation of `request`, on a descriptor or not (Read By Type, Read Multiple:
        /// none). Discovery requests are ``discovery`` only when the caller says so.
        package init(request: ATTOpcode, descriptor: Bool) {
            switch request {
            case .readRequest, .readBlobRequest: self = descriptor ? .readDescriptor : .readCharacteristic
            case .writeRequest, .prepareWriteRequest: self = descriptor ? .writeDescriptor : .writeCharacteristic
            case .executeWriteRequest: self = .executeWrite
            case .exchangeMTURequest: self = .mtu
            default: self = .none("BluetoothGatt has no public method that sends \(request.name ?? "this request")")
            }
        }

        var callback: String {
            switch self {
            case .readCharacteristic: "onCharacteristicRead"
            case .writeCharacteristic: "onCharacteristicWrite"
            case .readDescriptor: "onDescriptorRead"
            case .writeDescriptor: "onDescriptorWrite"
            case .executeWrite: "onReliableWriteCompleted"
            case .discovery: "onServicesDiscovered"
            case .mtu: "onMtuChanged"
            case .none(let why): "no callback: " + why
            }
        }
    }

    /// The status of the callback for an ATT Error Response with `code` to `operation`: the stack
    /// passes the code on unchanged (documented), under the framework's constant where there is
    /// one, else the stack's, so that a peer's application error (0x80-0x9F) reads as one of the
    /// stack's own codes: 0x85 as 133 `GATT_ERROR`. Discovery stops at any error but Attribute
    /// Not Found; what `onServicesDiscovered` then gets is read from the source only (hypothesis).
    package static func attError(_ code: ATTErrorCode, operation: Operation) -> AndroidStatus {
        let status = Int(code.rawValue)
        let named = AndroidCodes.constant(status, forConnectionState: false)
        var note: String?
        if code.isApplicationError, let named {
            note =
                "the peer's application error \(hex(code.rawValue, digits: 2)) has the number of the stack's own \(named.name): only the trace tells them apart"
        } else if code.isApplicationError {
            note = "the peer's application error, passed on unnamed"
        }
        if code == .insufficientAuthentication || code == .insufficientEncryption,
            [.readCharacteristic, .writeCharacteristic, .readDescriptor, .writeDescriptor].contains(operation)
        {
            return AndroidStatus(
                status: status, name: named?.name, callback: operation.callback, grade: .documented,
                source: Source.errorResponse + "; " + Source.authenticationRetry,
                note:
                    "BluetoothGatt first pairs and sends the request again (without, then with MITM protection): the app sees this status only if those fail too"
            )
        }
        if operation == .discovery {
            return AndroidStatus(
                status: 0x81, name: "GATT_INTERNAL_ERROR", callback: operation.callback, grade: .hypothesis,
                source: Source.discoveryError,
                note:
                    "discovery stops at the error (\(status) \(named?.name ?? "")); the search then reports 129 when nothing was found, else 0 with what was found before it"
            )
        }
        return AndroidStatus(
            status: status, name: named?.name, callback: operation.callback,
            grade: operation == .mtu || operation == .executeWrite ? .hypothesis : .documented,
            source: Source.errorResponse, note: note)
    }

    /// The request that needed pairing, when the pairing failed: the stack ends it with 137
    /// `GATT_AUTH_FAIL` (documented), which the framework does not retry.
    package static func pairingFailedRequest(_ operation: Operation) -> AndroidStatus {
        AndroidStatus(
            status: 0x89, name: "GATT_AUTH_FAIL", callback: operation.callback, grade: .documented,
            source: Source.securityFailed + "; " + Source.authenticationRetry)
    }

    /// What a failed LE pairing (an SMP Pairing Failed with `reason`) tells the app: no GATT
    /// callback, but `ACTION_BOND_STATE_CHANGED` from `BOND_BONDING` to `BOND_NONE` with an
    /// `UNBOND_REASON` (documented, Android 15): Authentication Requirements (0x03), Confirm Value
    /// Failed (0x04) and Unspecified Reason (0x08) give `AUTH_FAILED`, Pairing Not Supported
    /// (0x05) `AUTH_REJECTED`, any other `REMOVED`.
    package static func pairingFailure(reason: UInt8) -> AndroidStatus {
        let unbond =
            switch reason {
            case 0x03, 0x04, 0x08: 1
            case 0x05: 2
            default: 9
            }
        return AndroidStatus(
            status: unbond, name: AndroidCodes.unbondReasons.first { $0.value == unbond }?.name,
            callback: "ACTION_BOND_STATE_CHANGED (BOND_BONDING to BOND_NONE, EXTRA_REASON)", grade: .documented,
            source: Source.bondFailed,
            note: "the request that needed pairing ends with 137 GATT_AUTH_FAIL")
    }
}
