import ATT
import HCI
import Wire

// The `-v` lines of the records phones' logs are made of, written field by field as
// ``FieldPrinter`` writes them by reflection (labels are the decoders' field names, spaced as
// `FieldPrinter.readable` spaces them): HCI scanning, advertising reports and their AD
// structures, connection set-up and update; ATT discovery, reads and their answers; LE signaling
// connection parameter updates; then the field writers they share, FieldPrinter's forms of a
// field, as a LineBuffer extension. `DecodeFormattersTests` compares the two record by record on
// every bundled and public capture, `DecodeVerboseFieldsTests` on made-up advertising data of
// every AD type.

extension DecodeVerboseFormatter {
    /// The lines of a command's parameters; false, with nothing written, for a command this does
    /// not write.
    static func command(_ parameters: HCICommandParameters, to buffer: inout LineBuffer) -> Bool {
        switch parameters {
        case .reset, .readLocalVersionInformation, .readLocalSupportedFeatures, .readBDADDR, .leReadBufferSize,
            .leReadBufferSizeV2, .leCreateConnectionCancel:
            // No parameters: the case's name alone.
            buffer.text("        HCI command: ")
            buffer.string(Self.caseName(parameters))
            buffer.byte(0x0A)
        case .setEventMask(let mask):
            buffer.text("        HCI command: setEventMask: ")
            buffer.integer(mask)
            buffer.byte(0x0A)
        case .leSetEventMask(let mask):
            buffer.text("        HCI command: leSetEventMask: ")
            buffer.integer(mask)
            buffer.byte(0x0A)
        case .leSetAdvertisingEnable(let enable):
            buffer.text("        HCI command: leSetAdvertisingEnable: ")
            buffer.integer(UInt64(enable))
            buffer.byte(0x0A)
        case .disconnect(let handle, let reason):
            buffer.text("        HCI command: disconnect\n")
            buffer.field(10, "handle", handle)
            buffer.field(10, "reason", reason.description)
        case .leSetScanEnable(let enable, let filterDuplicates):
            buffer.text("        HCI command: leSetScanEnable\n")
            buffer.field(10, "enable", UInt64(enable))
            buffer.field(10, "filter duplicates", UInt64(filterDuplicates))
        case .leSetScanParameters(let scan):
            buffer.text("        HCI command: leSetScanParameters\n")
            buffer.field(10, "scan type", UInt64(scan.scanType))
            buffer.field(10, "scan interval", scan.scanInterval)
            buffer.field(10, "scan window", scan.scanWindow)
            buffer.field(10, "own address type", UInt64(scan.ownAddressType))
            buffer.field(10, "scanning filter policy", UInt64(scan.scanningFilterPolicy))
        case .leSetExtendedScanParameters(let scan):
            buffer.text("        HCI command: leSetExtendedScanParameters\n")
            buffer.field(10, "own address type", UInt64(scan.ownAddressType))
            buffer.field(10, "scanning filter policy", UInt64(scan.scanningFilterPolicy))
            buffer.field(10, "scanning PH Ys", UInt64(scan.scanningPHYs.rawValue))
            buffer.entries(10, "phys", scan.phys.count)
            for (index, phy) in scan.phys.enumerated() {
                buffer.element(12, index)
                buffer.field(14, "phy", phy.phy.description)
                buffer.field(14, "scan type", UInt64(phy.scanType))
                buffer.field(14, "scan interval", phy.scanInterval)
                buffer.field(14, "scan window", phy.scanWindow)
            }
        case .leCreateConnection(let attempt):
            buffer.text("        HCI command: leCreateConnection\n")
            peer(
                attempt.initiatorFilterPolicy, attempt.ownAddressType, attempt.peerAddressType, attempt.peerAddress,
                to: &buffer)
            connectionParameters(
                10, scan: (attempt.scanInterval, attempt.scanWindow), attempt.connectionIntervalMin,
                attempt.connectionIntervalMax, attempt.maxLatency, attempt.supervisionTimeout, attempt.minCELength,
                attempt.maxCELength, to: &buffer)
        case .leExtendedCreateConnection(let attempt):
            buffer.text("        HCI command: leExtendedCreateConnection\n")
            peer(
                attempt.initiatorFilterPolicy, attempt.ownAddressType, attempt.peerAddressType, attempt.peerAddress,
                to: &buffer)
            buffer.field(10, "initiating PH Ys", UInt64(attempt.initiatingPHYs.rawValue))
            buffer.entries(10, "phys", attempt.phys.count)
            for (index, entry) in attempt.phys.enumerated() {
                buffer.element(12, index)
                buffer.field(14, "phy", entry.phy.description)
                buffer.heading(14, "parameters")
                let parameters = entry.parameters
                connectionParameters(
                    16, scan: (parameters.scanInterval, parameters.scanWindow), parameters.connectionIntervalMin,
                    parameters.connectionIntervalMax, parameters.maxLatency, parameters.supervisionTimeout,
                    parameters.minCELength, parameters.maxCELength, to: &buffer)
            }
        case .leConnectionUpdate(let update):
            buffer.text("        HCI command: leConnectionUpdate\n")
            buffer.field(10, "handle", update.handle)
            connectionParameters(
                10, scan: nil, update.connectionIntervalMin, update.connectionIntervalMax, update.maxLatency,
                update.supervisionTimeout, update.minCELength, update.maxCELength, to: &buffer)
        case .leReadRemoteFeatures(let handle):
            buffer.text("        HCI command: leReadRemoteFeatures\n")
            buffer.field(10, "handle", handle)
        case .leLongTermKeyRequestNegativeReply(let handle):
            buffer.text("        HCI command: leLongTermKeyRequestNegativeReply\n")
            buffer.field(10, "handle", handle)
        case .leAddDeviceToFilterAcceptList(let addressType, let address):
            buffer.text("        HCI command: leAddDeviceToFilterAcceptList\n")
            buffer.field(10, "address type", UInt64(addressType))
            buffer.field(10, "address", address)
        case .leAddDeviceToResolvingList(let entry):
            buffer.text("        HCI command: leAddDeviceToResolvingList\n")
            buffer.field(10, "peer identity address type", UInt64(entry.peerIdentityAddressType))
            buffer.field(10, "peer identity address", entry.peerIdentityAddress)
            buffer.field(10, "peer IRK", entry.peerIRK)
            buffer.field(10, "local IRK", entry.localIRK)
        case .leStartEncryption(let start):
            buffer.text("        HCI command: leStartEncryption\n")
            buffer.field(10, "handle", start.handle)
            buffer.field(10, "random number", start.randomNumber)
            buffer.field(10, "encrypted diversifier", start.encryptedDiversifier)
            buffer.field(10, "long term key", start.longTermKey)
        case .leSetDataLength(let handle, let txOctets, let txTime):
            buffer.text("        HCI command: leSetDataLength\n")
            buffer.field(10, "handle", handle)
            buffer.field(10, "tx octets", txOctets)
            buffer.field(10, "tx time", txTime)
        default:
            return false
        }
        return true
    }

