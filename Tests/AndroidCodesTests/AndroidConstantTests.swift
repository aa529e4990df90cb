import AndroidCodes
import HCI
import Testing

/// The tables against the AOSP Bluetooth module's declarations (packages/modules/Bluetooth,
/// Android 13, 14 and 15 branches): each value as its header or class declares it.
@Suite struct AndroidConstantTests {
    /// `tGATT_STATUS`, system/stack/include/gatt_api.h.
    @Test(
        arguments: [
            ("GATT_SUCCESS", 0x00), ("GATT_INVALID_HANDLE", 0x01), ("GATT_READ_NOT_PERMIT", 0x02),
            ("GATT_WRITE_NOT_PERMIT", 0x03),
            ("GATT_INVALID_PDU", 0x04), ("GATT_INSUF_AUTHENTICATION", 0x05), ("GATT_REQ_NOT_SUPPORTED", 0x06),
            ("GATT_INVALID_OFFSET", 0x07), ("GATT_INSUF_AUTHORIZATION", 0x08), ("GATT_PREPARE_Q_FULL", 0x09),
            ("GATT_NOT_FOUND", 0x0A), ("GATT_NOT_LONG", 0x0B), ("GATT_INSUF_KEY_SIZE", 0x0C),
            ("GATT_INVALID_ATTR_LEN", 0x0D),
            ("GATT_ERR_UNLIKELY", 0x0E), ("GATT_INSUF_ENCRYPTION", 0x0F), ("GATT_UNSUPPORT_GRP_TYPE", 0x10),
            ("GATT_INSUF_RESOURCE", 0x11), ("GATT_DATABASE_OUT_OF_SYNC", 0x12), ("GATT_VALUE_NOT_ALLOWED", 0x13),
            ("GATT_NO_RESOURCES", 0x80), ("GATT_INTERNAL_ERROR", 0x81), ("GATT_WRONG_STATE", 0x82),
            ("GATT_DB_FULL", 0x83),
            ("GATT_BUSY", 0x84), ("GATT_ERROR", 0x85), ("GATT_CMD_STARTED", 0x86), ("GATT_ILLEGAL_PARAMETER", 0x87),
            ("GATT_PENDING", 0x88), ("GATT_AUTH_FAIL", 0x89), ("GATT_INVALID_CFG", 0x8B),
            ("GATT_SERVICE_STARTED", 0x8C),
            ("GATT_ENCRYPED_NO_MITM", 0x8D), ("GATT_NOT_ENCRYPTED", 0x8E), ("GATT_CONGESTED", 0x8F),
            ("GATT_DUP_REG", 0x90),
            ("GATT_ALREADY_OPEN", 0x91), ("GATT_CANCEL", 0x92), ("GATT_CONNECTION_TIMEOUT", 0x93),
            ("GATT_WRITE_REQ_REJECTED", 0xFC), ("GATT_CCC_CFG_ERR", 0xFD), ("GATT_PRC_IN_PROGRESS", 0xFE),
            ("GATT_OUT_OF_RANGE", 0xFF),
        ])
    func gattStatusesHaveTheStacksValues(_ name: String, _ value: Int) {
        #expect(AndroidCodes.gattStatuses.filter { $0.name == name }.map(\.value) == [value])
    }

    @Test func everyGattStatusIsListedOnceAndNoOtherIs() {
        #expect(AndroidCodes.gattStatuses.count == 43)
        #expect(Set(AndroidCodes.gattStatuses.map(\.value)).count == 43, "one name per value")
        #expect(!AndroidCodes.gattStatuses.contains { $0.value == 0x8A }, "0x8A has no name")
    }

    /// The public constants of framework/java/android/bluetooth/BluetoothGatt.java.
    @Test(
        arguments: [
            ("GATT_SUCCESS", 0), ("GATT_READ_NOT_PERMITTED", 2), ("GATT_WRITE_NOT_PERMITTED", 3),
            ("GATT_INSUFFICIENT_AUTHENTICATION", 5), ("GATT_REQUEST_NOT_SUPPORTED", 6), ("GATT_INVALID_OFFSET", 7),
            ("GATT_INSUFFICIENT_AUTHORIZATION", 8), ("GATT_INVALID_ATTRIBUTE_LENGTH", 13),
            ("GATT_INSUFFICIENT_ENCRYPTION", 15),
            ("GATT_CONNECTION_CONGESTED", 143), ("GATT_CONNECTION_TIMEOUT", 147), ("GATT_FAILURE", 257),
        ])
    func frameworkStatusesHaveTheFrameworksValues(_ name: String, _ value: Int) {
        #expect(AndroidCodes.bluetoothGattStatuses.filter { $0.name == name }.map(\.value) == [value])
    }

