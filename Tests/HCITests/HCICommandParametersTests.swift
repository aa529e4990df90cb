import HCI
import TestSupport
import Testing
import Wire

/// One initiating or scanning PHY's parameters, as plain values.
struct PHYEntry: Equatable, Sendable {
    var phy: UInt8
    var values: [UInt16]
}

/// ``HCICommandParameters`` as plain values, for comparison with hand-written expectations.
enum CommandDetail: Equatable, Sendable {
    case disconnect(handle: UInt16, reason: UInt8)
    case setEventMask(UInt64)
    case reset
    case readLocalVersionInformation
    case readLocalSupportedFeatures
    case readBDADDR
    case readRSSI(handle: UInt16)
    case leSetEventMask(UInt64)
    case leReadBufferSize
    case leReadBufferSizeV2
    case leSetAdvertisingParameters(
        intervalMin: UInt16, intervalMax: UInt16, type: UInt8, ownAddressType: UInt8,
        peerAddressType: UInt8, peerAddress: BluetoothAddress, channelMap: UInt8, filterPolicy: UInt8)
    case leSetAdvertisingData(data: [UInt8], offset: Int)
    case leSetScanResponseData(data: [UInt8], offset: Int)
    case leSetAdvertisingEnable(UInt8)
    case leSetScanParameters(type: UInt8, interval: UInt16, window: UInt16, ownAddressType: UInt8, filterPolicy: UInt8)
    case leSetScanEnable(enable: UInt8, filterDuplicates: UInt8)
    case leCreateConnection(
        filterPolicy: UInt8, peerAddressType: UInt8, peerAddress: BluetoothAddress, ownAddressType: UInt8,
        scan: [UInt16], connection: [UInt16], ce: [UInt16])
    case leCreateConnectionCancel
    case leAddDeviceToFilterAcceptList(addressType: UInt8, address: BluetoothAddress)
    case leConnectionUpdate(handle: UInt16, values: [UInt16])
    case leReadRemoteFeatures(handle: UInt16)
    case leStartEncryption(handle: UInt16, random: UInt64, ediv: UInt16, ltk: UInt128)
    case leLongTermKeyRequestReply(handle: UInt16, ltk: UInt128)
    case leLongTermKeyRequestNegativeReply(handle: UInt16)
    case leSetDataLength(handle: UInt16, txOctets: UInt16, txTime: UInt16)
    case leAddDeviceToResolvingList(addressType: UInt8, address: BluetoothAddress, peerIRK: UInt128, localIRK: UInt128)
    case leSetPHY(handle: UInt16, allPHYs: UInt8, tx: UInt8, rx: UInt8, options: UInt16)
    case leSetExtendedAdvertisingParameters(ExtendedAdvertisingParametersDetail)
    case leSetExtendedAdvertisingData(
        handle: UInt8, operation: UInt8, fragmentPreference: UInt8, data: [UInt8], offset: Int)
    case leSetExtendedScanResponseData(
        handle: UInt8, operation: UInt8, fragmentPreference: UInt8, data: [UInt8], offset: Int)
    case leSetExtendedAdvertisingEnable(enable: UInt8, sets: [[UInt16]])
    case leSetExtendedScanParameters(ownAddressType: UInt8, filterPolicy: UInt8, phys: UInt8, entries: [PHYEntry])
    case leSetExtendedScanEnable(enable: UInt8, filterDuplicates: UInt8, duration: UInt16, period: UInt16)
    case leExtendedCreateConnection(
        filterPolicy: UInt8, ownAddressType: UInt8, peerAddressType: UInt8, peerAddress: BluetoothAddress,
        phys: UInt8, entries: [PHYEntry])
    case unknown(opcode: UInt16, parameters: [UInt8])

