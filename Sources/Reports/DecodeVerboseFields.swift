import ATT
import HCI
import Wire

// The `-v` lines of the records phones' logs are made of, written field by field as
// ``FieldPrinter`` writes them by reflection (labels are the decoders' field names, spaced as
// `FieldPrinter.readable` spaces them): HCI scanning, advertising reports and their AD
// structures, connection set-up and update; ATT discovery, reads and their answers; LE signaling
// connection parameter updates. `DecodeFormatterTests` compares the two record by record on every
// bundled and public capture, and on made-up advertising data of every AD type.

extension DecodeFormatter {
    /// The lines of a command's parameters; false, with nothing written, for a command this does
    /// not write.
    mutating func command(_ parameters: HCICommandParameters) -> Bool {
        switch parameters {
        case .reset, .readLocalVersionInformation, .readLocalSupportedFeatures, .readBDADDR, .leReadBufferSize,
            .leReadBufferSizeV2, .leCreateConnectionCancel:
            // No parameters: the case's name alone.
            buffer.text("        HCI command: ")
            buffer.string(Self.caseName(parameters))
            buffer.byte(0x0A)
        case .setEventMask(let mask):
            buffer.text("        HCI command: setEventMask: ")
            integer(mask)
            buffer.byte(0x0A)
        case .leSetEventMask(let mask):
            buffer.text("        HCI command: leSetEventMask: ")
            integer(mask)
            buffer.byte(0x0A)
        case .leSetAdvertisingEnable(let enable):
            buffer.text("        HCI command: leSetAdvertisingEnable: ")
            integer(UInt64(enable))
            buffer.byte(0x0A)
        case .disconnect(let handle, let reason):
            buffer.text("        HCI command: disconnect\n")
            field(10, "handle", handle)
            field(10, "reason", reason.description)
        case .leSetScanEnable(let enable, let filterDuplicates):
            buffer.text("        HCI command: leSetScanEnable\n")
            field(10, "enable", UInt64(enable))
            field(10, "filter duplicates", UInt64(filterDuplicates))
        case .leSetScanParameters(let scan):
            buffer.text("        HCI command: leSetScanParameters\n")
            field(10, "scan type", UInt64(scan.scanType))
            field(10, "scan interval", scan.scanInterval)
            field(10, "scan window", scan.scanWindow)
            field(10, "own address type", UInt64(scan.ownAddressType))
            field(10, "scanning filter policy", UInt64(scan.scanningFilterPolicy))
        case .leSetExtendedScanParameters(let scan):
            buffer.text("        HCI command: leSetExtendedScanParameters\n")
            field(10, "own address type", UInt64(scan.ownAddressType))
            field(10, "scanning filter policy", UInt64(scan.scanningFilterPolicy))
            field(10, "scanning PH Ys", UInt64(scan.scanningPHYs.rawValue))
            entries(10, "phys", scan.phys.count)
            for (index, phy) in scan.phys.enumerated() {
                element(12, index)
                field(14, "phy", phy.phy.description)
                field(14, "scan type", UInt64(phy.scanType))
                field(14, "scan interval", phy.scanInterval)
                field(14, "scan window", phy.scanWindow)
            }
        case .leCreateConnection(let attempt):
            buffer.text("        HCI command: leCreateConnection\n")
            peer(attempt.initiatorFilterPolicy, attempt.ownAddressType, attempt.peerAddressType, attempt.peerAddress)
            connectionParameters(
                10, scan: (attempt.scanInterval, attempt.scanWindow), attempt.connectionIntervalMin,
                attempt.connectionIntervalMax, attempt.maxLatency, attempt.supervisionTimeout, attempt.minCELength,
                attempt.maxCELength)
        case .leExtendedCreateConnection(let attempt):
            buffer.text("        HCI command: leExtendedCreateConnection\n")
            peer(attempt.initiatorFilterPolicy, attempt.ownAddressType, attempt.peerAddressType, attempt.peerAddress)
            field(10, "initiating PH Ys", UInt64(attempt.initiatingPHYs.rawValue))
            entries(10, "phys", attempt.phys.count)
            for (index, entry) in attempt.phys.enumerated() {
                element(12, index)
                field(14, "phy", entry.phy.description)
                heading(14, "parameters")
                let parameters = entry.parameters
                connectionParameters(
                    16, scan: (parameters.scanInterval, parameters.scanWindow), parameters.connectionIntervalMin,
                    parameters.connectionIntervalMax, parameters.maxLatency, parameters.supervisionTimeout,
                    parameters.minCELength, parameters.maxCELength)
            }
        case .leConnectionUpdate(let update):
            buffer.text("        HCI command: leConnectionUpdate\n")
            field(10, "handle", update.handle)
            connectionParameters(
                10, scan: nil, update.connectionIntervalMin, update.connectionIntervalMax, update.maxLatency,
                update.supervisionTimeout, update.minCELength, update.maxCELength)
        case .leReadRemoteFeatures(let handle):
            buffer.text("        HCI command: leReadRemoteFeatures\n")
            field(10, "handle", handle)
        case .leLongTermKeyRequestNegativeReply(let handle):
            buffer.text("        HCI command: leLongTermKeyRequestNegativeReply\n")
            field(10, "handle", handle)
        case .leAddDeviceToFilterAcceptList(let addressType, let address):
            buffer.text("        HCI command: leAddDeviceToFilterAcceptList\n")
            field(10, "address type", UInt64(addressType))
            field(10, "address", address)
        case .leAddDeviceToResolvingList(let entry):
            buffer.text("        HCI command: leAddDeviceToResolvingList\n")
            field(10, "peer identity address type", UInt64(entry.peerIdentityAddressType))
            field(10, "peer identity address", entry.peerIdentityAddress)
            field(10, "peer IRK", entry.peerIRK)
            field(10, "local IRK", entry.localIRK)
        case .leStartEncryption(let start):
            buffer.text("        HCI command: leStartEncryption\n")
            field(10, "handle", start.handle)
            field(10, "random number", start.randomNumber)
            field(10, "encrypted diversifier", start.encryptedDiversifier)
            field(10, "long term key", start.longTermKey)
        case .leSetDataLength(let handle, let txOctets, let txTime):
            buffer.text("        HCI command: leSetDataLength\n")
            field(10, "handle", handle)
            field(10, "tx octets", txOctets)
            field(10, "tx time", txTime)
        default:
            return false
        }
        return true
    }

