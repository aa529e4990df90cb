import HCI
import TestSupport
import Testing
import Wire

/// ``HCIReturnParameters`` as plain values.
enum ReturnDetail: Equatable, Sendable {
    case status(UInt8)
    case version(status: UInt8, hci: UInt8, hciSubversion: UInt16, lmp: UInt8, company: UInt16, lmpSubversion: UInt16)
    case features(status: UInt8, UInt64)
    case bdaddr(status: UInt8, BluetoothAddress)
    case rssi(status: UInt8, handle: UInt16, rssi: Int8)
    case bufferSize(status: UInt8, aclLength: UInt16, aclCount: UInt8, isoLength: UInt16?, isoCount: UInt8?)
    case selectedTxPower(status: UInt8, Int8)
    case handle(status: UInt8, UInt16)
    case keySize(status: UInt8, handle: UInt16, size: UInt8)
    case unknown([UInt8])

    init(_ parameters: HCIReturnParameters) {
        switch parameters {
        case .status(let status): self = .status(status.rawValue)
        case .readLocalVersionInformation(let v):
            self = .version(
                status: v.status.rawValue, hci: v.hciVersion.rawValue, hciSubversion: v.hciSubversion,
                lmp: v.lmpVersion.rawValue, company: v.companyIdentifier, lmpSubversion: v.lmpSubversion)
        case .readLocalSupportedFeatures(let status, let features): self = .features(status: status.rawValue, features)
        case .readBDADDR(let status, let address): self = .bdaddr(status: status.rawValue, address)
        case .readRSSI(let status, let handle, let rssi):
            self = .rssi(status: status.rawValue, handle: handle, rssi: rssi)
        case .leReadBufferSize(let b):
            self = .bufferSize(
                status: b.status.rawValue, aclLength: b.leACLDataPacketLength, aclCount: b.totalNumLEACLDataPackets,
                isoLength: b.isoDataPacketLength, isoCount: b.totalNumISODataPackets)
        case .leSetExtendedAdvertisingParameters(let status, let power):
            self = .selectedTxPower(status: status.rawValue, power)
        case .connectionHandle(let status, let handle): self = .handle(status: status.rawValue, handle)
        case .readEncryptionKeySize(let status, let handle, let size):
            self = .keySize(status: status.rawValue, handle: handle, size: size)
        case .unknown(let raw): self = .unknown(Array(raw))
        }
    }
}

struct AdvertisingReportDetail: Equatable, Sendable {
    var eventType: UInt8
    var addressType: UInt8
    var address: BluetoothAddress
    var data: [UInt8]
    var dataOffset: Int
    var rssi: Int8?
}

struct ExtendedReportDetail: Equatable, Sendable {
    var eventType: UInt16
    var addressType: UInt8
    var address: BluetoothAddress
    var phys: [UInt8]  // primary, secondary
    var sid: UInt8
    var txPower: Int8?
    var rssi: Int8?
    var periodicInterval: UInt16
    var directAddressType: UInt8
    var directAddress: BluetoothAddress
    var data: [UInt8]
    var dataOffset: Int
}

struct LEConnectionDetail: Equatable, Sendable {
    var subevent: UInt8
    var status: UInt8
    var handle: UInt16
    var role: UInt8
    var peerAddressType: UInt8
    var peerAddress: BluetoothAddress
    var resolvable: [BluetoothAddress]? = nil  // local, peer (enhanced only)
    var timing: [UInt16]  // interval, latency, supervision timeout
    var clockAccuracy: UInt8
    var advertisingHandle: UInt8? = nil
    var syncHandle: UInt16? = nil
}

/// ``HCIEventParameters`` as plain values.
enum EventDetail: Equatable, Sendable {
    case connectionComplete(
        status: UInt8, handle: UInt16, address: BluetoothAddress, linkType: UInt8, encryption: UInt8)
    case disconnectionComplete(status: UInt8, handle: UInt16, reason: UInt8)
    case encryptionChange(status: UInt8, handle: UInt16, enabled: UInt8, keySize: UInt8?)
    case commandComplete(numPackets: UInt8, opcode: UInt16, ReturnDetail)
    case commandStatus(status: UInt8, numPackets: UInt8, opcode: UInt16)
    case hardwareError(UInt8)
    case numberOfCompletedPackets([[UInt16]])
    case dataBufferOverflow(linkType: UInt8)
    case encryptionKeyRefreshComplete(status: UInt8, handle: UInt16)
    case readRemoteVersion(status: UInt8, handle: UInt16, version: UInt8, company: UInt16, subversion: UInt16)
    case inquiryComplete(status: UInt8)
    case connectionRequest(address: BluetoothAddress, classOfDevice: UInt32, linkType: UInt8)
    case authenticationComplete(status: UInt8, handle: UInt16)
    case remoteNameRequestComplete(status: UInt8, address: BluetoothAddress, name: [UInt8])
    case readRemoteSupportedFeatures(status: UInt8, handle: UInt16, features: UInt64)
    case modeChange(status: UInt8, handle: UInt16, mode: UInt8, interval: UInt16)
    case linkKeyRequest(address: BluetoothAddress)
    case maxSlotsChange(handle: UInt16, slots: UInt8)
    case readClockOffsetComplete(status: UInt8, handle: UInt16, offset: UInt16)
    case connectionPacketTypeChanged(status: UInt8, handle: UInt16, packetType: UInt16)
    case readRemoteExtendedFeatures(status: UInt8, handle: UInt16, page: UInt8, maxPage: UInt8, features: UInt64)
    case sniffSubrating(status: UInt8, handle: UInt16, values: [UInt16])
    case leAdvertisingSetTerminated(status: UInt8, advertisingHandle: UInt8, handle: UInt16, events: UInt8)
    case leConnectionComplete(LEConnectionDetail)
    case leAdvertisingReport([AdvertisingReportDetail])
    case leConnectionUpdateComplete(status: UInt8, handle: UInt16, timing: [UInt16])
    case leReadRemoteFeaturesComplete(status: UInt8, handle: UInt16, features: UInt64)
    case leLongTermKeyRequest(handle: UInt16, random: UInt64, ediv: UInt16)
    case leRemoteConnectionParameterRequest(handle: UInt16, values: [UInt16])
    case leDataLengthChange(handle: UInt16, values: [UInt16])
    case lePHYUpdateComplete(status: UInt8, handle: UInt16, tx: UInt8, rx: UInt8)
    case leExtendedAdvertisingReport([ExtendedReportDetail])
    case leChannelSelectionAlgorithm(handle: UInt16, algorithm: UInt8)
    case leUnknown(subevent: UInt8, parameters: [UInt8])
    case unknown(code: UInt8, parameters: [UInt8])

