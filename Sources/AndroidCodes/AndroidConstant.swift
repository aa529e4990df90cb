/// One named number of Android's Bluetooth stack or framework: a `status` a
/// `BluetoothGattCallback` method receives, a disconnection reason, a bond state or the reason a
/// bond ended.
///
/// The values are those of the AOSP Bluetooth module (packages/modules/Bluetooth), read in the
/// Android 13, 14 and 15 branches; Formats/android-mapping.md lists them with their files.
package struct AndroidConstant: Hashable, Sendable {
    /// Where the constant is declared.
    package enum Table: String, Hashable, Sendable, CaseIterable {
        /// `tGATT_STATUS`, the stack's GATT statuses (`system/stack/include/gatt_api.h`): the ATT
        /// error codes under the stack's names, and the stack's own codes 0x80-0x93.
        case gattStatus = "tGATT_STATUS"
        /// The public `BluetoothGatt.GATT_*` constants of the framework
        /// (`framework/java/android/bluetooth/BluetoothGatt.java`).
        case bluetoothGatt = "BluetoothGatt"
        /// `tGATT_DISCONN_REASON` (`gatt_api.h`): the HCI reasons the stack names, which reach
        /// `onConnectionStateChange` as its `status`.
        case disconnectionReason = "tGATT_DISCONN_REASON"
        /// `BluetoothDevice.UNBOND_REASON_*` (`framework/java/android/bluetooth/BluetoothDevice.java`,
        /// system API): why a bond attempt ended, in `ACTION_BOND_STATE_CHANGED`.
        case unbondReason = "BluetoothDevice.UNBOND_REASON"
        /// `BluetoothDevice.BOND_*`: the bond states of `ACTION_BOND_STATE_CHANGED`.
        case bondState = "BluetoothDevice.BOND"

        /// The file and symbol that declare the table's constants.
        package var source: String {
            switch self {
            case .gattStatus: "system/stack/include/gatt_api.h tGATT_STATUS"
            case .bluetoothGatt: "framework/java/android/bluetooth/BluetoothGatt.java"
            case .disconnectionReason: "system/stack/include/gatt_api.h tGATT_DISCONN_REASON"
            case .unbondReason, .bondState: "framework/java/android/bluetooth/BluetoothDevice.java"
            }
        }
    }

    package var value: Int
    package var name: String
    package var table: Table
    /// The Android API level that made it public, where it is newer than BLE's own (18).
    package var apiLevel: Int?

    package init(_ value: Int, _ name: String, _ table: Table, apiLevel: Int? = nil) {
        self.value = value
        self.name = name
        self.table = table
        self.apiLevel = apiLevel
    }
}