    /// The lines of Command Complete's return parameters that have fields of their own, from
    /// "return parameters" to the end of the line before "raw return parameters" (nothing for the
    /// others, which ``commonHCI(_:)`` writes itself or leaves to `FieldPrinter`).
    mutating func returnParameters(_ parameters: HCIReturnParameters) {
        switch parameters {
        case .readRSSI(let status, let handle, let rssi):
            buffer.text("          return parameters: readRSSI\n")
            field(12, "status", status.description)
            field(12, "handle", handle)
            field(12, "rssi", rssi)
        case .connectionHandle(let status, let handle):
            buffer.text("          return parameters: connectionHandle\n")
            field(12, "status", status.description)
            field(12, "handle", handle)
        case .readEncryptionKeySize(let status, let handle, let keySize):
            buffer.text("          return parameters: readEncryptionKeySize\n")
            field(12, "status", status.description)
            field(12, "handle", handle)
            field(12, "key size", UInt64(keySize))
        case .readBDADDR(let status, let address):
            buffer.text("          return parameters: readBDADDR\n")
            field(12, "status", status.description)
            field(12, "address", address)
        case .readLocalSupportedFeatures(let status, let features):
            buffer.text("          return parameters: readLocalSupportedFeatures\n")
            field(12, "status", status.description)
            field(12, "features", features)
        case .leSetExtendedAdvertisingParameters(let status, let power):
            buffer.text("          return parameters: leSetExtendedAdvertisingParameters\n")
            field(12, "status", status.description)
            field(12, "selected tx power", power)
        case .readLocalVersionInformation(let version):
            buffer.text("          return parameters: readLocalVersionInformation\n")
            field(12, "status", version.status.description)
            field(12, "hci version", version.hciVersion.description)
            field(12, "hci subversion", version.hciSubversion)
            field(12, "lmp version", version.lmpVersion.description)
            field(12, "company identifier", version.companyIdentifier)
            field(12, "lmp subversion", version.lmpSubversion)
        case .leReadBufferSize(let size):
            buffer.text("          return parameters: leReadBufferSize\n")
            field(12, "status", size.status.description)
            field(12, "le ACL Data packet length", size.leACLDataPacketLength)
            field(12, "total num LEACL Data packets", UInt64(size.totalNumLEACLDataPackets))
            if let length = size.isoDataPacketLength { field(12, "iso data packet length", length) }
            if let total = size.totalNumISODataPackets { field(12, "total num ISO Data packets", UInt64(total)) }
        case .status, .unknown:
            break
        }
    }