    /// The lines of Command Complete's return parameters that have fields of their own, from
    /// "return parameters" to the end of the line before "raw return parameters" (nothing for the
    /// others, which ``commonHCI(_:to:)`` writes itself or leaves to `FieldPrinter`).
    static func returnParameters(_ parameters: HCIReturnParameters, to buffer: inout LineBuffer) {
        switch parameters {
        case .readRSSI(let status, let handle, let rssi):
            buffer.text("          return parameters: readRSSI\n")
            buffer.field(12, "status", status.description)
            buffer.field(12, "handle", handle)
            buffer.field(12, "rssi", rssi)
        case .connectionHandle(let status, let handle):
            buffer.text("          return parameters: connectionHandle\n")
            buffer.field(12, "status", status.description)
            buffer.field(12, "handle", handle)
        case .readEncryptionKeySize(let status, let handle, let keySize):
            buffer.text("          return parameters: readEncryptionKeySize\n")
            buffer.field(12, "status", status.description)
            buffer.field(12, "handle", handle)
            buffer.field(12, "key size", UInt64(keySize))
        case .readBDADDR(let status, let address):
            buffer.text("          return parameters: readBDADDR\n")
            buffer.field(12, "status", status.description)
            buffer.field(12, "address", address)
        case .readLocalSupportedFeatures(let status, let features):
            buffer.text("          return parameters: readLocalSupportedFeatures\n")
            buffer.field(12, "status", status.description)
            buffer.field(12, "features", features)
        case .leSetExtendedAdvertisingParameters(let status, let power):
            buffer.text("          return parameters: leSetExtendedAdvertisingParameters\n")
            buffer.field(12, "status", status.description)
            buffer.field(12, "selected tx power", power)
        case .readLocalVersionInformation(let version):
            buffer.text("          return parameters: readLocalVersionInformation\n")
            buffer.field(12, "status", version.status.description)
            buffer.field(12, "hci version", version.hciVersion.description)
            buffer.field(12, "hci subversion", version.hciSubversion)
            buffer.field(12, "lmp version", version.lmpVersion.description)
            buffer.field(12, "company identifier", version.companyIdentifier)
            buffer.field(12, "lmp subversion", version.lmpSubversion)
        case .leReadBufferSize(let size):
            buffer.text("          return parameters: leReadBufferSize\n")
            buffer.field(12, "status", size.status.description)
            buffer.field(12, "le ACL Data packet length", size.leACLDataPacketLength)
            buffer.field(12, "total num LEACL Data packets", UInt64(size.totalNumLEACLDataPackets))
            if let length = size.isoDataPacketLength { buffer.field(12, "iso data packet length", length) }
            if let total = size.totalNumISODataPackets { buffer.field(12, "total num ISO Data packets", UInt64(total)) }
        case .status, .unknown:
            break
        }
    }