    init(_ event: HCIEventParameters) {
        switch event {
        case .connectionComplete(let c):
            self = .connectionComplete(
                status: c.status.rawValue, handle: c.handle, address: c.address, linkType: c.linkType,
                encryption: c.encryptionEnabled)
        case .disconnectionComplete(let status, let handle, let reason):
            self = .disconnectionComplete(status: status.rawValue, handle: handle, reason: reason.rawValue)
        case .encryptionChange(let e):
            self = .encryptionChange(
                status: e.status.rawValue, handle: e.handle, enabled: e.encryptionEnabled, keySize: e.keySize)
        case .commandComplete(let c):
            self = .commandComplete(
                numPackets: c.numPackets, opcode: c.opcode.rawValue, ReturnDetail(c.returnParameters))
        case .commandStatus(let status, let numPackets, let opcode):
            self = .commandStatus(status: status.rawValue, numPackets: numPackets, opcode: opcode.rawValue)
        case .hardwareError(let code): self = .hardwareError(code)
        case .numberOfCompletedPackets(let list):
            self = .numberOfCompletedPackets(list.map { [$0.handle, $0.completedPackets] })
        case .dataBufferOverflow(let linkType): self = .dataBufferOverflow(linkType: linkType)
        case .encryptionKeyRefreshComplete(let status, let handle):
            self = .encryptionKeyRefreshComplete(status: status.rawValue, handle: handle)
        case .readRemoteVersionInformationComplete(let status, let handle, let version, let company, let subversion):
            self = .readRemoteVersion(
                status: status.rawValue, handle: handle, version: version, company: company, subversion: subversion)
        case .inquiryComplete(let status): self = .inquiryComplete(status: status.rawValue)
        case .connectionRequest(let r):
            self = .connectionRequest(address: r.address, classOfDevice: r.classOfDevice, linkType: r.linkType.rawValue)
        case .authenticationComplete(let status, let handle):
            self = .authenticationComplete(status: status.rawValue, handle: handle)
        case .remoteNameRequestComplete(let c):
            self = .remoteNameRequestComplete(status: c.status.rawValue, address: c.address, name: Array(c.remoteName))
        case .readRemoteSupportedFeaturesComplete(let status, let handle, let features):
            self = .readRemoteSupportedFeatures(status: status.rawValue, handle: handle, features: features)
        case .modeChange(let m):
            self = .modeChange(
                status: m.status.rawValue, handle: m.handle, mode: m.currentMode.rawValue, interval: m.interval)
        case .linkKeyRequest(let address): self = .linkKeyRequest(address: address)
        case .maxSlotsChange(let handle, let slots): self = .maxSlotsChange(handle: handle, slots: slots)
        case .readClockOffsetComplete(let status, let handle, let offset):
            self = .readClockOffsetComplete(status: status.rawValue, handle: handle, offset: offset)
        case .connectionPacketTypeChanged(let status, let handle, let packetType):
            self = .connectionPacketTypeChanged(status: status.rawValue, handle: handle, packetType: packetType)
        case .readRemoteExtendedFeaturesComplete(let f):
            self = .readRemoteExtendedFeatures(
                status: f.status.rawValue, handle: f.handle, page: f.pageNumber, maxPage: f.maxPageNumber,
                features: f.extendedLMPFeatures)
        case .sniffSubrating(let r):
            self = .sniffSubrating(
                status: r.status.rawValue, handle: r.handle,
                values: [r.maxTxLatency, r.maxRxLatency, r.minRemoteTimeout, r.minLocalTimeout])
        case .le(let meta):
            switch meta {
            case .connectionComplete(let c):
                self = .leConnectionComplete(
                    LEConnectionDetail(
                        subevent: c.subevent.rawValue, status: c.status.rawValue, handle: c.handle, role: c.role,
                        peerAddressType: c.peerAddressType, peerAddress: c.peerAddress,
                        resolvable: c.localResolvablePrivateAddress.map { [$0, c.peerResolvablePrivateAddress!] },
                        timing: [c.connectionInterval, c.peripheralLatency, c.supervisionTimeout],
                        clockAccuracy: c.centralClockAccuracy, advertisingHandle: c.advertisingHandle,
                        syncHandle: c.syncHandle))
            case .advertisingReport(let reports):
                self = .leAdvertisingReport(
                    reports.map {
                        AdvertisingReportDetail(
                            eventType: $0.eventType, addressType: $0.addressType, address: $0.address,
                            data: Array($0.data.bytes), dataOffset: $0.data.offset, rssi: $0.rssi)
                    })
            case .connectionUpdateComplete(let u):
                self = .leConnectionUpdateComplete(
                    status: u.status.rawValue, handle: u.handle,
                    timing: [u.connectionInterval, u.peripheralLatency, u.supervisionTimeout])
            case .readRemoteFeaturesComplete(let status, let handle, let features):
                self = .leReadRemoteFeaturesComplete(status: status.rawValue, handle: handle, features: features)
            case .longTermKeyRequest(let handle, let random, let ediv):
                self = .leLongTermKeyRequest(handle: handle, random: random, ediv: ediv)
            case .remoteConnectionParameterRequest(let r):
                self = .leRemoteConnectionParameterRequest(
                    handle: r.handle, values: [r.intervalMin, r.intervalMax, r.maxLatency, r.timeout])
            case .dataLengthChange(let d):
                self = .leDataLengthChange(
                    handle: d.handle, values: [d.maxTxOctets, d.maxTxTime, d.maxRxOctets, d.maxRxTime])
            case .phyUpdateComplete(let status, let handle, let tx, let rx):
                self = .lePHYUpdateComplete(status: status.rawValue, handle: handle, tx: tx.rawValue, rx: rx.rawValue)
            case .extendedAdvertisingReport(let reports):
                self = .leExtendedAdvertisingReport(
                    reports.map {
                        ExtendedReportDetail(
                            eventType: $0.eventType.rawValue, addressType: $0.addressType, address: $0.address,
                            phys: [$0.primaryPHY.rawValue, $0.secondaryPHY.rawValue], sid: $0.advertisingSID,
                            txPower: $0.txPower, rssi: $0.rssi, periodicInterval: $0.periodicAdvertisingInterval,
                            directAddressType: $0.directAddressType, directAddress: $0.directAddress,
                            data: Array($0.data.bytes), dataOffset: $0.data.offset)
                    })
            case .channelSelectionAlgorithm(let handle, let algorithm):
                self = .leChannelSelectionAlgorithm(handle: handle, algorithm: algorithm)
            case .advertisingSetTerminated(let t):
                self = .leAdvertisingSetTerminated(
                    status: t.status.rawValue, advertisingHandle: t.advertisingHandle, handle: t.handle,
                    events: t.numCompletedExtendedAdvertisingEvents)
            case .unknown(let subevent, let parameters):
                self = .leUnknown(subevent: subevent.rawValue, parameters: Array(parameters))
            }
        case .unknown(let code, let parameters):
            self = .unknown(code: code.rawValue, parameters: Array(parameters))
        }
    }
}

func decodeEventDetail(_ bytes: [UInt8]) throws -> EventDetail {
    try bytes.withUnsafeBytes { raw throws in EventDetail(try HCIEventParameters.decode(raw)) }
}

/// Every event bletrace decodes in full, written by hand from Core 6.0, Vol 4, Part E, §7.7 (no H4 indicator).
enum EventTable {
    typealias Row = FieldPacket<EventDetail>

    static let connectionAndEncryption: [Row] = [
        Row(
            name: "Connection Complete, BR/EDR (§7.7.3)", framing: .event,
            header: ["03", "0b"],  // event 0x03; 11 parameter bytes
            fields: [
                "00",  // Status
                "0b 00",  // Connection_Handle 0x000B
                "66 55 44 33 22 11",  // BD_ADDR 11:22:33:44:55:66
                "01",  // Link_Type ACL
                "01",  // Encryption_Enabled on
            ],
            expected: .connectionComplete(
                status: 0, handle: 0x000B, address: address("11:22:33:44:55:66"), linkType: 1, encryption: 1)),
        Row(
            name: "Disconnection Complete (§7.7.5)", framing: .event,
            header: ["05", "04"],
            fields: [
                "00",  // Status
                "40 00",  // Connection_Handle 0x0040
                "13",  // Reason 0x13 Remote User Terminated Connection
            ],
            expected: .disconnectionComplete(status: 0, handle: 0x0040, reason: 0x13)),
        Row(
            name: "Encryption Change v1 (§7.7.8)", framing: .event,
            header: ["08", "04"],
            fields: [
                "00",  // Status
                "40 00",  // Connection_Handle
                "01",  // Encryption_Enabled: on (AES-CCM)
            ],
            expected: .encryptionChange(status: 0, handle: 0x0040, enabled: 1, keySize: nil)),
        Row(
            name: "Encryption Change v1, PIN or Key Missing (§7.7.8)", framing: .event,
            header: ["08", "04"],
            fields: [
                "06",  // Status 0x06 PIN or Key Missing
                "41 00",  // Connection_Handle 0x0041
                "00",  // Encryption_Enabled: off
            ],
            expected: .encryptionChange(status: 0x06, handle: 0x0041, enabled: 0, keySize: nil)),
        Row(
            name: "Encryption Change v2 (§7.7.8)", framing: .event,
            header: ["59", "05"],  // event 0x59
            fields: [
                "00",  // Status
                "40 00",  // Connection_Handle
                "01",  // Encryption_Enabled
                "10",  // Encryption_Key_Size 16
            ],
            expected: .encryptionChange(status: 0, handle: 0x0040, enabled: 1, keySize: 16)),
        Row(
            name: "Encryption Key Refresh Complete (§7.7.39)", framing: .event,
            header: ["30", "03"],
            fields: [
                "00",  // Status
                "40 00",  // Connection_Handle
            ],
            expected: .encryptionKeyRefreshComplete(status: 0, handle: 0x0040)),
        Row(
            name: "Read Remote Version Information Complete (§7.7.12)", framing: .event,
            header: ["0c", "08"],
            fields: [
                "00",  // Status
                "40 00",  // Connection_Handle
                "0d",  // Version: Bluetooth 5.4
                "0f 00",  // Company_Identifier: 0x000F (Broadcom)
                "34 12",  // Subversion
            ],
            expected: .readRemoteVersion(status: 0, handle: 0x0040, version: 0x0D, company: 0x000F, subversion: 0x1234)),
    ]