    init(_ command: HCICommandParameters) {
        switch command {
        case .disconnect(let handle, let reason): self = .disconnect(handle: handle, reason: reason.rawValue)
        case .setEventMask(let mask): self = .setEventMask(mask)
        case .reset: self = .reset
        case .readLocalVersionInformation: self = .readLocalVersionInformation
        case .readLocalSupportedFeatures: self = .readLocalSupportedFeatures
        case .readBDADDR: self = .readBDADDR
        case .readRSSI(let handle): self = .readRSSI(handle: handle)
        case .leSetEventMask(let mask): self = .leSetEventMask(mask)
        case .leReadBufferSize: self = .leReadBufferSize
        case .leReadBufferSizeV2: self = .leReadBufferSizeV2
        case .leSetAdvertisingParameters(let p):
            self = .leSetAdvertisingParameters(
                intervalMin: p.advertisingIntervalMin, intervalMax: p.advertisingIntervalMax, type: p.advertisingType,
                ownAddressType: p.ownAddressType, peerAddressType: p.peerAddressType, peerAddress: p.peerAddress,
                channelMap: p.advertisingChannelMap, filterPolicy: p.advertisingFilterPolicy)
        case .leSetAdvertisingData(let data): self = .leSetAdvertisingData(data: Array(data.bytes), offset: data.offset)
        case .leSetScanResponseData(let data):
            self = .leSetScanResponseData(data: Array(data.bytes), offset: data.offset)
        case .leSetAdvertisingEnable(let enable): self = .leSetAdvertisingEnable(enable)
        case .leSetScanParameters(let p):
            self = .leSetScanParameters(
                type: p.scanType, interval: p.scanInterval, window: p.scanWindow, ownAddressType: p.ownAddressType,
                filterPolicy: p.scanningFilterPolicy)
        case .leSetScanEnable(let enable, let duplicates):
            self = .leSetScanEnable(enable: enable, filterDuplicates: duplicates)
        case .leCreateConnection(let c):
            self = .leCreateConnection(
                filterPolicy: c.initiatorFilterPolicy, peerAddressType: c.peerAddressType, peerAddress: c.peerAddress,
                ownAddressType: c.ownAddressType, scan: [c.scanInterval, c.scanWindow],
                connection: [c.connectionIntervalMin, c.connectionIntervalMax, c.maxLatency, c.supervisionTimeout],
                ce: [c.minCELength, c.maxCELength])
        case .leCreateConnectionCancel: self = .leCreateConnectionCancel
        case .leAddDeviceToFilterAcceptList(let type, let address):
            self = .leAddDeviceToFilterAcceptList(addressType: type, address: address)
        case .leConnectionUpdate(let u):
            self = .leConnectionUpdate(
                handle: u.handle,
                values: [
                    u.connectionIntervalMin, u.connectionIntervalMax, u.maxLatency, u.supervisionTimeout,
                    u.minCELength, u.maxCELength,
                ])
        case .leReadRemoteFeatures(let handle): self = .leReadRemoteFeatures(handle: handle)
        case .leStartEncryption(let s):
            self = .leStartEncryption(
                handle: s.handle, random: s.randomNumber, ediv: s.encryptedDiversifier, ltk: s.longTermKey)
        case .leLongTermKeyRequestReply(let handle, let key):
            self = .leLongTermKeyRequestReply(handle: handle, ltk: key)
        case .leLongTermKeyRequestNegativeReply(let handle): self = .leLongTermKeyRequestNegativeReply(handle: handle)
        case .leSetDataLength(let handle, let octets, let time):
            self = .leSetDataLength(handle: handle, txOctets: octets, txTime: time)
        case .leAddDeviceToResolvingList(let e):
            self = .leAddDeviceToResolvingList(
                addressType: e.peerIdentityAddressType, address: e.peerIdentityAddress, peerIRK: e.peerIRK,
                localIRK: e.localIRK)
        case .leSetPHY(let p):
            self = .leSetPHY(
                handle: p.handle, allPHYs: p.allPHYs, tx: p.txPHYs.rawValue, rx: p.rxPHYs.rawValue,
                options: p.phyOptions)
        case .leSetExtendedAdvertisingParameters(let p):
            self = .leSetExtendedAdvertisingParameters(ExtendedAdvertisingParametersDetail(p))
        case .leSetExtendedAdvertisingData(let d):
            self = .leSetExtendedAdvertisingData(
                handle: d.advertisingHandle, operation: d.operation, fragmentPreference: d.fragmentPreference,
                data: Array(d.data.bytes), offset: d.data.offset)
        case .leSetExtendedScanResponseData(let d):
            self = .leSetExtendedScanResponseData(
                handle: d.advertisingHandle, operation: d.operation, fragmentPreference: d.fragmentPreference,
                data: Array(d.data.bytes), offset: d.data.offset)
        case .leSetExtendedAdvertisingEnable(let e):
            self = .leSetExtendedAdvertisingEnable(
                enable: e.enable,
                sets: e.sets.map {
                    [UInt16($0.advertisingHandle), $0.duration, UInt16($0.maxExtendedAdvertisingEvents)]
                })
        case .leSetExtendedScanParameters(let p):
            self = .leSetExtendedScanParameters(
                ownAddressType: p.ownAddressType, filterPolicy: p.scanningFilterPolicy, phys: p.scanningPHYs.rawValue,
                entries: p.phys.map {
                    PHYEntry(phy: $0.phy.rawValue, values: [UInt16($0.scanType), $0.scanInterval, $0.scanWindow])
                })
        case .leSetExtendedScanEnable(let e):
            self = .leSetExtendedScanEnable(
                enable: e.enable, filterDuplicates: e.filterDuplicates, duration: e.duration, period: e.period)
        case .leExtendedCreateConnection(let c):
            self = .leExtendedCreateConnection(
                filterPolicy: c.initiatorFilterPolicy, ownAddressType: c.ownAddressType,
                peerAddressType: c.peerAddressType, peerAddress: c.peerAddress, phys: c.initiatingPHYs.rawValue,
                entries: c.phys.map { phy, p in
                    PHYEntry(
                        phy: phy.rawValue,
                        values: [
                            p.scanInterval, p.scanWindow, p.connectionIntervalMin, p.connectionIntervalMax,
                            p.maxLatency, p.supervisionTimeout, p.minCELength, p.maxCELength,
                        ])
                })
        case .unknown(let opcode, let parameters):
            self = .unknown(opcode: opcode.rawValue, parameters: Array(parameters))
        }
    }
}