    /// The lines of the events besides Command Complete and the LE Meta events that
    /// ``commonHCI(_:to:)`` writes itself; false, with nothing written, for the others.
    static func event(_ parameters: HCIEventParameters, to buffer: inout LineBuffer) -> Bool {
        switch parameters {
        case .disconnectionComplete(let status, let handle, let reason):
            buffer.text("        HCI event: disconnectionComplete\n")
            buffer.field(10, "status", status.description)
            buffer.field(10, "handle", handle)
            buffer.field(10, "reason", reason.description)
        case .encryptionChange(let change):
            buffer.text("        HCI event: encryptionChange\n")
            buffer.field(10, "status", change.status.description)
            buffer.field(10, "handle", change.handle)
            buffer.field(10, "encryption enabled", UInt64(change.encryptionEnabled))
            if let size = change.keySize { buffer.field(10, "key size", UInt64(size)) }
        case .readRemoteVersionInformationComplete(let status, let handle, let version, let company, let subversion):
            buffer.text("        HCI event: readRemoteVersionInformationComplete\n")
            buffer.field(10, "status", status.description)
            buffer.field(10, "handle", handle)
            buffer.field(10, "version", UInt64(version))
            buffer.field(10, "company identifier", company)
            buffer.field(10, "subversion", subversion)
        case .le(.advertisingReport(let reports)):
            buffer.text("        HCI event: le\n          advertisingReport\n")
            buffer.entries(12, "", reports.count)
            for (index, report) in reports.enumerated() {
                buffer.element(14, index)
                buffer.field(16, "event type", UInt64(report.eventType))
                buffer.field(16, "address type", UInt64(report.addressType))
                buffer.field(16, "address", report.address)
                advertising(report.data, indent: 16, to: &buffer)
                if let rssi = report.rssi { buffer.field(16, "rssi", rssi) }
            }
        case .le(.connectionComplete(let complete)):
            buffer.text("        HCI event: le\n          connectionComplete\n")
            buffer.field(12, "subevent", complete.subevent.description)
            buffer.field(12, "status", complete.status.description)
            buffer.field(12, "handle", complete.handle)
            buffer.field(12, "role", UInt64(complete.role))
            buffer.field(12, "peer address type", UInt64(complete.peerAddressType))
            buffer.field(12, "peer address", complete.peerAddress)
            if let address = complete.localResolvablePrivateAddress {
                buffer.field(12, "local resolvable private address", address)
            }
            if let address = complete.peerResolvablePrivateAddress {
                buffer.field(12, "peer resolvable private address", address)
            }
            buffer.field(12, "connection interval", complete.connectionInterval)
            buffer.field(12, "peripheral latency", complete.peripheralLatency)
            buffer.field(12, "supervision timeout", complete.supervisionTimeout)
            buffer.field(12, "central clock accuracy", UInt64(complete.centralClockAccuracy))
            if let handle = complete.advertisingHandle { buffer.field(12, "advertising handle", UInt64(handle)) }
            if let handle = complete.syncHandle { buffer.field(12, "sync handle", handle) }
        case .le(.connectionUpdateComplete(let complete)):
            buffer.text("        HCI event: le\n          connectionUpdateComplete\n")
            buffer.field(12, "status", complete.status.description)
            buffer.field(12, "handle", complete.handle)
            buffer.field(12, "connection interval", complete.connectionInterval)
            buffer.field(12, "peripheral latency", complete.peripheralLatency)
            buffer.field(12, "supervision timeout", complete.supervisionTimeout)
        case .le(.readRemoteFeaturesComplete(let status, let handle, let features)):
            buffer.text("        HCI event: le\n          readRemoteFeaturesComplete\n")
            buffer.field(12, "status", status.description)
            buffer.field(12, "handle", handle)
            buffer.field(12, "features", features)
        case .le(.dataLengthChange(let change)):
            buffer.text("        HCI event: le\n          dataLengthChange\n")
            buffer.field(12, "handle", change.handle)
            buffer.field(12, "max tx octets", change.maxTxOctets)
            buffer.field(12, "max tx time", change.maxTxTime)
            buffer.field(12, "max rx octets", change.maxRxOctets)
            buffer.field(12, "max rx time", change.maxRxTime)
        case .le(.channelSelectionAlgorithm(let handle, let algorithm)):
            buffer.text("        HCI event: le\n          channelSelectionAlgorithm\n")
            buffer.field(12, "handle", handle)
            buffer.field(12, "algorithm", UInt64(algorithm))
        default:
            return false
        }
        return true
    }