    static let commandCompletion: [Row] = [
        Row(
            name: "Command Complete, Reset (§7.7.14, §7.3.2)", framing: .event,
            header: ["0e", "04"],
            fields: [
                "01",  // Num_HCI_Command_Packets 1
                "03 0c",  // Command_Opcode 0x0C03 Reset
                "00",  // Status
            ],
            expected: .commandComplete(numPackets: 1, opcode: 0x0C03, .status(0))),
        Row(
            name: "Command Complete, Read Local Version Information (§7.4.1)", framing: .event,
            header: ["0e", "0c"],  // 12 = 3 + 9
            fields: [
                "01",  // Num_HCI_Command_Packets
                "01 10",  // Command_Opcode 0x1001
                "00",  // Status
                "0c",  // HCI_Version 0x0C (5.3)
                "00 01",  // HCI_Subversion 0x0100
                "0c",  // LMP_Version 0x0C
                "0f 00",  // Company_Identifier 0x000F
                "0e 22",  // LMP_Subversion 0x220E
            ],
            expected: .commandComplete(
                numPackets: 1, opcode: 0x1001,
                .version(status: 0, hci: 0x0C, hciSubversion: 0x0100, lmp: 0x0C, company: 0x000F, lmpSubversion: 0x220E)
            )),
        Row(
            name: "Command Complete, Read Local Supported Features (§7.4.3)", framing: .event,
            header: ["0e", "0c"],
            fields: [
                "01",  // Num_HCI_Command_Packets
                "03 10",  // Command_Opcode 0x1003
                "00",  // Status
                "ff fe 8f fe d8 3f 5b 87",  // LMP_Features 0x875B3FD8FE8FFEFF
            ],
            expected: .commandComplete(numPackets: 1, opcode: 0x1003, .features(status: 0, 0x875B_3FD8_FE8F_FEFF))),
        Row(
            name: "Command Complete, Read BD_ADDR (§7.4.6)", framing: .event,
            header: ["0e", "0a"],
            fields: [
                "01",  // Num_HCI_Command_Packets
                "09 10",  // Command_Opcode 0x1009
                "00",  // Status
                "ff ee dd cc bb aa",  // BD_ADDR AA:BB:CC:DD:EE:FF
            ],
            expected: .commandComplete(numPackets: 1, opcode: 0x1009, .bdaddr(status: 0, address("AA:BB:CC:DD:EE:FF")))),
        Row(
            name: "Command Complete, Read BD_ADDR failed, with an address", framing: .event,
            header: ["0e", "0a"],
            fields: [
                "01",  // Num_HCI_Command_Packets
                "09 10",  // Command_Opcode 0x1009
                "0c",  // Status 0x0C Command Disallowed
                "00 00 00 00 00 00",  // BD_ADDR (not valid)
            ],
            endsAfter: [3],  // a failed command may return its Status alone
            expected: .commandComplete(
                numPackets: 1, opcode: 0x1009, .bdaddr(status: 0x0C, BluetoothAddress(rawValue: 0)))),
        Row(
            name: "Command Complete, Read BD_ADDR failed, Status alone", framing: .event,
            header: ["0e", "04"],
            fields: [
                "01",  // Num_HCI_Command_Packets
                "09 10",  // Command_Opcode 0x1009
                "01",  // Status 0x01 Unknown HCI Command
            ],
            expected: .commandComplete(numPackets: 1, opcode: 0x1009, .status(0x01))),
        Row(
            name: "Command Complete, LE Read Buffer Size v1 (§7.8.2)", framing: .event,
            header: ["0e", "07"],
            fields: [
                "01",  // Num_HCI_Command_Packets
                "02 20",  // Command_Opcode 0x2002
                "00",  // Status
                "fb 00",  // LE_ACL_Data_Packet_Length 251
                "0f",  // Total_Num_LE_ACL_Data_Packets 15
            ],
            expected: .commandComplete(
                numPackets: 1, opcode: 0x2002,
                .bufferSize(status: 0, aclLength: 251, aclCount: 15, isoLength: nil, isoCount: nil))),
        Row(
            name: "Command Complete, LE Read Buffer Size v2 (§7.8.2)", framing: .event,
            header: ["0e", "0a"],
            fields: [
                "01",  // Num_HCI_Command_Packets
                "60 20",  // Command_Opcode 0x2060
                "00",  // Status
                "1b 00",  // LE_ACL_Data_Packet_Length 27
                "08",  // Total_Num_LE_ACL_Data_Packets 8
                "fb 00",  // ISO_Data_Packet_Length 251
                "02",  // Total_Num_ISO_Data_Packets 2
            ],
            expected: .commandComplete(
                numPackets: 1, opcode: 0x2060,
                .bufferSize(status: 0, aclLength: 27, aclCount: 8, isoLength: 251, isoCount: 2))),
        Row(
            name: "Command Complete, Read RSSI (§7.5.4)", framing: .event,
            header: ["0e", "07"],
            fields: [
                "01",  // Num_HCI_Command_Packets
                "05 14",  // Command_Opcode 0x1405
                "00",  // Status
                "40 00",  // Handle 0x0040
                "c4",  // RSSI 0xC4: -60 dBm
            ],
            expected: .commandComplete(numPackets: 1, opcode: 0x1405, .rssi(status: 0, handle: 0x0040, rssi: -60))),
        Row(
            name: "Command Complete, LE Set Data Length (§7.8.33)", framing: .event,
            header: ["0e", "06"],
            fields: [
                "01",  // Num_HCI_Command_Packets
                "22 20",  // Command_Opcode 0x2022
                "00",  // Status
                "40 00",  // Connection_Handle
            ],
            expected: .commandComplete(numPackets: 1, opcode: 0x2022, .handle(status: 0, 0x0040))),
        Row(
            name: "Command Complete, LE Long Term Key Request Reply (§7.8.25)", framing: .event,
            header: ["0e", "06"],
            fields: ["01", "1a 20", "00", "40 00"],  // credits, opcode 0x201A, Status, Connection_Handle
            expected: .commandComplete(numPackets: 1, opcode: 0x201A, .handle(status: 0, 0x0040))),
        Row(
            name: "Command Complete, LE Long Term Key Request Negative Reply (§7.8.26)", framing: .event,
            header: ["0e", "06"],
            fields: ["01", "1b 20", "00", "41 00"],  // credits, opcode 0x201B, Status, Connection_Handle
            expected: .commandComplete(numPackets: 1, opcode: 0x201B, .handle(status: 0, 0x0041))),
        Row(
            name: "Command Complete, LE Set Extended Advertising Parameters (§7.8.53)", framing: .event,
            header: ["0e", "05"],
            fields: [
                "01",  // Num_HCI_Command_Packets
                "36 20",  // Command_Opcode 0x2036
                "00",  // Status
                "f7",  // Selected_TX_Power 0xF7: -9 dBm
            ],
            expected: .commandComplete(numPackets: 1, opcode: 0x2036, .selectedTxPower(status: 0, -9))),
        Row(
            name: "Command Complete, LE Set Scan Enable refused (§7.8.11)", framing: .event,
            header: ["0e", "04"],
            fields: [
                "02",  // Num_HCI_Command_Packets 2
                "0c 20",  // Command_Opcode 0x200C
                "0c",  // Status 0x0C Command Disallowed
            ],
            expected: .commandComplete(numPackets: 2, opcode: 0x200C, .status(0x0C))),
        Row(
            name: "Command Complete, LE Create Connection Cancel (§7.8.13)", framing: .event,
            header: ["0e", "04"],
            fields: ["01", "0e 20", "00"],  // credits, opcode 0x200E, Status
            expected: .commandComplete(numPackets: 1, opcode: 0x200E, .status(0))),
        Row(
            name: "Command Complete, LE Set Random Address (§7.8.4)", framing: .event,
            header: ["0e", "04"],
            fields: ["01", "05 20", "00"],  // credits, opcode 0x2005, Status
            expected: .commandComplete(numPackets: 1, opcode: 0x2005, .status(0))),
        Row(
            name: "Command Complete, no command (opcode 0x0000)", framing: .event,
            header: ["0e", "03"],
            fields: ["01", "00 00"],  // credits only
            expected: .commandComplete(numPackets: 1, opcode: 0x0000, .unknown([]))),
        Row(
            name: "Command Complete, vendor command (kept raw)", framing: .event,
            header: ["0e", "06"],
            fields: ["01", "53 fd", "00", "aa", "bb"],  // credits, opcode 0xFD53, 3 raw bytes
            endsAfter: [2, 3, 4],
            expected: .commandComplete(numPackets: 1, opcode: 0xFD53, .unknown([0x00, 0xAA, 0xBB]))),
        Row(
            name: "Command Status, LE Create Connection pending (§7.7.15)", framing: .event,
            header: ["0f", "04"],
            fields: [
                "00",  // Status: pending
                "01",  // Num_HCI_Command_Packets
                "0d 20",  // Command_Opcode 0x200D
            ],
            expected: .commandStatus(status: 0, numPackets: 1, opcode: 0x200D)),
        Row(
            name: "Command Complete, Read Encryption Key Size (§7.5.7)", framing: .event,
            header: ["0e", "07"],
            fields: [
                "01",  // Num_HCI_Command_Packets
                "08 14",  // Command_Opcode 0x1408
                "00",  // Status
                "0b 00",  // Connection_Handle 0x000B
                "10",  // Key_Size: 16 bytes
            ],
            expected: .commandComplete(numPackets: 1, opcode: 0x1408, .keySize(status: 0, handle: 0x000B, size: 16))),
    ]