struct ExtendedAdvertisingParametersDetail: Equatable, Sendable {
    var handle: UInt8
    var properties: UInt16
    var intervals: [UInt32]
    var channelMap: UInt8
    var ownAddressType: UInt8
    var peerAddressType: UInt8
    var peerAddress: BluetoothAddress
    var filterPolicy: UInt8
    var txPower: Int8
    var primaryPHY: UInt8
    var secondaryMaxSkip: UInt8
    var secondaryPHY: UInt8
    var sid: UInt8
    var scanRequestNotification: UInt8
}

extension ExtendedAdvertisingParametersDetail {
    init(_ p: LEExtendedAdvertisingParameters) {
        self.init(
            handle: p.advertisingHandle, properties: p.advertisingEventProperties,
            intervals: [p.primaryAdvertisingIntervalMin, p.primaryAdvertisingIntervalMax],
            channelMap: p.primaryAdvertisingChannelMap, ownAddressType: p.ownAddressType,
            peerAddressType: p.peerAddressType, peerAddress: p.peerAddress, filterPolicy: p.advertisingFilterPolicy,
            txPower: p.advertisingTxPower, primaryPHY: p.primaryAdvertisingPHY.rawValue,
            secondaryMaxSkip: p.secondaryAdvertisingMaxSkip, secondaryPHY: p.secondaryAdvertisingPHY.rawValue,
            sid: p.advertisingSID, scanRequestNotification: p.scanRequestNotificationEnable)
    }
}

func decodeCommandDetail(_ bytes: [UInt8]) throws -> CommandDetail {
    try bytes.withUnsafeBytes { raw throws in CommandDetail(try HCICommandParameters.decode(raw)) }
}

/// Every command bletrace decodes in full, written by hand from Core 6.0, Vol 4, Part E, §7 (no H4 indicator).
enum CommandTable {
    typealias Row = FieldPacket<CommandDetail>