    /// The lines of an ATT PDU other than the traffic ``fields(_:_:to:)`` writes itself (its name,
    /// then its fields); false, with nothing written, for the PDUs this does not write.
    static func attFields(_ pdu: ATTPDU, to buffer: inout LineBuffer) -> Bool {
        guard Self.hasFieldLines(pdu) else { return false }
        buffer.text("        ATT: ")
        buffer.text(Self.caseName(pdu))
        buffer.byte(0x0A)
        switch pdu {
        case .errorResponse(let request, let handle, let error):
            buffer.field(10, "request opcode", request.description)
            buffer.field(10, "handle", handle)
            buffer.field(10, "error", error.description)
        case .exchangeMTURequest(let mtu):
            buffer.field(10, "client MTU", mtu)
        case .exchangeMTUResponse(let mtu):
            buffer.field(10, "server MTU", mtu)
        case .findInformationRequest(let start, let end):
            buffer.field(10, "start", start)
            buffer.field(10, "end", end)
        case .findInformationResponse(let list):
            buffer.entries(10, "", list.count)
            for (index, entry) in list.enumerated() {
                buffer.element(12, index)
                buffer.field(14, "handle", entry.handle)
                buffer.open(14, "type")
                buffer.uuid(entry.type)
                buffer.byte(0x0A)
            }
        case .findByTypeValueRequest(let start, let end, let type, let value):
            buffer.field(10, "start", start)
            buffer.field(10, "end", end)
            buffer.field(10, "type", type)
            buffer.field(10, "value", value)
        case .findByTypeValueResponse(let list):
            buffer.entries(10, "", list.count)
            for (index, entry) in list.enumerated() {
                buffer.element(12, index)
                buffer.field(14, "found", entry.found)
                buffer.field(14, "group end", entry.groupEnd)
            }
        case .readByTypeRequest(let start, let end, let type), .readByGroupTypeRequest(let start, let end, let type):
            buffer.field(10, "start", start)
            buffer.field(10, "end", end)
            buffer.open(10, "type")
            buffer.uuid(type.uuid)
            buffer.byte(0x0A)
        case .readByTypeResponse(let list):
            buffer.entries(10, "", list.count)
            for (index, entry) in list.enumerated() {
                buffer.element(12, index)
                buffer.field(14, "handle", entry.handle)
                buffer.field(14, "value", entry.value)
            }
        case .readByGroupTypeResponse(let list):
            buffer.entries(10, "", list.count)
            for (index, entry) in list.enumerated() {
                buffer.element(12, index)
                buffer.field(14, "handle", entry.handle)
                buffer.field(14, "group end", entry.groupEnd)
                buffer.field(14, "value", entry.value)
            }
        case .readRequest(let handle):
            buffer.field(10, "handle", handle)
        case .readResponse(let value), .readBlobResponse(let value):
            buffer.field(10, "value", value)
        case .readMultipleResponse(let values):
            buffer.field(10, "values", values)
        case .readBlobRequest(let handle, let offset):
            buffer.field(10, "handle", handle)
            buffer.field(10, "offset", offset)
        case .prepareWriteRequest(let handle, let offset, let value),
            .prepareWriteResponse(let handle, let offset, let value):
            buffer.field(10, "handle", handle)
            buffer.field(10, "offset", offset)
            buffer.field(10, "value", value)
        case .executeWriteRequest(let flags):
            buffer.field(10, "flags", UInt64(flags))
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
    static func signaling(_ pdu: LESignalingPDU, to buffer: inout LineBuffer) -> Bool {
        switch pdu.command {
        case .connectionParameterUpdateRequest, .connectionParameterUpdateResponse: break
        default: return false
        }
        buffer.text("        LE signaling\n")
        buffer.field(10, "code", pdu.code.description)
        buffer.field(10, "identifier", UInt64(pdu.identifier))
        buffer.field(10, "data", pdu.data)
        switch pdu.command {
        case .connectionParameterUpdateRequest(let intervalMin, let intervalMax, let latency, let timeout):
            buffer.text("          command: connectionParameterUpdateRequest\n")
            buffer.field(12, "interval min", intervalMin)
            buffer.field(12, "interval max", intervalMax)
            buffer.field(12, "peripheral latency", latency)
            buffer.field(12, "timeout multiplier", timeout)
        case .connectionParameterUpdateResponse(let result):
            buffer.text("          command: connectionParameterUpdateResponse\n")
            buffer.field(12, "result", result)
        default:
            break
        }
        return true
    }

    /// A report's advertising data, its `data` line and its AD structures' lines (as
    /// `FieldPrinter` writes ``AdvertisingData``), `indent` spaces in.
    static func advertising(_ data: AdvertisingData, indent: Int, to buffer: inout LineBuffer) {
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
                buffer.field(inner, "flags", UInt64(flags.rawValue))
            case .serviceUUIDs(let list, let complete):
                buffer.heading(inner, "serviceUUIDs")
                buffer.entries(inner + 2, "", list.count)
                for (index, uuid) in list.enumerated() {
                    buffer.spaces(inner + 4)
                    buffer.byte(UInt8(ascii: "["))
                    buffer.decimal(UInt64(index))
                    buffer.text("]: ")
                    buffer.uuid(uuid)
                    buffer.byte(0x0A)
                }
                buffer.field(inner + 2, "complete", complete)
            case .localName(let name, let complete):
                buffer.heading(inner, "localName")
                buffer.spaces(inner + 2)
                buffer.bytesField(name)
                buffer.byte(0x0A)
                buffer.field(inner + 2, "complete", complete)
            case .txPowerLevel(let level):
                buffer.field(inner, "txPowerLevel", level)
            case .serviceData(let uuid, let bytes):
                buffer.heading(inner, "serviceData")
                buffer.spaces(inner + 2)
                buffer.text("uuid: ")
                buffer.uuid(uuid)
                buffer.byte(0x0A)
                buffer.field(inner + 2, "data", bytes)
            case .appearance(let appearance):
                buffer.field(inner, "appearance", appearance)
            case .manufacturerSpecificData(let company, let bytes):
                buffer.heading(inner, "manufacturerSpecificData")
                buffer.field(inner + 2, "company ID", company)
                buffer.field(inner + 2, "data", bytes)
            case .unknown(let type, let bytes):
                buffer.heading(inner, "unknown")
                buffer.field(inner + 2, "type", type.description)
                buffer.field(inner + 2, "data", bytes)
            }
        }
    }