    static let flowAndErrors: [Row] = [
        Row(
            name: "Hardware Error (§7.7.16)", framing: .event,
            header: ["10", "01"], fields: ["03"],  // Hardware_Code 0x03
            expected: .hardwareError(0x03)),
        Row(
            name: "Number Of Completed Packets, two handles (§7.7.19)", framing: .event,
            header: ["13", "09"],  // 9 = 1 + 2 × 4
            fields: [
                "02",  // Num_Handles 2
                "40 00",  // Connection_Handle[0] 0x0040
                "01 00",  // Num_Completed_Packets[0] 1
                "41 20",  // Connection_Handle[1] 0x0041 (bit 13 reserved, set)
                "03 00",  // Num_Completed_Packets[1] 3
            ],
            expected: .numberOfCompletedPackets([[0x0040, 1], [0x0041, 3]])),
        Row(
            name: "Number Of Completed Packets, no handle", framing: .event,
            header: ["13", "01"], fields: ["00"],
            expected: .numberOfCompletedPackets([])),
        Row(
            name: "Data Buffer Overflow (§7.7.26)", framing: .event,
            header: ["1a", "01"], fields: ["01"],  // Link_Type ACL
            expected: .dataBufferOverflow(linkType: 1)),
        Row(
            name: "Vendor event (kept raw)", framing: .event,
            header: ["ff", "03"], fields: ["01", "02", "03"], endsAfter: [0, 1, 2],
            expected: .unknown(code: 0xFF, parameters: [0x01, 0x02, 0x03])),
        Row(
            name: "Unassigned event with no parameters", framing: .event,
            header: ["fe", "00"], fields: [],
            expected: .unknown(code: 0xFE, parameters: [])),
    ]

