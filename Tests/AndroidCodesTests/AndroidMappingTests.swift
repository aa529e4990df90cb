import ATT
import AndroidCodes
import HCI
import Testing

/// Each row of Android's mapping against what the AOSP source does (Formats/android-mapping.md).
@Suite struct AndroidMappingTests {
    /// bta_gattc_close: a disconnection's status is its HCI reason.
    @Test(
        arguments: [
            (0x08, 8, "GATT_CONN_TIMEOUT"), (0x13, 19, "GATT_CONN_TERMINATE_PEER_USER"),
            (0x16, 22, "GATT_CONN_TERMINATE_LOCAL_HOST"),
            (0x22, 34, "GATT_CONN_LMP_TIMEOUT"), (0x3E, 62, "GATT_CONN_FAILED_ESTABLISHMENT"),
            (0x15, 21, "GATT_CONN_TERMINATED_POWER_OFF"),
        ] as [(UInt8, Int, String)])
    func aDisconnectionPassesItsReasonOn(_ reason: UInt8, _ status: Int, _ name: String) {
        let view = AndroidMapping.disconnection(reason: HCIStatus(rawValue: reason), requestedByApp: false)
        #expect(view.status == status)
        #expect(view.name == name)
        #expect(view.callback == "onConnectionStateChange")
        #expect(view.grade == .documented)
        #expect(view.source.contains("bta_gattc_close"))
    }

    @Test func aReasonWithNoNameIsPassedOnUnnamedAndItsClashSaid() {
        let mic = AndroidMapping.disconnection(reason: .connectionTerminatedMICFailure, requestedByApp: false)
        #expect(mic.status == 61)
        #expect(mic.name == nil)
        let authentication = AndroidMapping.disconnection(reason: .authenticationFailure, requestedByApp: false)
        #expect(authentication.status == 5)
        #expect(authentication.note?.contains("GATT_INSUFFICIENT_AUTHENTICATION") == true)
    }

    @Test func theAppsOwnDisconnectIsStatusZero() {
        let view = AndroidMapping.disconnection(reason: .connectionTerminatedByLocalHost, requestedByApp: true)
        #expect(view.status == 0)
        #expect(view.name == "GATT_SUCCESS")
        #expect(view.grade == .documented)
    }