/// The tables of Android's numbers, and the name a number has where it is received.
package enum AndroidCodes {
    /// `tGATT_STATUS` (gatt_api.h). 0x8A and 0x94-0xFB have no name.
    package static let gattStatuses: [AndroidConstant] = [
        (0x00, "GATT_SUCCESS"), (0x01, "GATT_INVALID_HANDLE"), (0x02, "GATT_READ_NOT_PERMIT"),
        (0x03, "GATT_WRITE_NOT_PERMIT"), (0x04, "GATT_INVALID_PDU"), (0x05, "GATT_INSUF_AUTHENTICATION"),
        (0x06, "GATT_REQ_NOT_SUPPORTED"), (0x07, "GATT_INVALID_OFFSET"), (0x08, "GATT_INSUF_AUTHORIZATION"),
        (0x09, "GATT_PREPARE_Q_FULL"), (0x0A, "GATT_NOT_FOUND"), (0x0B, "GATT_NOT_LONG"),
        (0x0C, "GATT_INSUF_KEY_SIZE"), (0x0D, "GATT_INVALID_ATTR_LEN"), (0x0E, "GATT_ERR_UNLIKELY"),
        (0x0F, "GATT_INSUF_ENCRYPTION"), (0x10, "GATT_UNSUPPORT_GRP_TYPE"), (0x11, "GATT_INSUF_RESOURCE"),
        (0x12, "GATT_DATABASE_OUT_OF_SYNC"), (0x13, "GATT_VALUE_NOT_ALLOWED"),
        (0x80, "GATT_NO_RESOURCES"), (0x81, "GATT_INTERNAL_ERROR"), (0x82, "GATT_WRONG_STATE"),
        (0x83, "GATT_DB_FULL"), (0x84, "GATT_BUSY"), (0x85, "GATT_ERROR"), (0x86, "GATT_CMD_STARTED"),
        (0x87, "GATT_ILLEGAL_PARAMETER"), (0x88, "GATT_PENDING"), (0x89, "GATT_AUTH_FAIL"),
        (0x8B, "GATT_INVALID_CFG"), (0x8C, "GATT_SERVICE_STARTED"), (0x8D, "GATT_ENCRYPED_NO_MITM"),
        (0x8E, "GATT_NOT_ENCRYPTED"), (0x8F, "GATT_CONGESTED"), (0x90, "GATT_DUP_REG"),
        (0x91, "GATT_ALREADY_OPEN"), (0x92, "GATT_CANCEL"), (0x93, "GATT_CONNECTION_TIMEOUT"),
        (0xFC, "GATT_WRITE_REQ_REJECTED"), (0xFD, "GATT_CCC_CFG_ERR"), (0xFE, "GATT_PRC_IN_PROGRESS"),
        (0xFF, "GATT_OUT_OF_RANGE"),
    ].map { AndroidConstant($0.0, $0.1, .gattStatus) }

    /// The public `BluetoothGatt.GATT_*` statuses.
    package static let bluetoothGattStatuses: [AndroidConstant] = [
        AndroidConstant(0x00, "GATT_SUCCESS", .bluetoothGatt),
        AndroidConstant(0x02, "GATT_READ_NOT_PERMITTED", .bluetoothGatt),
        AndroidConstant(0x03, "GATT_WRITE_NOT_PERMITTED", .bluetoothGatt),
        AndroidConstant(0x05, "GATT_INSUFFICIENT_AUTHENTICATION", .bluetoothGatt),
        AndroidConstant(0x06, "GATT_REQUEST_NOT_SUPPORTED", .bluetoothGatt),
        AndroidConstant(0x07, "GATT_INVALID_OFFSET", .bluetoothGatt),
        AndroidConstant(0x08, "GATT_INSUFFICIENT_AUTHORIZATION", .bluetoothGatt),
        AndroidConstant(0x0D, "GATT_INVALID_ATTRIBUTE_LENGTH", .bluetoothGatt),
        AndroidConstant(0x0F, "GATT_INSUFFICIENT_ENCRYPTION", .bluetoothGatt),
        AndroidConstant(0x8F, "GATT_CONNECTION_CONGESTED", .bluetoothGatt),
        AndroidConstant(0x93, "GATT_CONNECTION_TIMEOUT", .bluetoothGatt, apiLevel: 35),
        AndroidConstant(0x101, "GATT_FAILURE", .bluetoothGatt),
    ]

    /// `tGATT_DISCONN_REASON`: each value is the HCI reason's (`hci_error_code.h`), except
    /// `GATT_CONN_L2C_FAILURE` and `BTA_GATT_CONN_NONE`, the stack's own.
    package static let disconnectionReasons: [AndroidConstant] = [
        (0x00, "GATT_CONN_OK"), (0x01, "GATT_CONN_L2C_FAILURE"), (0x08, "GATT_CONN_TIMEOUT"),
        (0x13, "GATT_CONN_TERMINATE_PEER_USER"), (0x15, "GATT_CONN_TERMINATED_POWER_OFF"),
        (0x16, "GATT_CONN_TERMINATE_LOCAL_HOST"), (0x22, "GATT_CONN_LMP_TIMEOUT"),
        (0x3E, "GATT_CONN_FAILED_ESTABLISHMENT"), (0x101, "BTA_GATT_CONN_NONE"),
    ].map { AndroidConstant($0.0, $0.1, .disconnectionReason) }

    /// `BluetoothDevice.UNBOND_REASON_*` (system API; `EXTRA_REASON` of
    /// `ACTION_BOND_STATE_CHANGED`).
    package static let unbondReasons: [AndroidConstant] = [
        (1, "UNBOND_REASON_AUTH_FAILED"), (2, "UNBOND_REASON_AUTH_REJECTED"), (3, "UNBOND_REASON_AUTH_CANCELED"),
        (4, "UNBOND_REASON_REMOTE_DEVICE_DOWN"), (5, "UNBOND_REASON_DISCOVERY_IN_PROGRESS"),
        (6, "UNBOND_REASON_AUTH_TIMEOUT"), (7, "UNBOND_REASON_REPEATED_ATTEMPTS"),
        (8, "UNBOND_REASON_REMOTE_AUTH_CANCELED"), (9, "UNBOND_REASON_REMOVED"),
    ].map { AndroidConstant($0.0, $0.1, .unbondReason) }

    /// `BluetoothDevice.BOND_NONE`, `BOND_BONDING`, `BOND_BONDED`.
    package static let bondStates: [AndroidConstant] = [
        (10, "BOND_NONE"), (11, "BOND_BONDING"), (12, "BOND_BONDED"),
    ].map { AndroidConstant($0.0, $0.1, .bondState) }

    /// Every table, the framework's first.
    package static let all: [AndroidConstant] =
        bluetoothGattStatuses + disconnectionReasons + gattStatuses + unbondReasons + bondStates

    /// The constants named `name` (case-insensitive; `BluetoothGatt.` and similar prefixes
    /// ignored): one name can be declared in two tables (`GATT_SUCCESS`).
    package static func constants(named name: String) -> [AndroidConstant] {
        let bare = (name.split(separator: ".").last.map(String.init) ?? name).uppercased()
        return all.filter { $0.name == bare }
    }

    /// The constant of a status: for `onConnectionStateChange`, the stack's name of the HCI
    /// reason it carries, or of the stack's own connection statuses (133 `GATT_ERROR`, 147
    /// `GATT_CONNECTION_TIMEOUT`, 257 `GATT_FAILURE`); for a GATT operation's callback, the
    /// framework's public constant where there is one, else the stack's (`tGATT_STATUS`). Nil
    /// for a number no table names there (an HCI reason the stack passes on unnamed).
    package static func constant(_ status: Int, forConnectionState: Bool) -> AndroidConstant? {
        if forConnectionState {
            if let reason = disconnectionReasons.first(where: { $0.value == status }) { return reason }
            guard connectionStatuses.contains(status) else { return nil }
        }
        return bluetoothGattStatuses.first { $0.value == status } ?? gattStatuses.first { $0.value == status }
    }

    /// The statuses of `onConnectionStateChange` that are the stack's own, not an HCI reason.
    static let connectionStatuses: Set<Int> = [0x85, 0x93, 0x101]
}