    static let leMeta: [Row] = [
        Row(
            name: "LE Connection Complete (§7.7.65.1)", framing: .event,
            header: ["3e", "13"],  // 19 parameter bytes
            fields: [
                "01",  // Subevent_Code
                "00",  // Status
                "40 00",  // Connection_Handle
                "00",  // Role central
                "01",  // Peer_Address_Type random
                "56 34 12 be 5b c4",  // Peer_Address C4:5B:BE:12:34:56
                "18 00",  // Connection_Interval 0x0018
                "00 00",  // Peripheral_Latency 0
                "f4 01",  // Supervision_Timeout 0x01F4
                "05",  // Central_Clock_Accuracy 0x05 (50 ppm)
            ],
            expected: .leConnectionComplete(
                LEConnectionDetail(
                    subevent: 0x01, status: 0, handle: 0x0040, role: 0, peerAddressType: 1,
                    peerAddress: address("C4:5B:BE:12:34:56"), timing: [0x18, 0, 0x1F4], clockAccuracy: 5))),
        Row(
            name: "LE Enhanced Connection Complete v1 (§7.7.65.10)", framing: .event,
            header: ["3e", "1f"],  // 31 parameter bytes
            fields: [
                "0a",  // Subevent_Code
                "00",  // Status
                "41 00",  // Connection_Handle
                "01",  // Role peripheral
                "00",  // Peer_Address_Type public
                "13 71 da 7d 1a 00",  // Peer_Address 00:1A:7D:DA:71:13
                "55 44 33 22 11 4a",  // Local_Resolvable_Private_Address 4A:11:22:33:44:55
                "aa 99 88 77 66 7b",  // Peer_Resolvable_Private_Address 7B:66:77:88:99:AA
                "24 00",  // Connection_Interval 0x0024
                "02 00",  // Peripheral_Latency 2
                "90 01",  // Supervision_Timeout 0x0190
                "01",  // Central_Clock_Accuracy
            ],
            expected: .leConnectionComplete(
                LEConnectionDetail(
                    subevent: 0x0A, status: 0, handle: 0x0041, role: 1, peerAddressType: 0,
                    peerAddress: address("00:1A:7D:DA:71:13"),
                    resolvable: [address("4A:11:22:33:44:55"), address("7B:66:77:88:99:AA")],
                    timing: [0x24, 2, 0x190], clockAccuracy: 1))),
        Row(
            name: "LE Enhanced Connection Complete v2 (§7.7.65.10)", framing: .event,
            header: ["3e", "22"],  // 34 parameter bytes
            fields: [
                "29",  // Subevent_Code
                "00",  // Status
                "42 00",  // Connection_Handle
                "01",  // Role peripheral
                "01",  // Peer_Address_Type random
                "56 34 12 be 5b c4",  // Peer_Address
                "00 00 00 00 00 00",  // Local_Resolvable_Private_Address none
                "00 00 00 00 00 00",  // Peer_Resolvable_Private_Address none
                "18 00",  // Connection_Interval
                "00 00",  // Peripheral_Latency
                "f4 01",  // Supervision_Timeout
                "00",  // Central_Clock_Accuracy
                "02",  // Advertising_Handle 2
                "ff 0f",  // Sync_Handle 0x0FFF: none
            ],
            expected: .leConnectionComplete(
                LEConnectionDetail(
                    subevent: 0x29, status: 0, handle: 0x0042, role: 1, peerAddressType: 1,
                    peerAddress: address("C4:5B:BE:12:34:56"),
                    resolvable: [BluetoothAddress(rawValue: 0), BluetoothAddress(rawValue: 0)],
                    timing: [0x18, 0, 0x1F4], clockAccuracy: 0, advertisingHandle: 2, syncHandle: 0x0FFF))),
        Row(
            name: "LE Advertising Report, one report (§7.7.65.2)", framing: .event,
            header: ["3e", "13"],  // 19 = 2 + 17
            fields: [
                "02",  // Subevent_Code
                "01",  // Num_Reports 1
                "00",  // Event_Type ADV_IND
                "01",  // Address_Type random
                "56 34 12 be 5b c4",  // Address C4:5B:BE:12:34:56
                "07",  // Data_Length 7
                "02 01 06 03 03 0d 18",  // Data: Flags 0x06; Complete 16-bit UUIDs 0x180D
                "c8",  // RSSI 0xC8: -56 dBm
            ],
            expected: .leAdvertisingReport([
                AdvertisingReportDetail(
                    eventType: 0, addressType: 1, address: address("C4:5B:BE:12:34:56"),
                    data: [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18], dataOffset: 13, rssi: -56)
            ])),
        Row(
            name: "LE Advertising Report, two reports of different lengths (§7.7.65.2)", framing: .event,
            header: ["3e", "23"],  // 35 = 2 + 13 + 20
            fields: [
                "02",  // Subevent_Code
                "02",  // Num_Reports 2
                "00",  // [0] Event_Type ADV_IND
                "01",  // [0] Address_Type random
                "56 34 12 be 5b c4",  // [0] Address
                "03",  // [0] Data_Length 3
                "02 01 06",  // [0] Data: Flags 0x06
                "b0",  // [0] RSSI -80 dBm
                "04",  // [1] Event_Type SCAN_RSP
                "01",  // [1] Address_Type random
                "56 34 12 be 5b c4",  // [1] Address
                "0a",  // [1] Data_Length 10
                "09 09 62 6c 65 74 72 61 63 65",  // [1] Data: Complete Local Name "bletrace"
                "7f",  // [1] RSSI 127: not available
            ],
            expected: .leAdvertisingReport([
                AdvertisingReportDetail(
                    eventType: 0, addressType: 1, address: address("C4:5B:BE:12:34:56"),
                    data: [0x02, 0x01, 0x06], dataOffset: 13, rssi: -80),
                AdvertisingReportDetail(
                    eventType: 4, addressType: 1, address: address("C4:5B:BE:12:34:56"),
                    data: [0x09, 0x09, 0x62, 0x6C, 0x65, 0x74, 0x72, 0x61, 0x63, 0x65], dataOffset: 26, rssi: nil),
            ])),
        Row(
            name: "LE Connection Update Complete (§7.7.65.3)", framing: .event,
            header: ["3e", "0a"],
            fields: [
                "03",  // Subevent_Code
                "00",  // Status
                "40 00",  // Connection_Handle
                "24 00",  // Connection_Interval 0x0024 (45 ms)
                "00 00",  // Peripheral_Latency 0
                "2a 00",  // Supervision_Timeout 0x002A (420 ms)
            ],
            expected: .leConnectionUpdateComplete(status: 0, handle: 0x0040, timing: [0x24, 0, 0x2A])),
        Row(
            name: "LE Read Remote Features Complete (§7.7.65.4)", framing: .event,
            header: ["3e", "0c"],
            fields: [
                "04",  // Subevent_Code
                "00",  // Status
                "40 00",  // Connection_Handle
                "ff 49 01 00 00 00 00 00",  // LE_Features 0x00000000000149FF
            ],
            expected: .leReadRemoteFeaturesComplete(status: 0, handle: 0x0040, features: 0x0149FF)),
        Row(
            name: "LE Long Term Key Request (§7.7.65.5)", framing: .event,
            header: ["3e", "0d"],
            fields: [
                "05",  // Subevent_Code
                "40 00",  // Connection_Handle
                "1f 2e 3d 4c 5b 6a 79 88",  // Random_Number 0x88796A5B4C3D2E1F
                "cd ab",  // Encrypted_Diversifier 0xABCD
            ],
            expected: .leLongTermKeyRequest(handle: 0x0040, random: 0x8879_6A5B_4C3D_2E1F, ediv: 0xABCD)),
        Row(
            name: "LE Remote Connection Parameter Request (§7.7.65.6)", framing: .event,
            header: ["3e", "0b"],
            fields: [
                "06",  // Subevent_Code
                "40 00",  // Connection_Handle
                "06 00",  // Interval_Min 0x0006
                "0c 00",  // Interval_Max 0x000C
                "00 00",  // Max_Latency 0
                "c8 00",  // Timeout 0x00C8 (2 s)
            ],
            expected: .leRemoteConnectionParameterRequest(handle: 0x0040, values: [6, 12, 0, 0xC8])),
        Row(
            name: "LE Data Length Change (§7.7.65.7)", framing: .event,
            header: ["3e", "0b"],
            fields: [
                "07",  // Subevent_Code
                "40 00",  // Connection_Handle
                "fb 00",  // Max_TX_Octets 251
                "48 08",  // Max_TX_Time 2120 µs
                "1b 00",  // Max_RX_Octets 27
                "48 01",  // Max_RX_Time 328 µs
            ],
            expected: .leDataLengthChange(handle: 0x0040, values: [251, 2120, 27, 328])),
        Row(
            name: "LE PHY Update Complete (§7.7.65.12)", framing: .event,
            header: ["3e", "06"],
            fields: [
                "0c",  // Subevent_Code
                "00",  // Status
                "40 00",  // Connection_Handle
                "02",  // TX_PHY LE 2M
                "03",  // RX_PHY LE Coded
            ],
            expected: .lePHYUpdateComplete(status: 0, handle: 0x0040, tx: 2, rx: 3)),
        Row(
            name: "LE Extended Advertising Report, one legacy report (§7.7.65.13)", framing: .event,
            header: ["3e", "1d"],  // 29 = 2 + 24 + 3
            fields: [
                "0d",  // Subevent_Code
                "01",  // Num_Reports 1
                "13 00",  // Event_Type: connectable, scannable, legacy (ADV_IND)
                "01",  // Address_Type random
                "56 34 12 be 5b c4",  // Address
                "01",  // Primary_PHY LE 1M
                "00",  // Secondary_PHY: none
                "ff",  // Advertising_SID: no ADI
                "7f",  // TX_Power 127: not available
                "c4",  // RSSI -60 dBm
                "00 00",  // Periodic_Advertising_Interval: none
                "00",  // Direct_Address_Type
                "00 00 00 00 00 00",  // Direct_Address
                "03",  // Data_Length 3
                "02 01 06",  // Data: Flags 0x06
            ],
            expected: .leExtendedAdvertisingReport([
                ExtendedReportDetail(
                    eventType: 0x0013, addressType: 1, address: address("C4:5B:BE:12:34:56"), phys: [1, 0],
                    sid: 0xFF, txPower: nil, rssi: -60, periodicInterval: 0, directAddressType: 0,
                    directAddress: BluetoothAddress(rawValue: 0), data: [0x02, 0x01, 0x06], dataOffset: 28)
            ])),
        Row(
            name: "LE Extended Advertising Report, two extended reports (§7.7.65.13)", framing: .event,
            header: ["3e", "36"],  // 54 = 2 + (24 + 4) + (24 + 0)
            fields: [
                "0d",  // Subevent_Code
                "02",  // Num_Reports 2
                "21 00",  // [0] Event_Type: connectable; data status 01 (more to come)
                "00",  // [0] Address_Type public
                "13 71 da 7d 1a 00",  // [0] Address 00:1A:7D:DA:71:13
                "03",  // [0] Primary_PHY LE Coded
                "03",  // [0] Secondary_PHY LE Coded
                "05",  // [0] Advertising_SID 5
                "f6",  // [0] TX_Power -10 dBm
                "a6",  // [0] RSSI -90 dBm
                "00 00",  // [0] Periodic_Advertising_Interval
                "00",  // [0] Direct_Address_Type
                "00 00 00 00 00 00",  // [0] Direct_Address
                "04",  // [0] Data_Length 4
                "03 19 c1 03",  // [0] Data: Appearance 0x03C1 (keyboard)
                "00 00",  // [1] Event_Type: non-connectable, complete
                "01",  // [1] Address_Type random
                "aa 99 88 77 66 7b",  // [1] Address 7B:66:77:88:99:AA
                "01",  // [1] Primary_PHY LE 1M
                "02",  // [1] Secondary_PHY LE 2M
                "01",  // [1] Advertising_SID 1
                "7f",  // [1] TX_Power: not available
                "b5",  // [1] RSSI -75 dBm
                "50 00",  // [1] Periodic_Advertising_Interval 0x0050 (100 ms)
                "00",  // [1] Direct_Address_Type
                "00 00 00 00 00 00",  // [1] Direct_Address
                "00",  // [1] Data_Length 0
            ],
            expected: .leExtendedAdvertisingReport([
                ExtendedReportDetail(
                    eventType: 0x0021, addressType: 0, address: address("00:1A:7D:DA:71:13"), phys: [3, 3], sid: 5,
                    txPower: -10, rssi: -90, periodicInterval: 0, directAddressType: 0,
                    directAddress: BluetoothAddress(rawValue: 0), data: [0x03, 0x19, 0xC1, 0x03], dataOffset: 28),
                ExtendedReportDetail(
                    eventType: 0x0000, addressType: 1, address: address("7B:66:77:88:99:AA"), phys: [1, 2], sid: 1,
                    txPower: nil, rssi: -75, periodicInterval: 0x50, directAddressType: 0,
                    directAddress: BluetoothAddress(rawValue: 0), data: [], dataOffset: 56),
            ])),
        Row(
            name: "LE Channel Selection Algorithm (§7.7.65.20)", framing: .event,
            header: ["3e", "04"],
            fields: [
                "14",  // Subevent_Code
                "40 00",  // Connection_Handle
                "01",  // Channel_Selection_Algorithm #2
            ],
            expected: .leChannelSelectionAlgorithm(handle: 0x0040, algorithm: 1)),
        Row(
            name: "LE Advertising Set Terminated, became a connection (§7.7.65.18)", framing: .event,
            header: ["3e", "06"],
            fields: [
                "12",  // Subevent_Code
                "00",  // Status: the set became a connection
                "01",  // Advertising_Handle 1
                "40 00",  // Connection_Handle 0x0040
                "00",  // Num_Completed_Extended_Advertising_Events 0
            ],
            expected: .leAdvertisingSetTerminated(status: 0, advertisingHandle: 1, handle: 0x0040, events: 0)),
        Row(
            name: "LE Advertising Set Terminated, limit reached (§7.7.65.18)", framing: .event,
            header: ["3e", "06"],
            fields: [
                "12",  // Subevent_Code
                "43",  // Status 0x43 Limit Reached
                "00",  // Advertising_Handle 0
                "ff 2f",  // Connection_Handle: not valid (0x0FFF, a reserved bit set)
                "0a",  // Num_Completed_Extended_Advertising_Events 10
            ],
            expected: .leAdvertisingSetTerminated(status: 0x43, advertisingHandle: 0, handle: 0x0FFF, events: 10)),
        Row(
            name: "LE Scan Timeout (kept raw)", framing: .event,
            header: ["3e", "01"],
            fields: ["11"],  // subevent 0x11, no parameters
            expected: .leUnknown(subevent: 0x11, parameters: [])),
    ]