    static let rows: [Row] = [
        Row(
            name: "Disconnect (§7.1.6)", framing: .command,
            header: ["06 04", "03"],  // opcode 0x0406 (OGF 0x01, OCF 0x006); 3 parameter bytes
            fields: [
                "40 00",  // Connection_Handle 0x0040
                "13",  // Reason 0x13 Remote User Terminated Connection
            ],
            expected: .disconnect(handle: 0x0040, reason: 0x13)),
        Row(
            name: "Set Event Mask (§7.3.1)", framing: .command,
            header: ["01 0c", "08"],  // opcode 0x0C01 (OGF 0x03, OCF 0x001)
            fields: ["ff ff fb ff 07 f8 bf 3d"],  // Event_Mask 0x3DBFF807FFFBFFFF, low byte first
            expected: .setEventMask(0x3DBF_F807_FFFB_FFFF)),
        Row(
            name: "Reset (§7.3.2)", framing: .command,
            header: ["03 0c", "00"], fields: [], expected: .reset),
        Row(
            name: "Read Local Version Information (§7.4.1)", framing: .command,
            header: ["01 10", "00"],  // opcode 0x1001 (OGF 0x04, OCF 0x001)
            fields: [], expected: .readLocalVersionInformation),
        Row(
            name: "Read Local Supported Features (§7.4.3)", framing: .command,
            header: ["03 10", "00"], fields: [], expected: .readLocalSupportedFeatures),
        Row(
            name: "Read BD_ADDR (§7.4.6)", framing: .command,
            header: ["09 10", "00"], fields: [], expected: .readBDADDR),
        Row(
            name: "Read RSSI (§7.5.4)", framing: .command,
            header: ["05 14", "02"],  // opcode 0x1405 (OGF 0x05, OCF 0x005)
            fields: ["41 00"],  // Handle 0x0041
            expected: .readRSSI(handle: 0x0041)),
        Row(
            name: "LE Set Event Mask (§7.8.1)", framing: .command,
            header: ["01 20", "08"],  // opcode 0x2001 (OGF 0x08, OCF 0x001)
            fields: ["1f 0a 00 00 00 00 00 00"],  // bits 0-4 (subevents 1-5), 9 (0x0A), 11 (0x0C)
            expected: .leSetEventMask(0x0A1F)),
        Row(
            name: "LE Read Buffer Size v1 (§7.8.2)", framing: .command,
            header: ["02 20", "00"], fields: [], expected: .leReadBufferSize),
        Row(
            name: "LE Read Buffer Size v2 (§7.8.2)", framing: .command,
            header: ["60 20", "00"], fields: [], expected: .leReadBufferSizeV2),
        Row(
            name: "LE Set Advertising Parameters (§7.8.5)", framing: .command,
            header: ["06 20", "0f"],  // 15 parameter bytes
            fields: [
                "a0 00",  // Advertising_Interval_Min 0x00A0 (100 ms)
                "f0 00",  // Advertising_Interval_Max 0x00F0 (150 ms)
                "00",  // Advertising_Type ADV_IND
                "01",  // Own_Address_Type random
                "00",  // Peer_Address_Type public
                "00 00 00 00 00 00",  // Peer_Address (undirected: unused)
                "07",  // Advertising_Channel_Map 37, 38, 39
                "00",  // Advertising_Filter_Policy: anyone
            ],
            expected: .leSetAdvertisingParameters(
                intervalMin: 0x00A0, intervalMax: 0x00F0, type: 0, ownAddressType: 1, peerAddressType: 0,
                peerAddress: BluetoothAddress(rawValue: 0), channelMap: 0x07, filterPolicy: 0)),
        Row(
            name: "LE Set Advertising Data (§7.8.7)", framing: .command,
            header: ["08 20", "20"],  // 32 parameter bytes: the length and the 31-byte field
            fields: [
                "0f",  // Advertising_Data_Length 15
                "02 01 06"  // Advertising_Data: Flags 0x06
                    + " 0b 09 62 6c 65 74 72 61 63 65 2d 31"  // Complete Local Name "bletrace-1"
                    + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",  // 16 bytes of padding
            ],
            expected: .leSetAdvertisingData(
                data: [0x02, 0x01, 0x06, 0x0B, 0x09, 0x62, 0x6C, 0x65, 0x74, 0x72, 0x61, 0x63, 0x65, 0x2D, 0x31],
                offset: 4)),
        Row(
            name: "LE Set Scan Response Data, empty (§7.8.8)", framing: .command,
            header: ["09 20", "20"],
            fields: [
                "00",  // Scan_Response_Data_Length 0
                "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
                    + " 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",  // 31 bytes, all padding
            ],
            expected: .leSetScanResponseData(data: [], offset: 4)),
        Row(
            name: "LE Set Advertising Enable (§7.8.9)", framing: .command,
            header: ["0a 20", "01"], fields: ["01"],  // Advertising_Enable: on
            expected: .leSetAdvertisingEnable(1)),
        Row(
            name: "LE Set Scan Parameters (§7.8.10)", framing: .command,
            header: ["0b 20", "07"],
            fields: [
                "01",  // LE_Scan_Type active
                "10 00",  // LE_Scan_Interval 0x0010 (10 ms)
                "10 00",  // LE_Scan_Window 0x0010
                "01",  // Own_Address_Type random
                "00",  // Scanning_Filter_Policy: accept all
            ],
            expected: .leSetScanParameters(
                type: 1, interval: 0x0010, window: 0x0010, ownAddressType: 1, filterPolicy: 0)),
        Row(
            name: "LE Set Scan Enable (§7.8.11)", framing: .command,
            header: ["0c 20", "02"],
            fields: [
                "01",  // LE_Scan_Enable on
                "00",  // Filter_Duplicates off
            ],
            expected: .leSetScanEnable(enable: 1, filterDuplicates: 0)),
        Row(
            name: "LE Create Connection (§7.8.12)", framing: .command,
            header: ["0d 20", "19"],  // 25 parameter bytes
            fields: [
                "60 00",  // LE_Scan_Interval 0x0060
                "30 00",  // LE_Scan_Window 0x0030
                "00",  // Initiator_Filter_Policy: use Peer_Address
                "01",  // Peer_Address_Type random
                "56 34 12 be 5b c4",  // Peer_Address C4:5B:BE:12:34:56
                "00",  // Own_Address_Type public
                "18 00",  // Connection_Interval_Min 0x0018
                "28 00",  // Connection_Interval_Max 0x0028
                "00 00",  // Max_Latency 0
                "f4 01",  // Supervision_Timeout 0x01F4
                "02 00",  // Min_CE_Length 0x0002
                "04 00",  // Max_CE_Length 0x0004
            ],
            expected: .leCreateConnection(
                filterPolicy: 0, peerAddressType: 1, peerAddress: address("C4:5B:BE:12:34:56"), ownAddressType: 0,
                scan: [0x0060, 0x0030], connection: [0x0018, 0x0028, 0, 0x01F4], ce: [0x0002, 0x0004])),
        Row(
            name: "LE Create Connection Cancel (§7.8.13)", framing: .command,
            header: ["0e 20", "00"], fields: [], expected: .leCreateConnectionCancel),
        Row(
            name: "LE Add Device To Filter Accept List (§7.8.16)", framing: .command,
            header: ["11 20", "07"],
            fields: [
                "01",  // Address_Type random
                "56 34 12 be 5b c4",  // Address C4:5B:BE:12:34:56
            ],
            expected: .leAddDeviceToFilterAcceptList(addressType: 1, address: address("C4:5B:BE:12:34:56"))),
        Row(
            name: "LE Connection Update (§7.8.18)", framing: .command,
            header: ["13 20", "0e"],  // 14 parameter bytes
            fields: [
                "40 00",  // Connection_Handle 0x0040
                "06 00",  // Connection_Interval_Min 0x0006 (7.5 ms)
                "0c 00",  // Connection_Interval_Max 0x000C (15 ms)
                "02 00",  // Max_Latency 2
                "2c 01",  // Supervision_Timeout 0x012C (3 s)
                "00 00",  // Min_CE_Length 0
                "0c 00",  // Max_CE_Length 0x000C
            ],
            expected: .leConnectionUpdate(handle: 0x0040, values: [0x0006, 0x000C, 2, 0x012C, 0, 0x000C])),
        Row(
            name: "LE Read Remote Features (§7.8.21)", framing: .command,
            header: ["16 20", "02"], fields: ["40 00"],  // Connection_Handle 0x0040
            expected: .leReadRemoteFeatures(handle: 0x0040)),
        Row(
            name: "LE Start Encryption (§7.8.24)", framing: .command,
            header: ["19 20", "1c"],  // 28 parameter bytes
            fields: [
                "40 00",  // Connection_Handle 0x0040
                "01 02 03 04 05 06 07 08",  // Random_Number 0x0807060504030201
                "34 12",  // Encrypted_Diversifier 0x1234
                "00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff",  // Long_Term_Key, low byte first
            ],
            expected: .leStartEncryption(
                handle: 0x0040, random: 0x0807_0605_0403_0201, ediv: 0x1234,
                ltk: 0xFFEE_DDCC_BBAA_9988_7766_5544_3322_1100)),
        Row(
            name: "LE Long Term Key Request Reply (§7.8.25)", framing: .command,
            header: ["1a 20", "12"],  // 18 parameter bytes
            fields: [
                "41 00",  // Connection_Handle 0x0041
                "bf 01 fb 9d 4e f3 bc 36 d8 74 f5 39 41 38 68 4c",  // Long_Term_Key, low byte first
            ],
            expected: .leLongTermKeyRequestReply(handle: 0x0041, ltk: 0x4C68_3841_39F5_74D8_36BC_F34E_9DFB_01BF)),
        Row(
            name: "LE Long Term Key Request Negative Reply (§7.8.26)", framing: .command,
            header: ["1b 20", "02"], fields: ["41 00"],
            expected: .leLongTermKeyRequestNegativeReply(handle: 0x0041)),
        Row(
            name: "LE Set Data Length (§7.8.33)", framing: .command,
            header: ["22 20", "06"],
            fields: [
                "40 00",  // Connection_Handle
                "fb 00",  // TX_Octets 251
                "48 08",  // TX_Time 0x0848 (2120 µs)
            ],
            expected: .leSetDataLength(handle: 0x0040, txOctets: 251, txTime: 2120)),
        Row(
            name: "LE Add Device To Resolving List (§7.8.38)", framing: .command,
            header: ["27 20", "27"],  // 39 parameter bytes
            fields: [
                "00",  // Peer_Identity_Address_Type public
                "13 71 da 7d 1a 00",  // Peer_Identity_Address 00:1A:7D:DA:71:13
                "0f 0e 0d 0c 0b 0a 09 08 07 06 05 04 03 02 01 00",  // Peer_IRK, low byte first
                "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",  // Local_IRK: none
            ],
            expected: .leAddDeviceToResolvingList(
                addressType: 0, address: address("00:1A:7D:DA:71:13"),
                peerIRK: 0x0001_0203_0405_0607_0809_0A0B_0C0D_0E0F, localIRK: 0)),
        Row(
            name: "LE Set PHY (§7.8.49)", framing: .command,
            header: ["32 20", "07"],
            fields: [
                "40 00",  // Connection_Handle
                "00",  // All_PHYs: preferences follow for both directions
                "02",  // TX_PHYs: LE 2M
                "06",  // RX_PHYs: LE 2M and LE Coded
                "01 00",  // PHY_Options: prefer S=2
            ],
            expected: .leSetPHY(handle: 0x0040, allPHYs: 0, tx: 0x02, rx: 0x06, options: 1)),
        Row(
            name: "LE Set Extended Advertising Parameters v1 (§7.8.53)", framing: .command,
            header: ["36 20", "19"],  // 25 parameter bytes
            fields: [
                "01",  // Advertising_Handle 1
                "13 00",  // Advertising_Event_Properties: connectable, scannable, legacy
                "a0 00 00",  // Primary_Advertising_Interval_Min 0x0000A0 (3 bytes)
                "40 01 00",  // Primary_Advertising_Interval_Max 0x000140
                "07",  // Primary_Advertising_Channel_Map: all three
                "01",  // Own_Address_Type random
                "00",  // Peer_Address_Type
                "00 00 00 00 00 00",  // Peer_Address
                "00",  // Advertising_Filter_Policy
                "7f",  // Advertising_TX_Power 127: no preference
                "01",  // Primary_Advertising_PHY LE 1M
                "00",  // Secondary_Advertising_Max_Skip
                "02",  // Secondary_Advertising_PHY LE 2M
                "03",  // Advertising_SID 3
                "00",  // Scan_Request_Notification_Enable off
            ],
            expected: .leSetExtendedAdvertisingParameters(
                ExtendedAdvertisingParametersDetail(
                    handle: 1, properties: 0x0013, intervals: [0xA0, 0x140], channelMap: 7, ownAddressType: 1,
                    peerAddressType: 0, peerAddress: BluetoothAddress(rawValue: 0), filterPolicy: 0, txPower: 127,
                    primaryPHY: 1, secondaryMaxSkip: 0, secondaryPHY: 2, sid: 3, scanRequestNotification: 0))),
        Row(
            name: "LE Set Extended Advertising Data (§7.8.54)", framing: .command,
            header: ["37 20", "0b"],  // 11 = 4 + 7
            fields: [
                "01",  // Advertising_Handle 1
                "03",  // Operation: complete data
                "01",  // Fragment_Preference: do not fragment
                "07",  // Advertising_Data_Length 7
                "02 01 06 03 03 0d 18",  // Flags 0x06; Complete 16-bit UUIDs: 0x180D
            ],
            expected: .leSetExtendedAdvertisingData(
                handle: 1, operation: 3, fragmentPreference: 1,
                data: [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18], offset: 7)),
        Row(
            name: "LE Set Extended Scan Response Data (§7.8.55)", framing: .command,
            header: ["38 20", "10"],  // 16 = 4 + 12
            fields: [
                "01",  // Advertising_Handle 1
                "03",  // Operation: complete data
                "00",  // Fragment_Preference: the controller may fragment
                "0c",  // Scan_Response_Data_Length 12
                "0b 09 68 65 61 72 74 2d 72 61 74 65",  // Complete Local Name "heart-rate"
            ],
            expected: .leSetExtendedScanResponseData(
                handle: 1, operation: 3, fragmentPreference: 0,
                data: [0x0B, 0x09, 0x68, 0x65, 0x61, 0x72, 0x74, 0x2D, 0x72, 0x61, 0x74, 0x65], offset: 7)),
        Row(
            name: "LE Set Extended Advertising Enable, two sets (§7.8.56)", framing: .command,
            header: ["39 20", "0a"],  // 10 = 2 + 2 × 4
            fields: [
                "01",  // Enable
                "02",  // Num_Sets 2
                "00",  // Advertising_Handle[0] 0
                "00 00",  // Duration[0]: until disabled
                "00",  // Max_Extended_Advertising_Events[0]: no maximum
                "01",  // Advertising_Handle[1] 1
                "f4 01",  // Duration[1] 0x01F4 (5 s)
                "0a",  // Max_Extended_Advertising_Events[1] 10
            ],
            expected: .leSetExtendedAdvertisingEnable(enable: 1, sets: [[0, 0, 0], [1, 0x01F4, 10]])),
        Row(
            name: "LE Set Extended Advertising Enable, disable all (§7.8.56)", framing: .command,
            header: ["39 20", "02"],
            fields: [
                "00",  // Enable: off
                "00",  // Num_Sets 0: every set
            ],
            expected: .leSetExtendedAdvertisingEnable(enable: 0, sets: [])),
        Row(
            name: "LE Set Extended Scan Parameters, 1M and Coded (§7.8.64)", framing: .command,
            header: ["41 20", "0d"],  // 13 = 3 + 2 × 5
            fields: [
                "01",  // Own_Address_Type random
                "00",  // Scanning_Filter_Policy
                "05",  // Scanning_PHYs: LE 1M (bit 0), LE Coded (bit 2)
                "01",  // Scan_Type[0] (1M) active
                "12 00",  // Scan_Interval[0] 0x0012
                "12 00",  // Scan_Window[0] 0x0012
                "00",  // Scan_Type[1] (Coded) passive
                "36 00",  // Scan_Interval[1] 0x0036
                "1b 00",  // Scan_Window[1] 0x001B
            ],
            expected: .leSetExtendedScanParameters(
                ownAddressType: 1, filterPolicy: 0, phys: 0x05,
                entries: [PHYEntry(phy: 1, values: [1, 0x12, 0x12]), PHYEntry(phy: 3, values: [0, 0x36, 0x1B])])),
        Row(
            name: "LE Set Extended Scan Enable (§7.8.65)", framing: .command,
            header: ["42 20", "06"],
            fields: [
                "01",  // Enable
                "01",  // Filter_Duplicates on
                "e8 03",  // Duration 0x03E8 (10 s)
                "00 00",  // Period 0: continuous
            ],
            expected: .leSetExtendedScanEnable(enable: 1, filterDuplicates: 1, duration: 1000, period: 0)),
        Row(
            name: "LE Extended Create Connection, 1M (§7.8.66)", framing: .command,
            header: ["43 20", "1a"],  // 26 = 10 + 16
            fields: [
                "00",  // Initiator_Filter_Policy
                "01",  // Own_Address_Type random
                "00",  // Peer_Address_Type public
                "13 71 da 7d 1a 00",  // Peer_Address 00:1A:7D:DA:71:13
                "01",  // Initiating_PHYs: LE 1M
                "60 00",  // Scan_Interval[0]
                "60 00",  // Scan_Window[0]
                "18 00",  // Connection_Interval_Min[0]
                "18 00",  // Connection_Interval_Max[0]
                "04 00",  // Max_Latency[0]
                "48 00",  // Supervision_Timeout[0] 0x0048 (720 ms)
                "00 00",  // Min_CE_Length[0]
                "00 00",  // Max_CE_Length[0]
            ],
            expected: .leExtendedCreateConnection(
                filterPolicy: 0, ownAddressType: 1, peerAddressType: 0, peerAddress: address("00:1A:7D:DA:71:13"),
                phys: 0x01,
                entries: [PHYEntry(phy: 1, values: [0x60, 0x60, 0x18, 0x18, 4, 0x48, 0, 0])])),
        Row(
            name: "LE Extended Create Connection, 2M and Coded (§7.8.66)", framing: .command,
            header: ["43 20", "2a"],  // 42 = 10 + 2 × 16
            fields: [
                "01",  // Initiator_Filter_Policy: Filter Accept List
                "00",  // Own_Address_Type
                "00",  // Peer_Address_Type
                "00 00 00 00 00 00",  // Peer_Address (ignored)
                "06",  // Initiating_PHYs: LE 2M (bit 1), LE Coded (bit 2)
                "60 00", "30 00",  // 2M: Scan_Interval, Scan_Window
                "18 00", "28 00",  // 2M: Connection_Interval_Min, _Max
                "00 00", "c8 00",  // 2M: Max_Latency, Supervision_Timeout 0x00C8
                "00 00", "00 00",  // 2M: Min_CE_Length, Max_CE_Length
                "20 01", "20 01",  // Coded: Scan_Interval 0x0120, Scan_Window 0x0120
                "30 00", "40 00",  // Coded: Connection_Interval_Min 0x30, _Max 0x40
                "01 00", "90 01",  // Coded: Max_Latency 1, Supervision_Timeout 0x0190
                "10 00", "20 00",  // Coded: Min_CE_Length 0x10, Max_CE_Length 0x20
            ],
            expected: .leExtendedCreateConnection(
                filterPolicy: 1, ownAddressType: 0, peerAddressType: 0, peerAddress: BluetoothAddress(rawValue: 0),
                phys: 0x06,
                entries: [
                    PHYEntry(phy: 2, values: [0x60, 0x30, 0x18, 0x28, 0, 0xC8, 0, 0]),
                    PHYEntry(phy: 3, values: [0x120, 0x120, 0x30, 0x40, 1, 0x190, 0x10, 0x20]),
                ])),
        Row(
            name: "Vendor command (kept raw)", framing: .command,
            header: ["53 fd", "03"],  // opcode 0xFD53 (OGF 0x3F)
            fields: ["01", "02", "03"],  // raw: may end after any byte
            endsAfter: [0, 1, 2],
            expected: .unknown(opcode: 0xFD53, parameters: [0x01, 0x02, 0x03])),
    ]
}