    /// The fields LE Create Connection and LE Extended Create Connection begin with.
    private static func peer(
        _ policy: UInt8, _ ownAddressType: UInt8, _ peerAddressType: UInt8, _ address: BluetoothAddress,
        to buffer: inout LineBuffer
    ) {
        buffer.field(10, "initiator filter policy", UInt64(policy))
        buffer.field(10, "own address type", UInt64(ownAddressType))
        buffer.field(10, "peer address type", UInt64(peerAddressType))
        buffer.field(10, "peer address", address)
    }

    /// The connection parameters LE Create Connection, LE Extended Create Connection and LE
    /// Connection Update share, in their order, after the scan interval and window of the first two.
    private static func connectionParameters(
        _ indent: Int, scan: (interval: UInt16, window: UInt16)?, _ intervalMin: UInt16, _ intervalMax: UInt16,
        _ latency: UInt16, _ timeout: UInt16, _ minCE: UInt16, _ maxCE: UInt16, to buffer: inout LineBuffer
    ) {
        if let scan {
            buffer.field(indent, "scan interval", scan.interval)
            buffer.field(indent, "scan window", scan.window)
        }
        buffer.field(indent, "connection interval min", intervalMin)
        buffer.field(indent, "connection interval max", intervalMax)
        buffer.field(indent, "max latency", latency)
        buffer.field(indent, "supervision timeout", timeout)
        buffer.field(indent, "min CE Length", minCE)
        buffer.field(indent, "max CE Length", maxCE)
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

/// The fields of `-v` as ``FieldPrinter`` writes them: a label, its value, a line each.
extension LineBuffer {
    /// Bytes as ``FieldPrinter`` writes a byte field: hex, `(empty)`, and the text too when there
    /// are 3 or more and all are printable ASCII.
    mutating func bytesField(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return text("(empty)") }
        hexBytes(bytes)
        if bytes.count >= 3, bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) {
            text(" \"")
            raw(bytes)
            byte(UInt8(ascii: "\""))
        }
    }