    /// The BR/EDR link events (Core 6.0, Vol 4, Part E, §7.7), which the summary (``HCIEvent``)
    /// keeps raw. Handles and addresses as in a real car-kit log (syssi-jkbms-can-rs485).
    static let brEdr: [Row] = [
        Row(
            name: "Inquiry Complete (§7.7.1)", framing: .event,
            header: ["01", "01"], fields: ["00"],  // Status
            expected: .inquiryComplete(status: 0)),
        Row(
            name: "Connection Request (§7.7.4)", framing: .event,
            header: ["04", "0a"],
            fields: [
                "e2 4c 06 6b d1 30",  // BD_ADDR 30:D1:6B:06:4C:E2
                "0c 02 5a",  // Class_Of_Device 0x5A020C (phone, smartphone)
                "01",  // Link_Type ACL
            ],
            expected: .connectionRequest(address: address("30:D1:6B:06:4C:E2"), classOfDevice: 0x5A020C, linkType: 1)),
        Row(
            name: "Authentication Complete (§7.7.6)", framing: .event,
            header: ["06", "03"],
            fields: [
                "05",  // Status 0x05 Authentication Failure
                "02 00",  // Connection_Handle 0x0002
            ],
            expected: .authenticationComplete(status: 0x05, handle: 0x0002)),
        Row(
            name: "Remote Name Request Complete, a name (§7.7.7)", framing: .event,
            header: ["07", "ff"],  // 255 = 1 + 6 + 248
            fields: [
                "00",  // Status
                "e2 4c 06 6b d1 30",  // BD_ADDR 30:D1:6B:06:4C:E2
                "44 53 58 00" + String(repeating: " 00", count: 244),  // Remote_Name "DSX", then zeros to 248
            ],
            expected: .remoteNameRequestComplete(
                status: 0, address: address("30:D1:6B:06:4C:E2"), name: Array("DSX".utf8))),
        Row(
            name: "Remote Name Request Complete, page timeout (§7.7.7)", framing: .event,
            header: ["07", "ff"],
            fields: [
                "04",  // Status 0x04 Page Timeout
                "f7 0a 7b 37 32 50",  // BD_ADDR 50:32:37:7B:0A:F7
                String(repeating: "00 ", count: 247) + "00",  // Remote_Name: empty
            ],
            expected: .remoteNameRequestComplete(status: 0x04, address: address("50:32:37:7B:0A:F7"), name: [])),
        Row(
            name: "Remote Name Request Complete, 248 bytes with no zero (§7.7.7)", framing: .event,
            header: ["07", "ff"],
            fields: [
                "00",  // Status
                "e2 4c 06 6b d1 30",  // BD_ADDR
                String(repeating: "41 ", count: 247) + "41",  // Remote_Name: "A" × 248, no terminator
            ],
            expected: .remoteNameRequestComplete(
                status: 0, address: address("30:D1:6B:06:4C:E2"), name: Array(repeating: 0x41, count: 248))),
        Row(
            name: "Read Remote Supported Features Complete (§7.7.11)", framing: .event,
            header: ["0b", "0b"],
            fields: [
                "00",  // Status
                "0b 00",  // Connection_Handle 0x000B
                "bf fe cf fe db ff 7b 87",  // LMP_Features page 0
            ],
            expected: .readRemoteSupportedFeatures(status: 0, handle: 0x000B, features: 0x877B_FFDB_FECF_FEBF)),
        Row(
            name: "Mode Change, sniff (§7.7.20)", framing: .event,
            header: ["14", "06"],
            fields: [
                "00",  // Status
                "0b 00",  // Connection_Handle 0x000B
                "02",  // Current_Mode: Sniff
                "20 03",  // Interval 800 slots (500 ms)
            ],
            expected: .modeChange(status: 0, handle: 0x000B, mode: 2, interval: 800)),
        Row(
            name: "Link Key Request (§7.7.23)", framing: .event,
            header: ["17", "06"],
            fields: ["e2 4c 06 6b d1 30"],  // BD_ADDR 30:D1:6B:06:4C:E2
            expected: .linkKeyRequest(address: address("30:D1:6B:06:4C:E2"))),
        Row(
            name: "Max Slots Change (§7.7.27)", framing: .event,
            header: ["1b", "03"],
            fields: [
                "0b 00",  // Connection_Handle 0x000B
                "05",  // LMP_Max_Slots 5
            ],
            expected: .maxSlotsChange(handle: 0x000B, slots: 5)),
        Row(
            name: "Read Clock Offset Complete (§7.7.28)", framing: .event,
            header: ["1c", "05"],
            fields: [
                "00",  // Status
                "0b 00",  // Connection_Handle 0x000B
                "34 12",  // Clock_Offset 0x1234
            ],
            expected: .readClockOffsetComplete(status: 0, handle: 0x000B, offset: 0x1234)),
        Row(
            name: "Connection Packet Type Changed (§7.7.29)", framing: .event,
            header: ["1d", "05"],
            fields: [
                "00",  // Status
                "0b 20",  // Connection_Handle 0x000B (a reserved bit set)
                "18 cc",  // Packet_Type 0xCC18 (DM1, DH1, DM3, DH3, DM5, DH5; no 2-DH3, 3-DH3)
            ],
            expected: .connectionPacketTypeChanged(status: 0, handle: 0x000B, packetType: 0xCC18)),
        Row(
            name: "Read Remote Extended Features Complete (§7.7.34)", framing: .event,
            header: ["23", "0d"],
            fields: [
                "00",  // Status
                "0b 00",  // Connection_Handle 0x000B
                "01",  // Page_Number 1
                "02",  // Max_Page_Number 2
                "0f 00 00 00 00 00 00 00",  // Extended_LMP_Features: page 1 (SSP host, LE host, …)
            ],
            expected: .readRemoteExtendedFeatures(status: 0, handle: 0x000B, page: 1, maxPage: 2, features: 0x0F)),
        Row(
            name: "Sniff Subrating (§7.7.37)", framing: .event,
            header: ["2e", "0b"],
            fields: [
                "00",  // Status
                "0b 00",  // Connection_Handle 0x000B
                "20 03",  // Max_TX_Latency 800 slots
                "40 06",  // Max_RX_Latency 1600 slots
                "00 00",  // Min_Remote_Timeout
                "02 00",  // Min_Local_Timeout 2 slots
            ],
            expected: .sniffSubrating(status: 0, handle: 0x000B, values: [800, 1600, 0, 2])),
    ]