@Suite struct HCICommandParametersTests {
    @Test(arguments: CommandTable.rows)
    func handWrittenLengthMatchesTheFields(_ row: CommandTable.Row) {
        TableChecks.declaredLengthMatches(row)
    }

    @Test(arguments: CommandTable.rows)
    func decodesEveryField(_ row: CommandTable.Row) throws {
        try TableChecks.decodes(row, decodeCommandDetail)
    }

    @Test(arguments: CommandTable.rows)
    func opcodeIsTheOneInThePacket(_ row: CommandTable.Row) throws {
        let opcode = try row.bytes.withUnsafeBytes { raw throws in try HCICommandParameters.decode(raw).opcode }
        #expect(opcode.rawValue == UInt16(row.headerBytes[0]) | UInt16(row.headerBytes[1]) << 8)
        #expect(opcode.name != nil || opcode.ogf == 0x3F)
    }

    @Test(arguments: CommandTable.rows)
    func everyTruncationPrefixThrowsAtTheMissingByte(_ row: CommandTable.Row) {
        TableChecks.everyRawPrefixThrows(row, layer: .hci, decodeCommandDetail)
    }

    @Test(arguments: CommandTable.rows)
    func everyShortParameterListThrowsAtTheFirstMissingField(_ row: CommandTable.Row) {
        TableChecks.everyShortParameterListThrowsAtTheMissingField(row, layer: .hci, decodeCommandDetail)
    }

