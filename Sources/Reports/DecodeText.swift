import ATT
import HCI
import Lifecycle
import TraceFiles
import Wire

// What `bletrace decode`'s formatters (DecodeLineFormatter, DecodeJSONFormatter) and its
// link-layer lines share as strings: an ATT or SMP PDU in words, the fields of the BR/EDR link
// events, the `att` and `smp` members of a JSON record, the attribute a PDU is about.

/// The `att` member of a record of `bletrace decode --format jsonl` (Formats/json.md), HCI or
/// link-layer.
public struct JSONATTFields: Encodable {
    var opcode: UInt8
    var handle: UInt16?
    var start: UInt16?
    var end: UInt16?
    var request_opcode: UInt8?
    var request_index: Int?
    var request_frame: Int?
    var error: UInt8?
    var mtu: UInt16?
    var value: String?

    /// The fields of `pdu`; `request` is the request it answers (shared by the HCI and the
    /// link-layer records).
    public init(_ pdu: ATTPDU, answering request: (opcode: ATTOpcode, handle: UInt16?, record: Int)?) {
        opcode = pdu.opcode.rawValue
        switch pdu {
        case .findInformationRequest(let start, let end), .findByTypeValueRequest(let start, let end, _, _),
            .readByTypeRequest(let start, let end, _), .readByGroupTypeRequest(let start, let end, _):
            (self.start, self.end) = (start, end)
        default:
            handle = attributeHandle(pdu, requestOpcode: request?.opcode, requestHandle: request?.handle)
        }
        // A response names the request it answers.
        if let request, pdu.opcode.method == .response || pdu.opcode.method == .confirmation {
            request_opcode = request.opcode.rawValue
            request_index = request.record
            request_frame = request.record + 1
        }
        switch pdu {
        case .errorResponse(let request, _, let error):
            request_opcode = request.rawValue
            self.error = error.rawValue
        case .exchangeMTURequest(let mtu), .exchangeMTUResponse(let mtu):
            self.mtu = mtu
        case .readResponse(let value), .writeRequest(_, let value), .writeCommand(_, let value),
            .handleValueNotification(_, let value), .handleValueIndication(_, let value):
            self.value = value.hexString
        default:
            break
        }
    }
}

/// The `smp` member of a record of `bletrace decode --format jsonl` (Formats/json.md), HCI or
/// link-layer: the command's code, and for Pairing Failed its reason.
public struct JSONSMPFields: Encodable {
    var opcode: UInt8
    var reason: UInt8?

    public init(_ pdu: SMPPDU) {
        opcode = pdu.code.rawValue
        reason = pdu.pairingFailedReason?.rawValue
    }
}

/// An SMP command for a person, as the text of `decode` names it on HCI and over-the-air captures
/// alike: its name, and for Pairing Failed the reason (`Pairing Failed: Repeated Attempts`).
func describe(_ pdu: SMPPDU) -> String {
    guard let reason = pdu.pairingFailedReason else { return pdu.code.description }
    return "\(pdu.code): \(reason)"
}