    /// The lines of the events besides Command Complete and the LE Meta events that
    /// ``commonHCI(_:)`` writes itself; false, with nothing written, for the others.
    mutating func event(_ parameters: HCIEventParameters) -> Bool {
        switch parameters {
        case .disconnectionComplete(let status, let handle, let reason):
            buffer.text("        HCI event: disconnectionComplete\n")
            field(10, "status", status.description)
            field(10, "handle", handle)
            field(10, "reason", reason.description)
        case .encryptionChange(let change):
            buffer.text("        HCI event: encryptionChange\n")
            field(10, "status", change.status.description)
            field(10, "handle", change.handle)
            field(10, "encryption enabled", UInt64(change.encryptionEnabled))
            if let size = change.keySize { field(10, "key size", UInt64(size)) }
        case .readRemoteVersionInformationComplete(let status, let handle, let version, let company, let subversion):
            buffer.text("        HCI event: readRemoteVersionInformationComplete\n")
            field(10, "status", status.description)
            field(10, "handle", handle)
            field(10, "version", UInt64(version))
            field(10, "company identifier", company)
            field(10, "subversion", subversion)
        case .le(.advertisingReport(let reports)):
            buffer.text("        HCI event: le\n          advertisingReport\n")
            entries(12, "", reports.count)
            for (index, report) in reports.enumerated() {
                element(14, index)
                field(16, "event type", UInt64(report.eventType))
                field(16, "address type", UInt64(report.addressType))
                field(16, "address", report.address)
                advertising(report.data, indent: 16)
                if let rssi = report.rssi { field(16, "rssi", rssi) }
            }
        case .le(.connectionComplete(let complete)):
            buffer.text("        HCI event: le\n          connectionComplete\n")
            field(12, "subevent", complete.subevent.description)
            field(12, "status", complete.status.description)
            field(12, "handle", complete.handle)
            field(12, "role", UInt64(complete.role))
            field(12, "peer address type", UInt64(complete.peerAddressType))
            field(12, "peer address", complete.peerAddress)
            if let address = complete.localResolvablePrivateAddress {
                field(12, "local resolvable private address", address)
            }
            if let address = complete.peerResolvablePrivateAddress {
                field(12, "peer resolvable private address", address)
            }
            field(12, "connection interval", complete.connectionInterval)
            field(12, "peripheral latency", complete.peripheralLatency)
            field(12, "supervision timeout", complete.supervisionTimeout)
            field(12, "central clock accuracy", UInt64(complete.centralClockAccuracy))
            if let handle = complete.advertisingHandle { field(12, "advertising handle", UInt64(handle)) }
            if let handle = complete.syncHandle { field(12, "sync handle", handle) }
        case .le(.connectionUpdateComplete(let complete)):
            buffer.text("        HCI event: le\n          connectionUpdateComplete\n")
            field(12, "status", complete.status.description)
            field(12, "handle", complete.handle)
            field(12, "connection interval", complete.connectionInterval)
            field(12, "peripheral latency", complete.peripheralLatency)
            field(12, "supervision timeout", complete.supervisionTimeout)
        case .le(.readRemoteFeaturesComplete(let status, let handle, let features)):
            buffer.text("        HCI event: le\n          readRemoteFeaturesComplete\n")
            field(12, "status", status.description)
            field(12, "handle", handle)
            field(12, "features", features)
        case .le(.dataLengthChange(let change)):
            buffer.text("        HCI event: le\n          dataLengthChange\n")
            field(12, "handle", change.handle)
            field(12, "max tx octets", change.maxTxOctets)
            field(12, "max tx time", change.maxTxTime)
            field(12, "max rx octets", change.maxRxOctets)
            field(12, "max rx time", change.maxRxTime)
        case .le(.channelSelectionAlgorithm(let handle, let algorithm)):
            buffer.text("        HCI event: le\n          channelSelectionAlgorithm\n")
            field(12, "handle", handle)
            field(12, "algorithm", UInt64(algorithm))
        default:
            return false
        }
        return true
    }