    @Test func onlyTheConnectionTimeoutIsNewerThanBLE() {
        #expect(AndroidCodes.bluetoothGattStatuses.compactMap(\.apiLevel) == [35])
        #expect(AndroidCodes.bluetoothGattStatuses.first { $0.apiLevel != nil }?.name == "GATT_CONNECTION_TIMEOUT")
    }

    /// `tGATT_DISCONN_REASON`: the HCI reasons under the stack's names (gatt_api.h), so each
    /// equals the HCI code of the specification (Core 6.0, Vol 1, Part F).
    @Test(
        arguments: [
            ("GATT_CONN_TIMEOUT", HCIStatus.connectionTimeout),
            ("GATT_CONN_TERMINATE_PEER_USER", .remoteUserTerminatedConnection),
            ("GATT_CONN_TERMINATE_LOCAL_HOST", .connectionTerminatedByLocalHost),
            ("GATT_CONN_LMP_TIMEOUT", .llResponseTimeout),
            ("GATT_CONN_FAILED_ESTABLISHMENT", .connectionFailedToBeEstablished),
            ("GATT_CONN_TERMINATED_POWER_OFF", .remoteDeviceTerminatedPowerOff),
        ])
    func disconnectionReasonsAreTheHCIReasons(_ name: String, _ reason: HCIStatus) {
        #expect(AndroidCodes.disconnectionReasons.filter { $0.name == name }.map(\.value) == [Int(reason.rawValue)])
    }

    @Test func theStacksOwnDisconnectionReasons() {
        #expect(AndroidCodes.constants(named: "GATT_CONN_L2C_FAILURE").map(\.value) == [1])
        #expect(AndroidCodes.constants(named: "BTA_GATT_CONN_NONE").map(\.value) == [0x101])
        #expect(AndroidCodes.constants(named: "GATT_CONN_OK").map(\.value) == [0])
    }

    /// framework/java/android/bluetooth/BluetoothDevice.java.
    @Test func unbondReasonsAndBondStates() {
        let reasons = [
            "UNBOND_REASON_AUTH_FAILED", "UNBOND_REASON_AUTH_REJECTED", "UNBOND_REASON_AUTH_CANCELED",
            "UNBOND_REASON_REMOTE_DEVICE_DOWN",
            "UNBOND_REASON_DISCOVERY_IN_PROGRESS", "UNBOND_REASON_AUTH_TIMEOUT", "UNBOND_REASON_REPEATED_ATTEMPTS",
            "UNBOND_REASON_REMOTE_AUTH_CANCELED", "UNBOND_REASON_REMOVED",
        ]
        #expect(AndroidCodes.unbondReasons.map(\.name) == reasons)
        #expect(AndroidCodes.unbondReasons.map(\.value) == Array(1...9))
        #expect(AndroidCodes.bondStates.map(\.value) == [10, 11, 12])
        #expect(AndroidCodes.bondStates.map(\.name) == ["BOND_NONE", "BOND_BONDING", "BOND_BONDED"])
    }

    @Test func namesAreFoundWhateverTheirCaseAndPrefix() {
        #expect(AndroidCodes.constants(named: "BluetoothGatt.GATT_FAILURE").map(\.value) == [0x101])
        #expect(AndroidCodes.constants(named: "gatt_error").map(\.value) == [0x85])
        #expect(AndroidCodes.constants(named: "GATT_SUCCESS").count == 2, "declared by the framework and by the stack")
        #expect(AndroidCodes.constants(named: "GATT_NOTHING").isEmpty)
    }

    @Test func aConnectionStateNamesItsReasonAndAnOperationItsPublicConstant() {
        #expect(AndroidCodes.constant(8, forConnectionState: true)?.name == "GATT_CONN_TIMEOUT")
        #expect(AndroidCodes.constant(8, forConnectionState: false)?.name == "GATT_INSUFFICIENT_AUTHORIZATION")
        #expect(AndroidCodes.constant(5, forConnectionState: false)?.name == "GATT_INSUFFICIENT_AUTHENTICATION")
        #expect(
            AndroidCodes.constant(0x0A, forConnectionState: false)?.name == "GATT_NOT_FOUND",
            "the stack's name where the framework has none")
        #expect(AndroidCodes.constant(133, forConnectionState: true)?.name == "GATT_ERROR")
        #expect(
            AndroidCodes.constant(5, forConnectionState: true) == nil,
            "HCI 0x05 on a disconnection is passed on unnamed")
        #expect(AndroidCodes.constant(0x9F, forConnectionState: false) == nil)
    }
}