    /// acl_ble_connection_fail → on_connection_timed_out → bta_gattc_open_fail: 133, 147 from
    /// Android 15.
    @Test(arguments: [0x3E, 0x05, 0x06, 0x08, 0x1F] as [UInt8])
    func aFailedCompletionIs133Then147(_ status: UInt8) throws {
        let view = try #require(AndroidMapping.connectionFailure(status: HCIStatus(rawValue: status)))
        #expect(view.status == 133)
        #expect(view.name == "GATT_ERROR")
        #expect(
            view.later
                == AndroidStatus.Release(since: "Android 15 (API 35)", status: 147, name: "GATT_CONNECTION_TIMEOUT"))
        #expect(view.callback == "onConnectionStateChange")
    }

    @Test func anAdvertisingTimeoutEndsNoConnect() {
        #expect(AndroidMapping.connectionFailure(status: HCIStatus(rawValue: 0x3C)) == nil)
    }

    @Test func aCancelAtThirtySecondsIsTheStacksTimeoutAndAnEarlierOneTheApps() throws {
        let timeout = try #require(AndroidMapping.cancelledAttempt(after: 30.01))
        #expect(timeout.status == 133)
        #expect(timeout.later?.status == 147)
        #expect(
            timeout.grade == .hypothesis,
            "the values are the source's; reading the cancel as the timeout's is by its time")
        #expect(AndroidMapping.cancelledAttempt(after: 29.6) != nil)
        #expect(AndroidMapping.cancelledAttempt(after: 5) == nil)
        #expect(
            AndroidMapping.cancelledAttempt(after: 254) == nil, "a background connection the stack paused, no timeout")
        #expect(AndroidMapping.directConnectTimeout == 30)
    }

    /// gatt_process_error_rsp passes the ATT code on.
    @Test(
        arguments: [
            (0x02, "GATT_READ_NOT_PERMITTED"), (0x03, "GATT_WRITE_NOT_PERMITTED"), (0x06, "GATT_REQUEST_NOT_SUPPORTED"),
            (0x07, "GATT_INVALID_OFFSET"), (0x0D, "GATT_INVALID_ATTRIBUTE_LENGTH"), (0x0A, "GATT_NOT_FOUND"),
            (0x80, "GATT_NO_RESOURCES"), (0x85, "GATT_ERROR"), (0xFD, "GATT_CCC_CFG_ERR"),
        ] as [(UInt8, String)])
    func anATTErrorIsPassedOn(_ code: UInt8, _ name: String) {
        let view = AndroidMapping.attError(ATTErrorCode(rawValue: code), operation: .writeCharacteristic)
        #expect(view.status == Int(code))
        #expect(view.name == name)
        #expect(view.callback == "onCharacteristicWrite")
        #expect(view.grade == .documented)
        #expect(view.source.contains("gatt_process_error_rsp"))
    }

    @Test func aPeersApplicationError0x85ReadsAsGattError() {
        let view = AndroidMapping.attError(ATTErrorCode(rawValue: 0x85), operation: .readCharacteristic)
        #expect(view.status == 133)
        #expect(view.name == "GATT_ERROR")
        #expect(view.note?.contains("only the trace tells them apart") == true)
        let unnamed = AndroidMapping.attError(ATTErrorCode(rawValue: 0x9F), operation: .readCharacteristic)
        #expect(unnamed.status == 159)
        #expect(unnamed.name == nil)
    }

    @Test(arguments: [0x05, 0x0F] as [UInt8])
    func aRefusalForSecurityIsRetriedByTheFrameworkFirst(_ code: UInt8) {
        let view = AndroidMapping.attError(ATTErrorCode(rawValue: code), operation: .readDescriptor)
        #expect(view.status == Int(code))
        #expect(view.name == (code == 5 ? "GATT_INSUFFICIENT_AUTHENTICATION" : "GATT_INSUFFICIENT_ENCRYPTION"))
        #expect(view.callback == "onDescriptorRead")
        #expect(view.source.contains("mAuthRetryState"))
    }

    @Test func eachRequestHasItsCallback() {
        #expect(AndroidMapping.Operation(request: .readRequest, descriptor: false) == .readCharacteristic)
        #expect(AndroidMapping.Operation(request: .readBlobRequest, descriptor: true) == .readDescriptor)
        #expect(AndroidMapping.Operation(request: .writeRequest, descriptor: true) == .writeDescriptor)
        #expect(AndroidMapping.Operation(request: .prepareWriteRequest, descriptor: false) == .writeCharacteristic)
        #expect(AndroidMapping.Operation(request: .executeWriteRequest, descriptor: false) == .executeWrite)
        #expect(AndroidMapping.Operation(request: .exchangeMTURequest, descriptor: false) == .mtu)
        #expect(AndroidMapping.attError(.requestNotSupported, operation: .mtu).callback == "onMtuChanged")
        #expect(
            AndroidMapping.attError(.invalidOffset, operation: .executeWrite).callback == "onReliableWriteCompleted")
        let discovery = AndroidMapping.attError(.insufficientAuthentication, operation: .discovery)
        #expect(discovery.callback == "onServicesDiscovered")
        #expect(discovery.grade == .hypothesis)
        if case .none = AndroidMapping.Operation(request: .readMultipleRequest, descriptor: false) {
        } else {
            Issue.record("Read Multiple has no public BluetoothGatt method")
        }
    }

    /// btif_dm_ble_auth_cmpl_evt and BondStateMachine.getUnbondReasonFromHALCode.
    @Test(arguments: [(0x03, 1), (0x04, 1), (0x08, 1), (0x05, 2), (0x01, 9), (0x0B, 9), (0x0C, 9)] as [(UInt8, Int)])
    func aFailedPairingEndsTheBondWithItsReason(_ reason: UInt8, _ unbond: Int) {
        let view = AndroidMapping.pairingFailure(reason: reason)
        #expect(view.status == unbond)
        #expect(view.name == AndroidCodes.unbondReasons[unbond - 1].name)
        #expect(view.callback.hasPrefix("ACTION_BOND_STATE_CHANGED"))
        #expect(AndroidMapping.pairingFailedRequest(.readCharacteristic).status == 137)
        #expect(AndroidMapping.pairingFailedRequest(.readCharacteristic).name == "GATT_AUTH_FAIL")
    }

    @Test func theTextSaysTheCallbackTheStatusAndTheLaterRelease() throws {
        let timeout = AndroidMapping.disconnection(reason: .connectionTimeout, requestedByApp: false)
        #expect("\(timeout)" == "onConnectionStateChange, status 8 GATT_CONN_TIMEOUT [documented]")
        let failed = try #require(AndroidMapping.connectionFailure(status: .connectionFailedToBeEstablished))
        #expect(
            "\(failed)"
                == "onConnectionStateChange, status 133 GATT_ERROR; Android 15 (API 35) and later: 147 GATT_CONNECTION_TIMEOUT [documented]"
        )
        #expect(
            "\(timeout.withoutCallback("a reason"))"
                == "no callback: a reason (status 8 GATT_CONN_TIMEOUT) [documented]")
    }
}