    /// The lines of an ATT PDU other than the traffic ``verbose(_:_:)`` writes itself (its name,
    /// then its fields); false, with nothing written, for the PDUs this does not write.
    mutating func attFields(_ pdu: ATTPDU) -> Bool {
        guard Self.hasFieldLines(pdu) else { return false }
        buffer.text("        ATT: ")
        buffer.text(Self.caseName(pdu))
        buffer.byte(0x0A)
        switch pdu {
        case .errorResponse(let request, let handle, let error):
            field(10, "request opcode", request.description)
            field(10, "handle", handle)
            field(10, "error", error.description)
        case .exchangeMTURequest(let mtu):
            field(10, "client MTU", mtu)
        case .exchangeMTUResponse(let mtu):
            field(10, "server MTU", mtu)
        case .findInformationRequest(let start, let end):
            field(10, "start", start)
            field(10, "end", end)
        case .findInformationResponse(let list):
            entries(10, "", list.count)
            for (index, entry) in list.enumerated() {
                element(12, index)
                field(14, "handle", entry.handle)
                open(14, "type")
                uuid(entry.type)
                buffer.byte(0x0A)
            }
        case .findByTypeValueRequest(let start, let end, let type, let value):
            field(10, "start", start)
            field(10, "end", end)
            field(10, "type", type)
            field(10, "value", value)
        case .findByTypeValueResponse(let list):
            entries(10, "", list.count)
            for (index, entry) in list.enumerated() {
                element(12, index)
                field(14, "found", entry.found)
                field(14, "group end", entry.groupEnd)
            }
        case .readByTypeRequest(let start, let end, let type), .readByGroupTypeRequest(let start, let end, let type):
            field(10, "start", start)
            field(10, "end", end)
            open(10, "type")
            uuid(type.uuid)
            buffer.byte(0x0A)
        case .readByTypeResponse(let list):
            entries(10, "", list.count)
            for (index, entry) in list.enumerated() {
                element(12, index)
                field(14, "handle", entry.handle)
                field(14, "value", entry.value)
            }
        case .readByGroupTypeResponse(let list):
            entries(10, "", list.count)
            for (index, entry) in list.enumerated() {
                element(12, index)
                field(14, "handle", entry.handle)
                field(14, "group end", entry.groupEnd)
                field(14, "value", entry.value)
            }
        case .readRequest(let handle):
            field(10, "handle", handle)
        case .readResponse(let value), .readBlobResponse(let value):
            field(10, "value", value)
        case .readMultipleResponse(let values):
            field(10, "values", values)
        case .readBlobRequest(let handle, let offset):
            field(10, "handle", handle)
            field(10, "offset", offset)
        case .prepareWriteRequest(let handle, let offset, let value),
            .prepareWriteResponse(let handle, let offset, let value):
            field(10, "handle", handle)
            field(10, "offset", offset)
            field(10, "value", value)
        case .executeWriteRequest(let flags):
            field(10, "flags", UInt64(flags))
        default:
            // No fields (Write Response, Execute Write Response, Handle Value Confirmation).
            break
        }
        return true
    }

    /// The name of the case `pdu` is, as Swift prints it (the line's label).
    private static func caseName(_ pdu: ATTPDU) -> StaticString {
        switch pdu {
        case .errorResponse: "errorResponse"
        case .exchangeMTURequest: "exchangeMTURequest"
        case .exchangeMTUResponse: "exchangeMTUResponse"
        case .findInformationRequest: "findInformationRequest"
        case .findInformationResponse: "findInformationResponse"
        case .findByTypeValueRequest: "findByTypeValueRequest"
        case .findByTypeValueResponse: "findByTypeValueResponse"
        case .readByTypeRequest: "readByTypeRequest"
        case .readByTypeResponse: "readByTypeResponse"
        case .readRequest: "readRequest"
        case .readResponse: "readResponse"
        case .readBlobRequest: "readBlobRequest"
        case .readBlobResponse: "readBlobResponse"
        case .readMultipleRequest: "readMultipleRequest"
        case .readMultipleResponse: "readMultipleResponse"
        case .readByGroupTypeRequest: "readByGroupTypeRequest"
        case .readByGroupTypeResponse: "readByGroupTypeResponse"
        case .readMultipleVariableRequest: "readMultipleVariableRequest"
        case .readMultipleVariableResponse: "readMultipleVariableResponse"
        case .writeRequest: "writeRequest"
        case .writeResponse: "writeResponse"
        case .writeCommand: "writeCommand"
        case .signedWriteCommand: "signedWriteCommand"
        case .prepareWriteRequest: "prepareWriteRequest"
        case .prepareWriteResponse: "prepareWriteResponse"
        case .executeWriteRequest: "executeWriteRequest"
        case .executeWriteResponse: "executeWriteResponse"
        case .handleValueNotification: "handleValueNotification"
        case .handleValueIndication: "handleValueIndication"
        case .handleValueConfirmation: "handleValueConfirmation"
        case .multipleHandleValueNotification: "multipleHandleValueNotification"
        case .unknown: "unknown"
        }
    }