    static let rows = connectionAndEncryption + commandCompletion + flowAndErrors + leMeta + brEdr
}

@Suite struct HCIEventParametersTests {
    @Test(arguments: EventTable.rows)
    func handWrittenLengthMatchesTheFields(_ row: EventTable.Row) {
        TableChecks.declaredLengthMatches(row)
    }

    @Test(arguments: EventTable.rows)
    func decodesEveryField(_ row: EventTable.Row) throws {
        try TableChecks.decodes(row, decodeEventDetail)
    }

    @Test(arguments: EventTable.rows)
    func everyTruncationPrefixThrowsAtTheMissingByte(_ row: EventTable.Row) {
        TableChecks.everyRawPrefixThrows(row, layer: .hci, decodeEventDetail)
    }

    @Test(arguments: EventTable.rows)
    func everyShortParameterListThrowsAtTheFirstMissingField(_ row: EventTable.Row) {
        TableChecks.everyShortParameterListThrowsAtTheMissingField(row, layer: .hci, decodeEventDetail)
    }

    @Test(arguments: EventTable.rows)
    func codeIsTheOneInThePacket(_ row: EventTable.Row) throws {
        let code = try row.bytes.withUnsafeBytes { raw throws in try HCIEventParameters.decode(raw).code }
        #expect(code.rawValue == row.headerBytes[0])
    }

    /// The summary's raw return parameters decode the same, with offsets from the event's start.
    @Test(arguments: EventTable.commandCompletion.filter { $0.headerBytes[0] == 0x0E })
    func returnParametersOfTheSummaryDecodeTheSame(_ row: EventTable.Row) throws {
        func viaSummary(_ bytes: [UInt8]) throws -> ReturnDetail {
            try bytes.withUnsafeBytes { raw throws in
                guard case .commandComplete(_, let opcode, let parameters) = try HCIEvent.decode(raw) else {
                    throw DecodeError(layer: .hci, offset: -1, expected: "Command Complete")
                }
                return ReturnDetail(try HCIReturnParameters.decode(opcode: opcode, parameters))
            }
        }
        guard case .commandComplete(_, _, let expected) = row.expected else { return }
        #expect(try viaSummary(row.bytes) == expected)
        for length in 3..<row.parameterBytes.count {
            let bytes = row.shortened(to: length)
            guard let missing = row.firstMissingField(within: length) else { continue }
            let error = #expect(throws: DecodeError.self, "\(length) parameter bytes") { _ = try viaSummary(bytes) }
            #expect(error?.offset == 2 + missing, "\(length) parameter bytes")
        }
    }

    @Test(
        arguments: [
            (EventTable.commandCompletion[0], 0x00),
            (EventTable.commandCompletion[4], 0x0C),
            (EventTable.commandCompletion[5], 0x01),
            (EventTable.connectionAndEncryption[3], 0x06),
            (EventTable.connectionAndEncryption[5], 0x00),
            (EventTable.leMeta[5], 0x00),
        ] as [(EventTable.Row, UInt8)])
    func statusIsTheEventsStatus(_ row: EventTable.Row, _ status: UInt8) throws {
        let decoded = try row.bytes.withUnsafeBytes { raw throws in try HCIEventParameters.decode(raw).status }
        #expect(decoded?.rawValue == status)
    }

    @Test func eventsWithoutAStatusHaveNone() throws {
        for row in EventTable.flowAndErrors + [EventTable.leMeta[3], EventTable.leMeta[7]] {
            let decoded = try row.bytes.withUnsafeBytes { raw throws in try HCIEventParameters.decode(raw).status }
            #expect(decoded == nil, "\(row.name)")
        }
    }

    @Test func handlesNamedByEvents() throws {
        func handle(_ row: EventTable.Row) throws -> UInt16? {
            try row.bytes.withUnsafeBytes { raw throws in try HCIEventParameters.decode(raw).handle }
        }
        #expect(try handle(EventTable.connectionAndEncryption[4]) == 0x0040)  // Encryption Change v2
        #expect(try handle(EventTable.commandCompletion[8]) == 0x0040)  // Read RSSI
        #expect(try handle(EventTable.leMeta[9]) == 0x0040)  // Data Length Change
        #expect(try handle(EventTable.leMeta[3]) == nil)  // Advertising Report
    }

