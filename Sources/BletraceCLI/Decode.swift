import ArgumentParser
import BLETrace

/// `bletrace decode FILE`: every record, decoded, one line each.
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode every record: HCI commands and events, ACL, L2CAP, ATT.",
        discussion: "Records are numbered from 1, as Wireshark numbers frames. --format jsonl writes one JSON object per record, --format json one document with them all (Formats/json.md).")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json or jsonl (one record per line).") var format: OutputFormat = .text
    @Flag(name: .shortAndLong, help: "Show every field of every layer under each record's line.") var verbose = false
    @Option(
        help: ArgumentHelp(
            "Show only matching records; repeat to require several.",
            discussion: "Tests joined with and, or, not and parentheses: att.error, att.error==0x05, att.opcode==0x0a, att.handle==0x14, hci.handle==0x40, hci.reason==0x08, hci.opcode==0x200d, hci.event==0x3e, peer==AA:BB:CC:DD:EE:FF or peer==\"name\", time>=12.5 (seconds from the first record), frame<100, direction==sent, and the kinds command, event, acl, l2cap, att, smp, error. Wireshark's names work too (btatt.error_code, bthci_acl.chandle, …). Numbers decimal or 0x-hex.",
            valueName: "filter"),
        completion: .filterFields)
    var filter: [String] = []

    func validate() throws {
        if verbose, format != .text { throw ValidationError("-v adds every field under each text line; --format \(format.rawValue) has its own fields (Formats/json.md)") }
        for text in filter { _ = try RecordFilter(parsing: text) }
    }

    @OptionGroup var selection: SelectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var air: AirCaptureOptions

    func run() throws {
        try output.apply(input: capture.file)
        let filters = try filter.map(RecordFilter.init(parsing:)) + [RecordFilter(selection)].compactMap { $0 }
        let path = try capture.path
        let reader = try openCapture(path, linkLayer: true)
        if let linkType = reader.format.linkLayerType {
            guard filters.isEmpty else {
                Output.error("\(path): --filter and the selection options (--peer, --transport, --from, --to) do not apply to link-layer captures yet; decode the whole file")
                throw Exit.badInput
            }
            return try decodeLinkLayer(reader, linkType: linkType, keys: air.options.keys, format: format, verbose: verbose, brief: selection.brief)
        }
        var progress = output.progress(for: path, streamsOutput: true)
        var decoder = TraceDecoder()
        // Runs alongside so that each ATT response is read knowing its request.
        var analyzer = LifecycleAnalyzer()
        var origin: Timestamp?
        var fault: (any Error)?
        // --format json: one object, its records written one at a time as they are decoded.
        var written = 0
        // The options, read once: each read of an argument-parser property costs a metadata
        // lookup, too much once a record.
        let (format, verbose, brief, colored) = (self.format, self.verbose, selection.brief, Style.enabled)
        // Lines are built in one reused buffer, handed to the output every 64 KB.
        var formatter = DecodeFormatter()
        if format == .json { formatter.buffer.text("{\"records\":[\n") }
        do {
            while let record = try reader.next() {
                progress?.advance(record)
                let decoded = decoder.decode(record)
                analyzer.add(record, decoded)
                if origin == nil { origin = record.timestamp }
                if brief, Self.isNoise(record, decoded) { continue }
                if !filters.isEmpty {
                    // A record the filters reject is never formatted.
                    let context = RecordFilter.Context(analyzer: analyzer, origin: origin!)
                    guard filters.allSatisfy({ $0.matches(record, decoded, context) }) else { continue }
                }
                switch format {
                case .json:
                    if written > 0 { formatter.buffer.byte(UInt8(ascii: ",")) }
                    formatter.json(record, decoded, answering: analyzer.lastAnswered, version: nil)
                    written += 1
                case .jsonl:
                    formatter.json(record, decoded, answering: analyzer.lastAnswered, version: jsonVersion)
                case .text:
                    // With colour, a failure (what the filter `error` selects) is red.
                    let failure = colored && RecordFilter.isFailure(decoded)
                    if failure { formatter.buffer.text("\u{1B}[31m") }
                    formatter.text(record, decoded, answering: analyzer.lastAnswered, origin: origin!)
                    if failure {
                        // The reset goes before the line end.
                        formatter.buffer.set(formatter.buffer.count - 1, 0x1B)
                        formatter.buffer.text("[0m\n")
                    }
                    if verbose, !formatter.verbose(record, decoded) {
                        for line in detail(record, decoded) {
                            formatter.buffer.string(line)
                            formatter.buffer.byte(0x0A)
                        }
                    }
                }
                if formatter.buffer.count >= 1 << 16 { Output.write(&formatter.buffer) }
            }
        } catch { fault = error }
        progress?.finish()
        Output.write(&formatter.buffer)
        _ = selection.warnIfPeerMatchesNothing(analyzer.connections, names: analyzer.scanning.names, path: path)
        if format == .json { Output.line("],\"file\":\(CaptureBatch.fileMember(capture.file)),\"version\":\(jsonVersion)}") }
        try finish(fault)
    }
}