    /// The summary's raw parameters decode the same way, with offsets still from the packet start.
    @Test(arguments: CommandTable.rows)
    func parametersOfTheSummaryDecodeTheSame(_ row: CommandTable.Row) throws {
        let bytes = row.bytes
        let viaSummary = try bytes.withUnsafeBytes { raw throws -> CommandDetail in
            let opcode = HCIOpcode(rawValue: UInt16(raw[0]) | UInt16(raw[1]) << 8)
            let parameters = UnsafeRawBufferPointer(rebasing: raw[3...])
            return CommandDetail(try HCICommandParameters.decode(opcode: opcode, parameters: parameters))
        }
        #expect(viaSummary == row.expected)
        // And a short one fails at the same offset as the whole packet would.
        guard row.parameterBytes.count > 1, row.endsAfter.isEmpty else { return }
        let short = row.shortened(to: row.parameterBytes.count - 1)
        let error = #expect(throws: DecodeError.self) {
            try short.withUnsafeBytes { raw throws in
                let opcode = HCIOpcode(rawValue: UInt16(raw[0]) | UInt16(raw[1]) << 8)
                _ = try HCICommandParameters.decode(
                    opcode: opcode, parameters: UnsafeRawBufferPointer(rebasing: raw[3...]))
            }
        }
        let missing = try #require(row.firstMissingField(within: row.parameterBytes.count - 1))
        #expect(error?.offset == 3 + missing)
    }

    @Test func advertisingDataLongerThan31IsRefusedAtItsLengthField() {
        let bytes = packet("08 20", "20", "20", Array(repeating: "00", count: 31).joined(separator: " "))
        let error = #expect(throws: DecodeError.self) { try decodeCommandDetail(bytes) }
        #expect(error?.offset == 3)  // Advertising_Data_Length 32
    }

    @Test func extendedCreateConnectionShorterThanItsPHYsSayFailsInTheMissingPHY() {
        // Initiating_PHYs says two PHYs (0x05) but only one PHY's 16 bytes follow.
        let bytes = packet(
            "43 20", "1a", "00", "01", "00", "13 71 da 7d 1a 00", "05",
            "60 00 60 00 18 00 18 00 04 00 48 00 00 00 00 00")
        let error = #expect(throws: DecodeError.self) { try decodeCommandDetail(bytes) }
        #expect(error?.offset == 3 + 10 + 16)  // the second PHY's Scan_Interval
        // The summary decoder checks the same.
        let summary = #expect(throws: DecodeError.self) { try decodeCommand(bytes) }
        #expect(summary?.offset == 3 + 10 + 16)
    }

    @Test func extendedCreateConnectionLongerThanItsPHYsSayFailsAfterTheLastPHY() {
        // Initiating_PHYs says one PHY (0x01) but two PHYs' 32 bytes follow.
        let bytes = packet(
            "43 20", "2a", "00", "01", "00", "13 71 da 7d 1a 00", "01",
            "60 00 60 00 18 00 18 00 04 00 48 00 00 00 00 00",
            "60 00 60 00 18 00 18 00 04 00 48 00 00 00 00 00")
        let error = #expect(throws: DecodeError.self) { try decodeCommandDetail(bytes) }
        #expect(error?.offset == 3 + 10 + 16)
        let summary = #expect(throws: DecodeError.self) { try decodeCommand(bytes) }
        #expect(summary?.offset == 3 + 10 + 16)
    }

    @Test func extendedScanParametersWithNoPHYFailsAtThePHYField() {
        let bytes = packet("41 20", "03", "00", "00", "00")
        let error = #expect(throws: DecodeError.self) { try decodeCommandDetail(bytes) }
        #expect(error?.offset == 5)
    }

    @Test func extendedAdvertisingDataWithBytesAfterItsDataFails() {
        // Advertising_Data_Length 3, but 4 data bytes within the parameter length.
        let bytes = packet("37 20", "08", "01", "03", "01", "03", "02 01 06", "ff")
        let error = #expect(throws: DecodeError.self) { try decodeCommandDetail(bytes) }
        #expect(error?.offset == 3 + 4 + 3)
    }

    @Test func extendedAdvertisingEnableWithBytesAfterTheLastSetFails() {
        let bytes = packet("39 20", "07", "01", "01", "00 00 00 00", "ee")
        let error = #expect(throws: DecodeError.self) { try decodeCommandDetail(bytes) }
        #expect(error?.offset == 3 + 2 + 4)
    }

    @Test func fixedSizeCommandsIgnoreBytesAfterTheirFields() throws {
        // Read RSSI with a stray byte inside the declared length.
        #expect(try decodeCommandDetail(packet("05 14", "03", "41 00", "99")) == .readRSSI(handle: 0x0041))
    }

    @Test func handlesDropTheReservedBits() throws {
        #expect(try decodeCommandDetail(packet("16 20", "02", "40 f0")) == .leReadRemoteFeatures(handle: 0x0040))
    }

    @Test func legacyAdvertisingDataParsesIntoStructuresWithPacketOffsets() throws {
        let row = CommandTable.rows.first { $0.name.hasPrefix("LE Set Advertising Data") }!
        try row.bytes.withUnsafeBytes { raw throws in
            guard case .leSetAdvertisingData(let data) = try HCICommandParameters.decode(raw) else {
                Issue.record("not LE Set Advertising Data")
                return
            }
            let structures = try data.structures()
            #expect(structures.map(\.offset) == [4, 7])  // each structure's length byte
            #expect(structures.flags == [.leGeneralDiscoverableMode, .brEDRNotSupported])
            #expect(structures.localName == "bletrace-1")
            #expect(structures.padding.isEmpty)
        }
    }

    @Test func extendedPHYListsNameTheirPHYs() throws {
        let row = CommandTable.rows.first { $0.name.hasPrefix("LE Extended Create Connection, 2M") }!
        try row.bytes.withUnsafeBytes { raw throws in
            guard case .leExtendedCreateConnection(let c) = try HCICommandParameters.decode(raw) else {
                Issue.record("not LE Extended Create Connection")
                return
            }
            #expect(c.phys.map(\.phy) == [.le2M, .leCoded])
            #expect(c.usesFilterAcceptList)
            #expect(c.summary.supervisionTimeout == 0x00C8)
            #expect(c.summary.scanWindow == 0x0030)
        }
    }

    @Test func commandHandles() throws {
        func handle(_ hex: [String]) throws -> UInt16? {
            try packet(hex).withUnsafeBytes { raw throws in try HCICommandParameters.decode(raw).handle }
        }
        #expect(try handle(["06 04", "03", "40 00", "13"]) == 0x0040)
        #expect(try handle(["32 20", "07", "42 00", "00", "02", "02", "00 00"]) == 0x0042)
        #expect(try handle(["03 0c", "00"]) == nil)
    }

    @Test func opcodeNames() {
        #expect(HCIOpcode.leSetExtendedAdvertisingEnable.description == "LE Set Extended Advertising Enable")
        #expect(HCIOpcode.leLongTermKeyRequestNegativeReply.description == "LE Long Term Key Request Negative Reply")
        #expect(HCIOpcode.readRSSI.rawValue == 0x1405)
        #expect(HCIOpcode.leReadBufferSizeV2.rawValue == 0x2060)
        #expect(HCIOpcode(rawValue: 0xFD53).description == "Vendor Command 0xfd53")
        #expect(HCIOpcode(rawValue: 0x0BFF).description == "HCIOpcode(0xbff)")
    }
}