/// What the text line of `decode` shows after the name of an event that the summary
/// (``HCIEvent``) keeps raw and ``HCIEventParameters`` decodes: the BR/EDR link events
/// (Core 6.0, Vol 4, Part E, §7.7) and LE Advertising Set Terminated (§7.7.65.18). The device
/// address, the handle, what the event says, then its status, as Connection Complete's line has
/// them; nil for every other event, and for one that does not decode (its name alone is shown).
func eventFieldsText(_ bytes: UnsafeRawBufferPointer) -> String? {
    guard bytes.count >= 2 else { return nil }
    switch bytes[0] {
    case 0x01, 0x04, 0x06, 0x07, 0x0B, 0x14, 0x17, 0x1B, 0x1C, 0x1D, 0x23, 0x2E: break
    case 0x3E where bytes.count >= 3 && bytes[2] == 0x12: break
    default: return nil
    }
    guard let event = try? HCIEventParameters.decode(bytes) else { return nil }
    var text = ""
    if let address = event.address { text += " \(address)" }
    if case .le(.advertisingSetTerminated(let terminated)) = event {
        // The handle is valid only when the set became a connection.
        text += " set \(terminated.advertisingHandle)"
        if terminated.status == .success { text += " handle \(hex(terminated.handle, digits: 4))" }
        text += " events \(terminated.numCompletedExtendedAdvertisingEvents)"
    } else if let handle = event.handle {
        text += " handle \(hex(handle, digits: 4))"
    }
    switch event {
    case .connectionRequest(let request):
        text += " class \(hex(request.classOfDevice, digits: 6)) link \(request.linkType)"
    case .remoteNameRequestComplete(let complete):
        // Quoted, where it is text with no control characters.
        if let name = complete.name,
            name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F && $0 != "\"" })
        {
            text += " \"\(name)\""
        }
    case .modeChange(let change):
        text += " mode \(change.currentMode)"
        if change.interval != 0 { text += " interval \(change.interval)" }
    case .maxSlotsChange(_, let slots):
        text += " max slots \(slots)"
    case .connectionPacketTypeChanged(_, _, let types):
        text += " packet types \(hex(types, digits: 4))"
    case .readRemoteExtendedFeaturesComplete(let features):
        text += " page \(features.pageNumber) of \(features.maxPageNumber)"
    default:
        break
    }
    if let status = event.status { text += ": \(status)" }
    return text
}