    /// Whether ``attFields(_:)`` writes `pdu`.
    static func hasFieldLines(_ pdu: ATTPDU) -> Bool {
        switch pdu {
        case .readMultipleRequest, .readMultipleVariableRequest, .readMultipleVariableResponse, .signedWriteCommand,
            .multipleHandleValueNotification, .unknown, .writeRequest, .writeCommand, .handleValueNotification,
            .handleValueIndication:
            false
        default:
            true
        }
    }

    /// The lines of an LE signaling PDU (after its L2CAP line); false, with nothing written, for
    /// commands other than the connection parameter update's.
    mutating func signaling(_ pdu: LESignalingPDU) -> Bool {
        switch pdu.command {
        case .connectionParameterUpdateRequest, .connectionParameterUpdateResponse: break
        default: return false
        }
        buffer.text("        LE signaling\n")
        field(10, "code", pdu.code.description)
        field(10, "identifier", UInt64(pdu.identifier))
        field(10, "data", pdu.data)
        switch pdu.command {
        case .connectionParameterUpdateRequest(let intervalMin, let intervalMax, let latency, let timeout):
            buffer.text("          command: connectionParameterUpdateRequest\n")
            field(12, "interval min", intervalMin)
            field(12, "interval max", intervalMax)
            field(12, "peripheral latency", latency)
            field(12, "timeout multiplier", timeout)
        case .connectionParameterUpdateResponse(let result):
            buffer.text("          command: connectionParameterUpdateResponse\n")
            field(12, "result", result)
        default:
            break
        }
        return true
    }

    /// A report's advertising data, its `data` line and its AD structures' lines (as
    /// `FieldPrinter` writes ``AdvertisingData``), `indent` spaces in.
    mutating func advertising(_ data: AdvertisingData, indent: Int) {
        buffer.spaces(indent)
        let structures: ADStructureList
        do {
            structures = try data.structures()
        } catch {
            buffer.text("data: not AD structures (")
            buffer.string(error.expected)
            buffer.text(" at byte ")
            buffer.decimal(error.offset)
            buffer.text(")\n")
            return
        }
        buffer.text("data: advertising data\n")
        let inner = indent + 2
        for structure in structures {
            switch structure.value {
            case .flags(let flags):
                field(inner, "flags", UInt64(flags.rawValue))
            case .serviceUUIDs(let list, let complete):
                heading(inner, "serviceUUIDs")
                entries(inner + 2, "", list.count)
                for (index, uuid) in list.enumerated() {
                    buffer.spaces(inner + 4)
                    buffer.byte(UInt8(ascii: "["))
                    buffer.decimal(UInt64(index))
                    buffer.text("]: ")
                    self.uuid(uuid)
                    buffer.byte(0x0A)
                }
                field(inner + 2, "complete", complete)
            case .localName(let name, let complete):
                heading(inner, "localName")
                buffer.spaces(inner + 2)
                bytesField(name)
                buffer.byte(0x0A)
                field(inner + 2, "complete", complete)
            case .txPowerLevel(let level):
                field(inner, "txPowerLevel", level)
            case .serviceData(let uuid, let bytes):
                heading(inner, "serviceData")
                buffer.spaces(inner + 2)
                buffer.text("uuid: ")
                self.uuid(uuid)
                buffer.byte(0x0A)
                field(inner + 2, "data", bytes)
            case .appearance(let appearance):
                field(inner, "appearance", appearance)
            case .manufacturerSpecificData(let company, let bytes):
                heading(inner, "manufacturerSpecificData")
                field(inner + 2, "company ID", company)
                field(inner + 2, "data", bytes)
            case .unknown(let type, let bytes):
                heading(inner, "unknown")
                field(inner + 2, "type", type.description)
                field(inner + 2, "data", bytes)
            }
        }
    }

    /// A UUID as `FieldPrinter` writes one: as it prints, and its GATT name.
    mutating func uuid(_ uuid: BluetoothUUID) {
        buffer.string(uuid.description)
        if let name = GATTNames.name(for: uuid) {
            buffer.text(" (")
            buffer.string(name)
            buffer.byte(UInt8(ascii: ")"))
        }
    }