    /// An unsigned field as ``FieldPrinter`` writes it: decimal, and hex too above 9.
    mutating func integer(_ value: UInt16) { integer(UInt64(value)) }

    /// ``integer(_:)`` of a wider field.
    mutating func integer(_ value: UInt64) {
        decimal(value)
        if value > 9 {
            text(" (0x")
            hexDigits(UInt64(value))
            byte(UInt8(ascii: ")"))
        }
    }

    /// A UUID as `FieldPrinter` writes one: as it prints, and its GATT name.
    fileprivate mutating func uuid(_ uuid: BluetoothUUID) {
        string(uuid.description)
        if let name = GATTNames.name(for: uuid) {
            text(" (")
            string(name)
            byte(UInt8(ascii: ")"))
        }
    }

    /// `label`, alone on its line (a structure whose fields follow).
    fileprivate mutating func heading(_ indent: Int, _ label: StaticString) {
        spaces(indent)
        text(label)
        byte(0x0A)
    }

    /// A list's count line: `label: N entries`, or `N entries` with no label.
    fileprivate mutating func entries(_ indent: Int, _ label: StaticString, _ count: Int) {
        spaces(indent)
        if label.utf8CodeUnitCount > 0 {
            text(label)
            text(": ")
        }
        decimal(UInt64(count))
        text(" entries\n")
    }

    /// A list element's line, `[index]`, its fields after it.
    fileprivate mutating func element(_ indent: Int, _ index: Int) {
        spaces(indent)
        byte(UInt8(ascii: "["))
        decimal(UInt64(index))
        text("]\n")
    }

    fileprivate mutating func open(_ indent: Int, _ label: StaticString) {
        spaces(indent)
        text(label)
        text(": ")
    }

    fileprivate mutating func field(_ indent: Int, _ label: StaticString, _ value: UInt16) {
        field(indent, label, UInt64(value))
    }

    fileprivate mutating func field(_ indent: Int, _ label: StaticString, _ value: UInt64) {
        open(indent, label)
        integer(value)
        byte(0x0A)
    }

    /// A key or a 128-bit value (rare: keys are set once a connection), through strings.
    fileprivate mutating func field(_ indent: Int, _ label: StaticString, _ value: UInt128) {
        open(indent, label)
        string(value > 9 ? "\(value) (\(Wire.hex(value, digits: 1)))" : "\(value)")
        byte(0x0A)
    }

    fileprivate mutating func field(_ indent: Int, _ label: StaticString, _ value: Int8) {
        open(indent, label)
        decimal(Int(value))
        byte(0x0A)
    }

    fileprivate mutating func field(_ indent: Int, _ label: StaticString, _ value: Bool) {
        open(indent, label)
        text(value ? "true" : "false")
        byte(0x0A)
    }

    fileprivate mutating func field(_ indent: Int, _ label: StaticString, _ value: BluetoothAddress) {
        open(indent, label)
        address(value)
        byte(0x0A)
    }

    fileprivate mutating func field(_ indent: Int, _ label: StaticString, _ value: String) {
        open(indent, label)
        string(value)
        byte(0x0A)
    }

    fileprivate mutating func field(_ indent: Int, _ label: StaticString, _ bytes: UnsafeRawBufferPointer) {
        open(indent, label)
        bytesField(bytes)
        byte(0x0A)
    }
}