/// An ATT PDU for a person; `request` is the one it answers, which tells what a Read By Type
/// Response lists (characteristic declarations, in a characteristic discovery).
func describe(_ pdu: ATTPDU, answering request: ATTRequest? = nil) -> String {
    func handle(_ value: UInt16) -> String { hex(value, digits: 4) }
    func uuid(_ value: BluetoothUUID) -> String { "\(value)" + (GATTNames.name(for: value).map { " (\($0))" } ?? "") }
    func range(_ start: UInt16, _ end: UInt16) -> String { "\(handle(start))-\(handle(end))" }
    func value(_ bytes: UnsafeRawBufferPointer) -> String { bytes.isEmpty ? "empty" : bytes.hexString }
    func list(_ items: [String]) -> String {
        items.count > 4
            ? items.prefix(4).joined(separator: ", ") + ", … (\(items.count))" : items.joined(separator: ", ")
    }
    var text = "\(pdu.opcode)"
    switch pdu {
    case .errorResponse(let request, let attribute, let error):
        text += " to \(request) on handle \(handle(attribute)): \(error) (\(hex(error.rawValue, digits: 2)))"
    case .exchangeMTURequest(let mtu), .exchangeMTUResponse(let mtu):
        text += " MTU \(mtu)"
    case .findInformationRequest(let start, let end):
        text += " \(range(start, end))"
    case .findInformationResponse(let entries):
        text += " " + list(entries.map { "\(handle($0.handle)) \(uuid($0.type))" })
    case .findByTypeValueRequest(let start, let end, let type, let bytes):
        text += " \(range(start, end)) type \(uuid(BluetoothUUID(type))) value \(value(bytes))"
    case .findByTypeValueResponse(let ranges):
        text += " " + list(ranges.map { range($0.found, $0.groupEnd) })
    case .readByTypeRequest(let start, let end, let type), .readByGroupTypeRequest(let start, let end, let type):
        text += " \(range(start, end)) type \(uuid(type.uuid))"
    case .readByTypeResponse(let pairs) where request?.type == .characteristicDeclaration:
        // Characteristic discovery: each value is a declaration (Core 6.0, Vol 3, Part G, §3.3.1).
        text +=
            " "
            + list(
                pairs.map { pair in
                    guard let declaration = CharacteristicDeclaration(value: pair.value) else {
                        return "\(handle(pair.handle)): \(value(pair.value))"
                    }
                    let properties = GATTDatabase.Properties(rawValue: declaration.properties).names
                    return
                        "\(handle(pair.handle)): characteristic \(uuid(declaration.uuid)) value \(handle(declaration.valueHandle))"
                        + (properties.isEmpty ? "" : " [\(properties.joined(separator: ", "))]")
                })
    case .readByTypeResponse(let pairs):
        text += " " + list(pairs.map { "\(handle($0.handle)): \(value($0.value))" })
    case .readByGroupTypeResponse(let groups):
        text +=
            " "
            + list(
                groups.map { group in
                    "\(range(group.handle, group.groupEnd)) "
                        + (BluetoothUUID(littleEndian: group.value).map(uuid) ?? value(group.value))
                })
    case .readRequest(let attribute):
        text += " handle \(handle(attribute))"
    case .readBlobRequest(let attribute, let offset):
        text += " handle \(handle(attribute)) offset \(offset)"
    case .readResponse(let bytes), .readBlobResponse(let bytes), .readMultipleResponse(let bytes):
        text += " value \(value(bytes))"
    case .readMultipleRequest(let handles), .readMultipleVariableRequest(let handles):
        text += " " + list(handles.map(handle))
    case .readMultipleVariableResponse(let values):
        text += " " + list(values.map { value($0.value) })
    case .multipleHandleValueNotification(let values):
        text += " " + list(values.map { "\(handle($0.handle ?? 0)): \(value($0.value))" })
    case .writeRequest(let attribute, let bytes), .writeCommand(let attribute, let bytes),
        .handleValueNotification(let attribute, let bytes), .handleValueIndication(let attribute, let bytes):
        text += " handle \(handle(attribute)) value \(value(bytes))"
    case .signedWriteCommand(let attribute, let bytes, _):
        text += " handle \(handle(attribute)) value \(value(bytes)) (signed)"
    case .prepareWriteRequest(let attribute, let offset, let bytes),
        .prepareWriteResponse(let attribute, let offset, let bytes):
        text += " handle \(handle(attribute)) offset \(offset) value \(value(bytes))"
    case .executeWriteRequest(let flags):
        text += flags == 0 ? " (cancel)" : flags == 1 ? " (write)" : " flags \(hex(flags, digits: 2))"
    case .unknown(_, let parameters):
        text += " (\(parameters.count) bytes)"
    case .writeResponse, .executeWriteResponse, .handleValueConfirmation:
        break
    }
    return text
}

/// The attribute a PDU is about, as Wireshark's `btatt.handle`: its own handle; a list's first
/// entry; for a response with none of its own (Read, Read Blob, Write, Handle Value
/// Confirmation), the handle of the request it answers. Nil for range requests.
func attributeHandle(_ pdu: ATTPDU, answering request: ATTRequest?) -> UInt16? {
    attributeHandle(pdu, requestOpcode: request?.opcode, requestHandle: request?.attributeHandle)
}

/// ``attributeHandle(_:answering:)`` given the request's opcode and handle.
func attributeHandle(_ pdu: ATTPDU, requestOpcode: ATTOpcode?, requestHandle: UInt16?) -> UInt16? {
    switch pdu {
    case .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest, .readByGroupTypeRequest: return nil
    case .findInformationResponse(let list): return list.first?.handle
    case .findByTypeValueResponse(let list): return list.first?.found
    case .readByTypeResponse(let list): return list.first?.handle
    case .readByGroupTypeResponse(let list): return list.first?.handle
    case .readMultipleRequest(let list), .readMultipleVariableRequest(let list): return list.first
    default: break
    }
    if let handle = pdu.handle { return handle }
    if let requestOpcode, pdu.opcode.method == .response || pdu.opcode.method == .confirmation,
        [.readRequest, .readBlobRequest, .writeRequest, .handleValueIndication].contains(requestOpcode)
    {
        return requestHandle
    }
    return nil
}