    /// The fields LE Create Connection and LE Extended Create Connection begin with.
    private mutating func peer(
        _ policy: UInt8, _ ownAddressType: UInt8, _ peerAddressType: UInt8, _ address: BluetoothAddress
    ) {
        field(10, "initiator filter policy", UInt64(policy))
        field(10, "own address type", UInt64(ownAddressType))
        field(10, "peer address type", UInt64(peerAddressType))
        field(10, "peer address", address)
    }

    /// The connection parameters LE Create Connection, LE Extended Create Connection and LE
    /// Connection Update share, in their order, after the scan interval and window of the first two.
    private mutating func connectionParameters(
        _ indent: Int, scan: (interval: UInt16, window: UInt16)?, _ intervalMin: UInt16, _ intervalMax: UInt16,
        _ latency: UInt16, _ timeout: UInt16, _ minCE: UInt16, _ maxCE: UInt16
    ) {
        if let scan {
            field(indent, "scan interval", scan.interval)
            field(indent, "scan window", scan.window)
        }
        field(indent, "connection interval min", intervalMin)
        field(indent, "connection interval max", intervalMax)
        field(indent, "max latency", latency)
        field(indent, "supervision timeout", timeout)
        field(indent, "min CE Length", minCE)
        field(indent, "max CE Length", maxCE)
    }

    /// `label`, alone on its line (a structure whose fields follow).
    private mutating func heading(_ indent: Int, _ label: StaticString) {
        buffer.spaces(indent)
        buffer.text(label)
        buffer.byte(0x0A)
    }

    /// A list's count line: `label: N entries`, or `N entries` with no label.
    private mutating func entries(_ indent: Int, _ label: StaticString, _ count: Int) {
        buffer.spaces(indent)
        if label.utf8CodeUnitCount > 0 {
            buffer.text(label)
            buffer.text(": ")
        }
        buffer.decimal(UInt64(count))
        buffer.text(" entries\n")
    }

    /// A list element's line, `[index]`, its fields after it.
    private mutating func element(_ indent: Int, _ index: Int) {
        buffer.spaces(indent)
        buffer.byte(UInt8(ascii: "["))
        buffer.decimal(UInt64(index))
        buffer.text("]\n")
    }

    private mutating func open(_ indent: Int, _ label: StaticString) {
        buffer.spaces(indent)
        buffer.text(label)
        buffer.text(": ")
    }

    private mutating func field(_ indent: Int, _ label: StaticString, _ value: UInt16) {
        field(indent, label, UInt64(value))
    }

    private mutating func field(_ indent: Int, _ label: StaticString, _ value: UInt64) {
        open(indent, label)
        integer(value)
        buffer.byte(0x0A)
    }

    /// A key or a 128-bit value (rare: keys are set once a connection), through strings.
    private mutating func field(_ indent: Int, _ label: StaticString, _ value: UInt128) {
        open(indent, label)
        buffer.string(value > 9 ? "\(value) (\(hex(value, digits: 1)))" : "\(value)")
        buffer.byte(0x0A)
    }

    private mutating func field(_ indent: Int, _ label: StaticString, _ value: Int8) {
        open(indent, label)
        buffer.decimal(Int(value))
        buffer.byte(0x0A)
    }

    private mutating func field(_ indent: Int, _ label: StaticString, _ value: Bool) {
        open(indent, label)
        buffer.text(value ? "true" : "false")
        buffer.byte(0x0A)
    }

    private mutating func field(_ indent: Int, _ label: StaticString, _ value: BluetoothAddress) {
        open(indent, label)
        buffer.address(value)
        buffer.byte(0x0A)
    }

    private mutating func field(_ indent: Int, _ label: StaticString, _ value: String) {
        open(indent, label)
        buffer.string(value)
        buffer.byte(0x0A)
    }

    private mutating func field(_ indent: Int, _ label: StaticString, _ bytes: UnsafeRawBufferPointer) {
        open(indent, label)
        bytesField(bytes)
        buffer.byte(0x0A)
    }

    /// The name of a command with no parameters, as Swift prints the case.
    private static func caseName(_ parameters: HCICommandParameters) -> String {
        switch parameters {
        case .reset: "reset"
        case .readLocalVersionInformation: "readLocalVersionInformation"
        case .readLocalSupportedFeatures: "readLocalSupportedFeatures"
        case .readBDADDR: "readBDADDR"
        case .leReadBufferSize: "leReadBufferSize"
        case .leReadBufferSizeV2: "leReadBufferSizeV2"
        case .leCreateConnectionCancel: "leCreateConnectionCancel"
        default: ""
        }
    }
}