    /// The status, handle and device address each BR/EDR event and LE Advertising Set
    /// Terminated gives `decode`'s JSON (and the tshark cross-check compares): nil where the
    /// event has no such field.
    @Test(
        arguments: [
            (EventTable.brEdr[0], 0x00, nil, nil),  // Inquiry Complete
            (EventTable.brEdr[1], nil, nil, "30:D1:6B:06:4C:E2"),  // Connection Request
            (EventTable.brEdr[2], 0x05, 0x0002, nil),  // Authentication Complete
            (EventTable.brEdr[3], 0x00, nil, "30:D1:6B:06:4C:E2"),  // Remote Name Request Complete
            (EventTable.brEdr[4], 0x04, nil, "50:32:37:7B:0A:F7"),
            (EventTable.brEdr[6], 0x00, 0x000B, nil),  // Read Remote Supported Features Complete
            (EventTable.brEdr[7], 0x00, 0x000B, nil),  // Mode Change
            (EventTable.brEdr[8], nil, nil, "30:D1:6B:06:4C:E2"),  // Link Key Request
            (EventTable.brEdr[9], nil, 0x000B, nil),  // Max Slots Change
            (EventTable.brEdr[10], 0x00, 0x000B, nil),  // Read Clock Offset Complete
            (EventTable.brEdr[11], 0x00, 0x000B, nil),  // Connection Packet Type Changed
            (EventTable.brEdr[12], 0x00, 0x000B, nil),  // Read Remote Extended Features Complete
            (EventTable.brEdr[13], 0x00, 0x000B, nil),  // Sniff Subrating
            (EventTable.leMeta[14], 0x00, 0x0040, nil),  // LE Advertising Set Terminated
            (EventTable.leMeta[15], 0x43, 0x0FFF, nil),
            (EventTable.connectionAndEncryption[0], 0x00, 0x000B, "11:22:33:44:55:66"),  // Connection Complete
        ] as [(EventTable.Row, UInt8?, UInt16?, String?)])
    func statusHandleAndAddressOfTheEvent(_ row: EventTable.Row, _ status: UInt8?, _ handle: UInt16?, _ device: String?)
        throws
    {
        let (decodedStatus, decodedHandle, decodedAddress) = try row.bytes.withUnsafeBytes { raw throws in
            let event = try HCIEventParameters.decode(raw)
            return (event.status?.rawValue, event.handle, event.address)
        }
        #expect(decodedStatus == status)
        #expect(decodedHandle == handle)
        #expect(decodedAddress == device.map(address))
    }

    /// The summary keeps the BR/EDR events raw (the lifecycle reads them from their bytes).
    @Test(arguments: EventTable.brEdr)
    func theSummaryKeepsBREDREventsRaw(_ row: EventTable.Row) throws {
        let raw = try row.bytes.withUnsafeBytes { raw throws in
            if case .unknown = try HCIEvent.decode(raw) { return true } else { return false }
        }
        #expect(raw)
    }

    @Test func remoteNameIsTextWhereItIsUTF8() throws {
        func name(_ bytes: [UInt8]) throws -> String? {
            let event =
                packet("07", "ff", "00", "e2 4c 06 6b d1 30") + bytes + Array(repeating: 0, count: 248 - bytes.count)
            return try event.withUnsafeBytes { raw throws in
                guard case .remoteNameRequestComplete(let complete) = try HCIEventParameters.decode(raw) else {
                    return "not decoded"
                }
                return complete.name
            }
        }
        #expect(try name(Array("[TV] Milton".utf8)) == "[TV] Milton")
        #expect(try name(Array("Vardagsrum ✓".utf8)) == "Vardagsrum ✓")
        #expect(try name([]) == nil)
        #expect(try name([0x41, 0xFF, 0x42]) == nil)  // not UTF-8
    }

    @Test func brEdrCodesAreNamed() {
        #expect(HCILinkType(rawValue: 2).description == "eSCO")
        #expect(HCILinkType(rawValue: 9).description == "HCILinkType(0x9)")
        #expect(HCIConnectionMode.sniff.description == "Sniff")
        #expect(HCIConnectionMode(rawValue: 7).description == "HCIConnectionMode(0x7)")
    }

    @Test func encryptionChangeVersionsKeepTheirCodes() throws {
        let v1 = try EventTable.connectionAndEncryption[2].bytes.withUnsafeBytes { raw throws in
            try HCIEventParameters.decode(raw).code
        }
        let v2 = try EventTable.connectionAndEncryption[4].bytes.withUnsafeBytes { raw throws in
            try HCIEventParameters.decode(raw).code
        }
        #expect(v1 == .encryptionChange)
        #expect(v2 == .encryptionChangeV2)
    }

    @Test func numberOfCompletedPacketsWithTooManyBytesFailsAfterTheLastHandle() {
        let bytes = packet("13", "06", "01", "40 00", "01 00", "ff")
        let error = #expect(throws: DecodeError.self) { try decodeEventDetail(bytes) }
        #expect(error?.offset == 2 + 1 + 4)
    }

    @Test func advertisingReportWithBytesAfterTheLastReportFails() {
        let bytes = packet("3e", "0e", "02", "01", "00", "01", "56 34 12 be 5b c4", "00", "c8", "ee", "ee")
        let error = #expect(throws: DecodeError.self) { try decodeEventDetail(bytes) }
        #expect(error?.offset == 2 + 2 + 10)
    }

    @Test func advertisingDataInAReportParsesWithOffsetsIntoTheEvent() throws {
        let row = EventTable.leMeta[4]  // two reports
        try row.bytes.withUnsafeBytes { raw throws in
            guard case .le(.advertisingReport(let reports)) = try HCIEventParameters.decode(raw) else {
                Issue.record("not an advertising report")
                return
            }
            let structures = try reports.map { try $0.data.structures() }
            #expect(structures[0].flags == [.leGeneralDiscoverableMode, .brEDRNotSupported])
            #expect(structures[0].map(\.offset) == [13])
            #expect(structures[1].localName == "bletrace")
            #expect(structures[1].map(\.offset) == [26])
            #expect(reports.map(\.isScanResponse) == [false, true])
        }
    }

    @Test func malformedAdvertisingDataFailsOnlyWhenParsedAndPointsIntoTheEvent() throws {
        // One report whose data's AD structure claims 5 bytes where 2 follow.
        let bytes = packet(
            "3e", "0f", "02", "01",
            "03", "01", "56 34 12 be 5b c4",  // ADV_NONCONN_IND, random address
            "03",  // Data_Length 3
            "05 ff 4c",  // AD length 5, type 0xFF, but only 1 data byte
            "b0")
        try bytes.withUnsafeBytes { raw throws in
            // The event itself is fine: the report is the advertiser's word, kept.
            guard case .le(.advertisingReport(let reports)) = try HCIEventParameters.decode(raw) else {
                Issue.record("not an advertising report")
                return
            }
            let report = try #require(reports.first { _ in true })
            let error = #expect(throws: DecodeError.self) { _ = try report.data.structures() }
            #expect(error?.layer == .hci)
            #expect(error?.offset == 2 + 2 + 9)  // the AD structure's length byte in the event
        }
    }

    @Test func extendedReportEventTypeBits() throws {
        let row = EventTable.leMeta[12]
        try row.bytes.withUnsafeBytes { raw throws in
            guard case .le(.extendedAdvertisingReport(let reports)) = try HCIEventParameters.decode(raw) else {
                Issue.record("not an extended advertising report")
                return
            }
            let types = reports.map(\.eventType)
            #expect(types.map(\.isConnectable) == [true, false])
            #expect(types.map(\.dataStatus) == [1, 0])
            #expect(types.map(\.isComplete) == [false, true])
            #expect(types.map(\.isLegacy) == [false, false])
            #expect(reports.map(\.secondaryPHY) == [.leCoded, .le2M])
            let appearance = try reports.map { try $0.data.structures().appearance }
            #expect(appearance == [0x03C1, nil])
        }
    }

    @Test func codeAndSubeventNames() {
        #expect(HCIEventCode.encryptionChangeV2.description == "Encryption Change v2")
        #expect(HCIEventCode.numberOfCompletedPackets.description == "Number Of Completed Packets")
        #expect(HCIEventCode.vendorSpecific.rawValue == 0xFF)
        #expect(LESubeventCode.extendedAdvertisingReport.description == "LE Extended Advertising Report")
        #expect(LESubeventCode.channelSelectionAlgorithm.rawValue == 0x14)
        #expect(LEPHY.leCoded.description == "LE Coded")
        #expect(LEPHY(rawValue: 9).description == "LEPHY(0x9)")
        #expect(BluetoothVersion(rawValue: 0x0C).description == "Bluetooth 5.3")
        #expect(BluetoothVersion(rawValue: 0x7F).description == "BluetoothVersion(0x7f)")
    }
}