extension Decode {
    /// What `--brief` leaves out: controller flow control, vendor commands and events, and
    /// Android's debug records.
    static func isNoise(_ record: CaptureRecord, _ decoded: DecodedRecord) -> Bool {
        switch decoded.packet {
        case .command(let command): return command.opcode.ogf == 0x3F
        case .event(.commandComplete(_, let opcode, _)), .event(.commandStatus(_, _, let opcode)): return opcode.ogf == 0x3F
        case .event(let event): return event.code == .numberOfCompletedPackets || event.code == .vendorSpecific
        case .acl(let acl): return acl.handle == ACLPacket.androidDebugHandle
        default: return false
        }
    }
}

/// The JSONL contract of `bletrace decode --format jsonl` (Formats/json.md).
struct JSONRecord: Encodable {
    struct HCI: Encodable {
        var opcode: UInt16?
        var event: UInt8?
        var subevent: UInt8?
        var status: UInt8?
        var reason: UInt8?
        var handle: UInt16?
    }
    struct ATTFields: Encodable {
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
        init(_ pdu: ATTPDU, answering request: (opcode: ATTOpcode, handle: UInt16?, record: Int)?) {
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
    /// On each line of `--format jsonl` only: in `--format json` the document carries it.
    var version: Int?
    var index: Int
    var frame: Int
    var ts_us: Int64
    var direction: String?
    var kind: String
    var controller: UInt16?
    var hci: HCI?
    var att: ATTFields?
    var note: String?
    var fault: String?

    init(_ record: CaptureRecord, _ decoded: DecodedRecord, answering request: ATTRequest? = nil) {
        index = record.index
        frame = record.index + 1
        ts_us = record.timestamp.microseconds
        direction = record.direction.map { "\($0)" }
        kind = "\(record.kind)"
        controller = record.controllerIndex
        note = record.note
        fault = (decoded.fault ?? decoded.lostFragments).map { "\($0)" }
        switch decoded.packet {
        case .command(let command):
            var fields = HCI(opcode: command.opcode.rawValue)
            if case .disconnect(_, let reason) = command { fields.reason = reason.rawValue }
            fields.handle = (try? HCICommandParameters.decode(record.bytes))?.handle
            hci = fields
        case .event(let event):
            var fields = HCI(event: event.code.rawValue, status: event.status?.rawValue)
            switch event {
            case .commandComplete(_, let opcode, _), .commandStatus(_, _, let opcode):
                fields.opcode = opcode.rawValue
            case .disconnectionComplete(_, let handle, let reason):
                fields.handle = handle
                fields.reason = reason.rawValue
            case .connectionComplete(_, let handle, _, _):
                fields.handle = handle
            case .le(let meta):
                fields.subevent = meta.subevent.rawValue
                if case .connectionComplete(let complete) = meta { fields.handle = complete.handle }
            case .unknown:
                break
            }
            // The full decode knows the status and handle of every event bletrace names.
            if let full = try? HCIEventParameters.decode(record.bytes) {
                fields.status = full.status?.rawValue ?? fields.status
                fields.handle = full.handle ?? fields.handle
            }
            hci = fields
        case .acl(let acl):
            hci = HCI(handle: acl.handle)
        default:
            break
        }
        if let pdu = decoded.att {
            att = ATTFields(pdu, answering: request.map { (opcode: $0.opcode, handle: $0.attributeHandle, record: $0.record) })
        }
    }
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

/// Every field of every layer of a record, for `decode -v`.
func detail(_ record: CaptureRecord, _ decoded: DecodedRecord) -> [String] {
    var lines: [String] = []
    switch record.kind {
    case .command:
        if let parameters = try? HCICommandParameters.decode(record.bytes) { lines += FieldPrinter.lines(parameters, label: "HCI command") }
    case .event:
        if let parameters = try? HCIEventParameters.decode(record.bytes) { lines += FieldPrinter.lines(parameters, label: "HCI event") }
    default:
        break
    }
    if let l2cap = decoded.l2cap {
        lines.append("        L2CAP: channel \(l2cap.channel), \(l2cap.payload.count) bytes")
        if l2cap.channel == .leSignaling, let pdu = try? LESignalingPDU.decode(l2cap.payload) {
            lines += FieldPrinter.lines(pdu, label: "LE signaling")
        }
    }
    if let pdu = decoded.att { lines += FieldPrinter.lines(pdu, label: "ATT") }
    if let smp = decoded.smp { lines += FieldPrinter.lines(smp.command, label: "SMP") }
    if let fault = decoded.fault ?? decoded.lostFragments { lines.append("        fault: \(fault)") }
    if lines.isEmpty, !record.bytes.isEmpty { lines.append("        bytes: \(record.bytes.hexString)") }
    return lines
}

/// One line for a person: index, time, direction, kind, then what the packet says.
func describe(_ record: CaptureRecord, _ decoded: DecodedRecord, answering request: ATTRequest?, origin: Timestamp) -> String {
    var line = "\(record.index + 1)".leftPadded(6) + " " + relativeTime(record.timestamp, since: origin)
    line += " " + (record.direction.map { "\($0)" } ?? "-").rightPadded(8)
    line += " " + "\(record.kind)".rightPadded(7) + " "
    switch decoded.packet {
    case .command(let command):
        line += "\(command.opcode) (\(hex(command.opcode.rawValue, digits: 4)))"
        switch command {
        case .leCreateConnection(let attempt), .leExtendedCreateConnection(let attempt):
            line += attempt.usesFilterAcceptList ? " filter accept list" : " peer \(attempt.peerAddress)"
        case .disconnect(let handle, let reason):
            line += " handle \(hex(handle, digits: 4)) reason \(reason) (\(hex(reason.rawValue, digits: 2)))"
        default: break
        }
    case .event(let event):
        switch event {
        case .commandComplete(_, let opcode, _):
            line += "Command Complete \(opcode)"
            if let status = event.status { line += ": \(status)" }
        case .commandStatus(let status, _, let opcode):
            line += "Command Status \(opcode): \(status)"
        case .disconnectionComplete(let status, let handle, let reason):
            line += "Disconnection Complete handle \(hex(handle, digits: 4)) reason \(reason) (\(hex(reason.rawValue, digits: 2)))"
            if status != .success { line += " status \(status)" }
        case .connectionComplete(let status, let handle, let address, _):
            line += "Connection Complete \(address) handle \(hex(handle, digits: 4)): \(status)"
        case .le(.connectionComplete(let complete)):
            line += "\(complete.subevent) \(complete.peerAddress) handle \(hex(complete.handle, digits: 4)) role \(complete.role == 0 ? "central" : "peripheral"): \(complete.status)"
        case .le(.unknown(let subevent, _)):
            line += "\(subevent)"
        case .unknown(let code, _):
            line += "\(code)"
        }
    case .acl(let acl):
        line += "handle \(hex(acl.handle, digits: 4))"
        if acl.handle == ACLPacket.androidDebugHandle {
            line += " (Android debug data)"
        } else if let att = decoded.att {
            line += " ATT " + describe(att, answering: request)
            if let request, att.opcode != .errorResponse {
                line += " (answers \(request.opcode)"
                    + (request.attributeHandle.map { " of \(hex($0, digits: 4))" } ?? "") + ", frame \(request.record + 1))"
            }
        } else if let l2cap = decoded.l2cap {
            line += " L2CAP \(l2cap.channel), \(l2cap.payload.count) bytes"
        } else {
            line += " fragment, \(acl.data.count) bytes"
        }
    case .sco(let bytes), .iso(let bytes):
        line += "\(bytes.count) bytes"
    case .other:
        line += record.note ?? "\(record.bytes.count) bytes"
    case nil:
        break
    }
    if let fault = decoded.fault ?? decoded.lostFragments { line += "  [\(fault.layer): expected \(fault.expected) at byte \(fault.offset)]" }
    return line
}

/// An ATT PDU for a person; `request` is the one it answers, which tells what a Read By Type
/// Response lists (characteristic declarations, in a characteristic discovery).
func describe(_ pdu: ATTPDU, answering request: ATTRequest? = nil) -> String {
    func handle(_ value: UInt16) -> String { hex(value, digits: 4) }
    func uuid(_ value: BluetoothUUID) -> String { "\(value)" + (GATTNames.name(for: value).map { " (\($0))" } ?? "") }
    func range(_ start: UInt16, _ end: UInt16) -> String { "\(handle(start))-\(handle(end))" }
    func value(_ bytes: UnsafeRawBufferPointer) -> String { bytes.isEmpty ? "empty" : bytes.hexString }
    func list(_ items: [String]) -> String { items.count > 4 ? items.prefix(4).joined(separator: ", ") + ", … (\(items.count))" : items.joined(separator: ", ") }
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
    case .readByTypeResponse(let pairs) where request?.type == CharacteristicDeclaration.type:
        // Characteristic discovery: each value is a declaration (Core 6.0, Vol 3, Part G, §3.3.1).
        text += " " + list(pairs.map { pair in
            guard let declaration = CharacteristicDeclaration(value: pair.value) else { return "\(handle(pair.handle)): \(value(pair.value))" }
            let properties = GATTDatabase.Properties(rawValue: declaration.properties).names
            return "\(handle(pair.handle)): characteristic \(uuid(declaration.uuid)) value \(handle(declaration.valueHandle))"
                + (properties.isEmpty ? "" : " [\(properties.joined(separator: ", "))]")
        })
    case .readByTypeResponse(let pairs):
        text += " " + list(pairs.map { "\(handle($0.handle)): \(value($0.value))" })
    case .readByGroupTypeResponse(let groups):
        text += " " + list(groups.map { group in
            "\(range(group.handle, group.groupEnd)) " + (BluetoothUUID(littleEndian: group.value).map(uuid) ?? value(group.value))
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
    case .prepareWriteRequest(let attribute, let offset, let bytes), .prepareWriteResponse(let attribute, let offset, let bytes):
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

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
    func rightPadded(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
