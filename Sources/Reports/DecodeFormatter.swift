import ATT
import HCI
import Lifecycle
import LinkLayer
import TraceFiles
import Wire

/// Writes `decode`'s lines, text and JSON, into a reused ``LineBuffer``: the fast path of
/// `bletrace decode` (also measured by Benchmarks/Benchmarks/DecodeLines).
///
/// The output is byte for byte what the straightforward formatter writes (a record's line built
/// from strings, its JSON through JSONEncoder: the reference in Tests/ReportsTests/DecodeReference.swift;
/// `DecodeFormatterTests` compares the two on every bundled and public capture). Traffic
/// (notifications, writes, reads, their answers, HCI commands and events, flow control) is
/// written field by field with nothing allocated; the rare PDUs that list UUIDs or values
/// (discovery responses) reuse `describe(_:answering:)`'s text for the PDU.
public struct DecodeFormatter: ~Copyable {
    public var buffer = LineBuffer()

    public init() {}

    /// One text line, with its line end.
    public mutating func text(
        _ record: CaptureRecord, _ decoded: DecodedRecord, answering request: ATTRequest?, origin: Timestamp
    ) {
        buffer.decimal(UInt64(record.index + 1), width: 6)
        buffer.byte(0x20)
        buffer.relativeTime(record.timestamp, since: origin)
        buffer.byte(0x20)
        switch record.direction {
        case .sent: buffer.text("sent    ")
        case .received: buffer.text("received")
        case nil: buffer.text("-       ")
        }
        buffer.byte(0x20)
        switch record.kind {
        case .command: buffer.text("command")
        case .acl: buffer.text("acl    ")
        case .sco: buffer.text("sco    ")
        case .event: buffer.text("event  ")
        case .iso: buffer.text("iso    ")
        case .other: buffer.text("other  ")
        }
        buffer.byte(0x20)
        switch decoded.packet {
        case .command(let command):
            name(command.opcode.name, command.opcode)
            buffer.text(" (")
            buffer.hex(UInt64(command.opcode.rawValue), digits: 4)
            buffer.byte(UInt8(ascii: ")"))
            switch command {
            case .leCreateConnection(let attempt), .leExtendedCreateConnection(let attempt):
                if attempt.usesFilterAcceptList {
                    buffer.text(" filter accept list")
                } else {
                    buffer.text(" peer ")
                    buffer.address(attempt.peerAddress)
                }
            case .disconnect(let handle, let reason):
                buffer.text(" handle ")
                buffer.hex(UInt64(handle), digits: 4)
                buffer.text(" reason ")
                name(reason.name, reason)
                buffer.text(" (")
                buffer.hex(UInt64(reason.rawValue), digits: 2)
                buffer.byte(UInt8(ascii: ")"))
            default: break
            }
        case .event(let event):
            switch event {
            case .commandComplete(_, let opcode, _):
                buffer.text("Command Complete ")
                name(opcode.name, opcode)
                if let status = event.status {
                    buffer.text(": ")
                    name(status.name, status)
                }
            case .commandStatus(let status, _, let opcode):
                buffer.text("Command Status ")
                name(opcode.name, opcode)
                buffer.text(": ")
                name(status.name, status)
            case .disconnectionComplete(let status, let handle, let reason):
                buffer.text("Disconnection Complete handle ")
                buffer.hex(UInt64(handle), digits: 4)
                buffer.text(" reason ")
                name(reason.name, reason)
                buffer.text(" (")
                buffer.hex(UInt64(reason.rawValue), digits: 2)
                buffer.byte(UInt8(ascii: ")"))
                if status != .success {
                    buffer.text(" status ")
                    name(status.name, status)
                }
            case .connectionComplete(let status, let handle, let address, _):
                buffer.text("Connection Complete ")
                buffer.address(address)
                buffer.text(" handle ")
                buffer.hex(UInt64(handle), digits: 4)
                buffer.text(": ")
                name(status.name, status)
            case .le(.connectionComplete(let complete)):
                name(complete.subevent.name, complete.subevent)
                buffer.byte(0x20)
                buffer.address(complete.peerAddress)
                buffer.text(" handle ")
                buffer.hex(UInt64(complete.handle), digits: 4)
                buffer.text(complete.role == 0 ? " role central: " : " role peripheral: ")
                name(complete.status.name, complete.status)
            case .le(.unknown(let subevent, _)):
                name(subevent.name, subevent)
                // LE Advertising Set Terminated: its fields (`eventFieldsText`).
                if subevent.rawValue == 0x12, let fields = eventFieldsText(record.bytes) { buffer.string(fields) }
            case .unknown(let code, _):
                name(code.name, code)
                // The BR/EDR link events: their fields (`eventFieldsText`).
                if let fields = eventFieldsText(record.bytes) { buffer.string(fields) }
            }
        case .acl(let acl):
            buffer.text("handle ")
            buffer.hex(UInt64(acl.handle), digits: 4)
            if acl.handle == ACLPacket.androidDebugHandle {
                buffer.text(" (Android debug data)")
            } else if let att = decoded.att {
                buffer.text(" ATT ")
                self.att(att, answering: request)
                if let request, att.opcode != .errorResponse {
                    buffer.text(" (answers ")
                    name(request.opcode.name, request.opcode)
                    if let handle = request.attributeHandle {
                        buffer.text(" of ")
                        buffer.hex(UInt64(handle), digits: 4)
                    }
                    buffer.text(", frame ")
                    buffer.decimal(UInt64(request.record + 1))
                    buffer.byte(UInt8(ascii: ")"))
                }
            } else if let smp = decoded.smp {
                // As an over-the-air capture's line names it (`describe(_:)` of SMPPDU).
                buffer.text(" SMP ")
                buffer.string(describe(smp))
            } else if let l2cap = decoded.l2cap {
                buffer.text(" L2CAP ")
                buffer.string(l2cap.channel.description)
                buffer.text(", ")
                buffer.decimal(UInt64(l2cap.payload.count))
                buffer.text(" bytes")
            } else {
                buffer.text(" fragment, ")
                buffer.decimal(UInt64(acl.data.count))
                buffer.text(" bytes")
            }
        case .sco(let bytes), .iso(let bytes):
            buffer.decimal(UInt64(bytes.count))
            buffer.text(" bytes")
        case .other:
            if let note = record.note {
                buffer.string(note)
            } else {
                buffer.decimal(UInt64(record.bytes.count))
                buffer.text(" bytes")
            }
        case nil:
            break
        }
        if let fault = decoded.fault ?? decoded.lostFragments {
            buffer.text("  [")
            buffer.string(fault.layer.rawValue)
            buffer.text(": expected ")
            buffer.string(fault.expected)
            buffer.text(" at byte ")
            buffer.decimal(fault.offset)
            buffer.byte(UInt8(ascii: "]"))
        }
        buffer.byte(0x0A)
    }

    /// An ATT PDU for a person, as `describe(_:answering:)` writes it.
    private mutating func att(_ pdu: ATTPDU, answering request: ATTRequest?) {
        name(pdu.opcode.name, pdu.opcode)
        switch pdu {
        case .errorResponse(let requested, let attribute, let error):
            buffer.text(" to ")
            name(requested.name, requested)
            buffer.text(" on handle ")
            buffer.hex(UInt64(attribute), digits: 4)
            buffer.text(": ")
            name(error.name, error)
            buffer.text(" (")
            buffer.hex(UInt64(error.rawValue), digits: 2)
            buffer.byte(UInt8(ascii: ")"))
        case .exchangeMTURequest(let mtu), .exchangeMTUResponse(let mtu):
            buffer.text(" MTU ")
            buffer.decimal(UInt64(mtu))
        case .findInformationRequest(let start, let end):
            buffer.byte(0x20)
            range(start, end)
        case .readRequest(let attribute):
            buffer.text(" handle ")
            buffer.hex(UInt64(attribute), digits: 4)
        case .readBlobRequest(let attribute, let offset):
            buffer.text(" handle ")
            buffer.hex(UInt64(attribute), digits: 4)
            buffer.text(" offset ")
            buffer.decimal(UInt64(offset))
        case .readResponse(let bytes), .readBlobResponse(let bytes), .readMultipleResponse(let bytes):
            buffer.text(" value ")
            value(bytes)
        case .readMultipleRequest(let handles), .readMultipleVariableRequest(let handles):
            buffer.byte(0x20)
            for (index, handle) in handles.prefix(4).enumerated() {
                if index > 0 { buffer.text(", ") }
                buffer.hex(UInt64(handle), digits: 4)
            }
            if handles.count > 4 {
                buffer.text(", … (")
                buffer.decimal(UInt64(handles.count))
                buffer.byte(UInt8(ascii: ")"))
            }
        case .writeRequest(let attribute, let bytes), .writeCommand(let attribute, let bytes),
            .handleValueNotification(let attribute, let bytes), .handleValueIndication(let attribute, let bytes):
            buffer.text(" handle ")
            buffer.hex(UInt64(attribute), digits: 4)
            buffer.text(" value ")
            value(bytes)
        case .signedWriteCommand(let attribute, let bytes, _):
            buffer.text(" handle ")
            buffer.hex(UInt64(attribute), digits: 4)
            buffer.text(" value ")
            value(bytes)
            buffer.text(" (signed)")
        case .prepareWriteRequest(let attribute, let offset, let bytes),
            .prepareWriteResponse(let attribute, let offset, let bytes):
            buffer.text(" handle ")
            buffer.hex(UInt64(attribute), digits: 4)
            buffer.text(" offset ")
            buffer.decimal(UInt64(offset))
            buffer.text(" value ")
            value(bytes)
        case .executeWriteRequest(let flags):
            if flags == 0 {
                buffer.text(" (cancel)")
            } else if flags == 1 {
                buffer.text(" (write)")
            } else {
                buffer.text(" flags ")
                buffer.hex(UInt64(flags), digits: 2)
            }
        case .unknown(_, let parameters):
            buffer.text(" (")
            buffer.decimal(UInt64(parameters.count))
            buffer.text(" bytes)")
        case .writeResponse, .executeWriteResponse, .handleValueConfirmation:
            break
        case .findInformationResponse, .findByTypeValueRequest, .findByTypeValueResponse, .readByTypeRequest,
            .readByGroupTypeRequest, .readByTypeResponse, .readByGroupTypeResponse, .readMultipleVariableResponse,
            .multipleHandleValueNotification:
            // Discovery and multi-value PDUs (rare next to traffic): the reference's text, less
            // the opcode name written above.
            let text = describe(pdu, answering: request)
            buffer.string(String(text.utf8.dropFirst(pdu.opcode.description.utf8.count))!)
        }
    }

    /// The `-v` lines under a record's line, as `detail(_:_:)` writes them through
    /// ``FieldPrinter``, for the records traffic is made of (ACL data: fragments, notifications,
    /// writes, and through `attFields` ATT discovery, reads and their answers; LE signaling
    /// connection parameter updates; Number Of Completed Packets) and the commonest HCI of phones'
    /// logs (``commonHCI(_:)``); false, with nothing written, for any other record (the caller
    /// writes `detail(_:_:)`'s lines instead).
    public mutating func verbose(_ record: CaptureRecord, _ decoded: DecodedRecord) -> Bool {
        // Number Of Completed Packets: flow control, the most frequent event.
        if record.kind == .event, record.bytes.first == HCIEventCode.numberOfCompletedPackets.rawValue,
            decoded.fault == nil, decoded.lostFragments == nil,
            case .numberOfCompletedPackets(let list)? = try? HCIEventParameters.decode(record.bytes)
        {
            buffer.text("        HCI event: numberOfCompletedPackets\n          ")
            buffer.decimal(UInt64(list.count))
            buffer.text(" entries\n")
            for (index, entry) in list.enumerated() {
                buffer.text("            [")
                buffer.decimal(UInt64(index))
                buffer.text("]\n              handle: ")
                integer(entry.handle)
                buffer.text("\n              completed packets: ")
                integer(entry.completedPackets)
                buffer.byte(0x0A)
            }
            return true
        }
        // The commonest other events and commands of phones' logs (`commonHCI`).
        if record.kind == .event || record.kind == .command, decoded.fault == nil, decoded.lostFragments == nil {
            return commonHCI(record)
        }
        guard record.kind == .acl || record.kind == .sco || record.kind == .iso || record.kind == .other,
            decoded.fault == nil, decoded.lostFragments == nil, decoded.smp == nil
        else { return false }
        var handle: UInt16 = 0
        var value = UnsafeRawBufferPointer(start: nil, count: 0)
        var label: StaticString = ""
        if let pdu = decoded.att {
            switch pdu {
            case .handleValueNotification(let attribute, let bytes):
                (handle, value, label) = (attribute, bytes, "handleValueNotification")
            case .writeCommand(let attribute, let bytes): (handle, value, label) = (attribute, bytes, "writeCommand")
            case .writeRequest(let attribute, let bytes): (handle, value, label) = (attribute, bytes, "writeRequest")
            case .handleValueIndication(let attribute, let bytes):
                (handle, value, label) = (attribute, bytes, "handleValueIndication")
            default:
                // Discovery, reads and their answers (`attFields`), written below.
                guard Self.hasFieldLines(pdu) else { return false }
            }
        }
        // LE signaling: its connection parameter updates (`signaling`); the L2CAP line alone for
        // a PDU that does not decode.
        var signaling: LESignalingPDU?
        if let l2cap = decoded.l2cap, l2cap.channel == .leSignaling {
            signaling = try? LESignalingPDU.decode(l2cap.payload)
            switch signaling?.command {
            case .connectionParameterUpdateRequest?, .connectionParameterUpdateResponse?, nil: break
            default: return false
            }
        }
        if let l2cap = decoded.l2cap {
            buffer.text("        L2CAP: channel ")
            buffer.string(l2cap.channel.description)
            buffer.text(", ")
            buffer.decimal(UInt64(l2cap.payload.count))
            buffer.text(" bytes\n")
        }
        if let signaling { _ = self.signaling(signaling) }
        if let pdu = decoded.att, label.utf8CodeUnitCount == 0 {
            _ = attFields(pdu)
        } else if decoded.att != nil {
            buffer.text("        ATT: ")
            buffer.text(label)
            buffer.text("\n          handle: ")
            integer(handle)
            buffer.text("\n          value: ")
            if value.isEmpty {
                buffer.text("(empty)")
            } else {
                buffer.hexBytes(value)
                if value.count >= 3, value.allSatisfy({ (0x20..<0x7F).contains($0) }) {
                    buffer.text(" \"")
                    buffer.raw(value)
                    buffer.byte(UInt8(ascii: "\""))
                }
            }
            buffer.byte(0x0A)
        } else if decoded.l2cap == nil, !record.bytes.isEmpty {
            buffer.text("        bytes: ")
            buffer.hexBytes(record.bytes)
            buffer.byte(0x0A)
        }
        return true
    }

    /// The `-v` lines of Command Complete, Command Status, BR/EDR Connection Complete, LE Extended
    /// Advertising Report, an event or a command kept as bytes (vendor ones), Read RSSI, LE Set
    /// Extended Scan Enable, and through `command(_:)`, `event(_:)` and `returnParameters(_:)`
    /// (DecodeVerboseFields.swift) the other commands and events of scanning, advertising and
    /// connection set-up; false, with nothing written, for any other.
    private mutating func commonHCI(_ record: CaptureRecord) -> Bool {
        if record.kind == .command {
            switch try? HCICommandParameters.decode(record.bytes) {
            case .unknown(let opcode, let parameters)?:
                buffer.text("        HCI command: unknown\n          opcode: ")
                buffer.string(opcode.description)
                buffer.text("\n          parameters: ")
                bytesField(parameters)
            case .readRSSI(let handle)?:
                buffer.text("        HCI command: readRSSI\n          handle: ")
                integer(handle)
            case .leSetExtendedScanEnable(let scan)?:
                buffer.text("        HCI command: leSetExtendedScanEnable\n          enable: ")
                integer(UInt16(scan.enable))
                buffer.text("\n          filter duplicates: ")
                integer(UInt16(scan.filterDuplicates))
                buffer.text("\n          duration: ")
                integer(scan.duration)
                buffer.text("\n          period: ")
                integer(scan.period)
            case let parameters?:
                return command(parameters)
            case nil:
                return false
            }
            buffer.byte(0x0A)
            return true
        }
        switch try? HCIEventParameters.decode(record.bytes) {
        case .commandComplete(let complete)?:
            let returned: (label: StaticString, status: HCIStatus?, bytes: UnsafeRawBufferPointer)
            switch complete.returnParameters {
            case .status(let status): returned = ("status: ", status, complete.rawReturnParameters)
            case .unknown(let bytes): returned = ("unknown: ", nil, bytes)
            case .readRSSI, .connectionHandle, .readEncryptionKeySize, .readBDADDR, .readLocalSupportedFeatures,
                .leSetExtendedAdvertisingParameters, .readLocalVersionInformation, .leReadBufferSize:
                returned = ("", nil, complete.rawReturnParameters)
            }
            buffer.text("        HCI event: commandComplete\n          num packets: ")
            integer(UInt16(complete.numPackets))
            buffer.text("\n          opcode: ")
            buffer.string(complete.opcode.description)
            if returned.label.utf8CodeUnitCount == 0 {
                // Return parameters with fields of their own, a line each.
                buffer.byte(0x0A)
                returnParameters(complete.returnParameters)
                buffer.text("          raw return parameters: ")
                bytesField(complete.rawReturnParameters)
                buffer.byte(0x0A)
                return true
            }
            buffer.text("\n          return parameters: ")
            buffer.text(returned.label)
            if let status = returned.status { buffer.string(status.description) } else { bytesField(returned.bytes) }
            buffer.text("\n          raw return parameters: ")
            bytesField(complete.rawReturnParameters)
            buffer.byte(0x0A)
        case .commandStatus(let status, let numPackets, let opcode)?:
            buffer.text("        HCI event: commandStatus\n          status: ")
            buffer.string(status.description)
            buffer.text("\n          num packets: ")
            integer(UInt16(numPackets))
            buffer.text("\n          opcode: ")
            buffer.string(opcode.description)
            buffer.byte(0x0A)
        case .le(.extendedAdvertisingReport(let reports))?:
            // Each report's fields; its advertising data's structures through FieldPrinter.
            buffer.text("        HCI event: le\n          extendedAdvertisingReport\n            ")
            buffer.decimal(UInt64(reports.count))
            buffer.text(" entries\n")
            for (index, report) in reports.enumerated() {
                buffer.text("              [")
                buffer.decimal(UInt64(index))
                buffer.text("]\n                event type: ")
                integer(UInt16(report.eventType.rawValue))
                buffer.text("\n                address type: ")
                integer(UInt16(report.addressType))
                buffer.text("\n                address: ")
                buffer.address(report.address)
                buffer.text("\n                primary PHY: ")
                buffer.string(report.primaryPHY.description)
                buffer.text("\n                secondary PHY: ")
                buffer.string(report.secondaryPHY.description)
                buffer.text("\n                advertising SID: ")
                integer(UInt16(report.advertisingSID))
                if let txPower = report.txPower {
                    buffer.text("\n                tx power: ")
                    buffer.decimal(Int(txPower))
                }
                if let rssi = report.rssi {
                    buffer.text("\n                rssi: ")
                    buffer.decimal(Int(rssi))
                }
                buffer.text("\n                periodic advertising interval: ")
                integer(report.periodicAdvertisingInterval)
                buffer.text("\n                direct address type: ")
                integer(UInt16(report.directAddressType))
                buffer.text("\n                direct address: ")
                buffer.address(report.directAddress)
                buffer.byte(0x0A)
                advertising(report.data, indent: 16)
            }
        case .connectionComplete(let complete)?:
            buffer.text("        HCI event: connectionComplete\n          status: ")
            buffer.string(complete.status.description)
            buffer.text("\n          handle: ")
            integer(complete.handle)
            buffer.text("\n          address: ")
            buffer.address(complete.address)
            buffer.text("\n          link type: ")
            integer(UInt16(complete.linkType))
            buffer.text("\n          encryption enabled: ")
            integer(UInt16(complete.encryptionEnabled))
            buffer.byte(0x0A)
        case .unknown(let code, let parameters)?:
            buffer.text("        HCI event: unknown\n          code: ")
            buffer.string(code.description)
            buffer.text("\n          parameters: ")
            bytesField(parameters)
            buffer.byte(0x0A)
        case let parameters?:
            return event(parameters)
        case nil:
            return false
        }
        return true
    }

    /// Bytes as ``FieldPrinter`` writes a byte field: hex, `(empty)`, and the text too when there
    /// are 3 or more and all are printable ASCII.
    mutating func bytesField(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return buffer.text("(empty)") }
        buffer.hexBytes(bytes)
        if bytes.count >= 3, bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) {
            buffer.text(" \"")
            buffer.raw(bytes)
            buffer.byte(UInt8(ascii: "\""))
        }
    }

    /// An unsigned field as ``FieldPrinter`` writes it: decimal, and hex too above 9.
    mutating func integer(_ value: UInt16) { integer(UInt64(value)) }

    /// ``integer(_:)`` of a wider field.
    mutating func integer(_ value: UInt64) {
        buffer.decimal(value)
        if value > 9 {
            buffer.text(" (0x")
            buffer.hexDigits(UInt64(value))
            buffer.byte(UInt8(ascii: ")"))
        }
    }

    private mutating func range(_ start: UInt16, _ end: UInt16) {
        buffer.hex(UInt64(start), digits: 4)
        buffer.byte(UInt8(ascii: "-"))
        buffer.hex(UInt64(end), digits: 4)
    }

    private mutating func value(_ bytes: UnsafeRawBufferPointer) {
        if bytes.isEmpty { buffer.text("empty") } else { buffer.hexBytes(bytes) }
    }

    /// A wire code's name; its description (which allocates) only for a code with no name.
    @inline(__always) private mutating func name(
        _ name: String?, _ code: @autoclosure () -> some CustomStringConvertible
    ) {
        if let name { buffer.string(name) } else { buffer.string(code().description) }
    }
}

extension DecodeFormatter {
    /// One JSON record on one line, with its line end: the bytes JSONEncoder writes for
    /// ``JSONRecord`` (keys sorted, no escaped slashes); `version` for `--format jsonl`.
    public mutating func json(
        _ record: CaptureRecord, _ decoded: DecodedRecord, answering request: ATTRequest?, version: Int?
    ) {
        // Keys in sorted order: att, controller, direction, fault, frame, hci, index, kind, note,
        // smp, ts_us, version.
        // Every member is written with a comma before it; the first comma becomes the brace.
        let open = buffer.count
        if let pdu = decoded.att {
            buffer.text(",\"att\":")
            att(json: pdu, answering: request)
        }
        if let controller = record.controllerIndex {
            buffer.text(",\"controller\":")
            buffer.decimal(UInt64(controller))
        }
        if let direction = record.direction {
            buffer.text(direction == .sent ? ",\"direction\":\"sent\"" : ",\"direction\":\"received\"")
        }
        if let fault = decoded.fault ?? decoded.lostFragments {
            buffer.text(",\"fault\":")
            buffer.jsonString(fault.description)
        }
        buffer.text(",\"frame\":")
        buffer.decimal(record.index + 1)
        hci(json: record, decoded)
        buffer.text(",\"index\":")
        buffer.decimal(record.index)
        switch record.kind {
        case .command: buffer.text(",\"kind\":\"command\"")
        case .acl: buffer.text(",\"kind\":\"acl\"")
        case .sco: buffer.text(",\"kind\":\"sco\"")
        case .event: buffer.text(",\"kind\":\"event\"")
        case .iso: buffer.text(",\"kind\":\"iso\"")
        case .other: buffer.text(",\"kind\":\"other\"")
        }
        if let note = record.note {
            buffer.text(",\"note\":")
            buffer.jsonString(note)
        }
        if let smp = decoded.smp {
            // Sorted: opcode, reason (Pairing Failed).
            buffer.text(",\"smp\":{\"opcode\":")
            buffer.decimal(UInt64(smp.code.rawValue))
            member(",\"reason\":", smp.pairingFailedReason.map { UInt64($0.rawValue) })
            buffer.byte(UInt8(ascii: "}"))
        }
        buffer.text(",\"ts_us\":")
        buffer.decimal(record.timestamp.microseconds)
        if let version {
            buffer.text(",\"version\":")
            buffer.decimal(version)
        }
        buffer.text("}\n")
        buffer.set(open, UInt8(ascii: "{"))
    }

    private mutating func hci(json record: CaptureRecord, _ decoded: DecodedRecord) {
        var opcode: UInt16?
        var event: UInt8?
        var subevent: UInt8?
        var status: UInt8?
        var reason: UInt8?
        var handle: UInt16?
        var address: BluetoothAddress?
        switch decoded.packet {
        case .command(let command):
            opcode = command.opcode.rawValue
            if case .disconnect(_, let code) = command { reason = code.rawValue }
            handle = (try? HCICommandParameters.decode(record.bytes))?.handle
        case .event(let decodedEvent):
            event = decodedEvent.code.rawValue
            status = decodedEvent.status?.rawValue
            switch decodedEvent {
            case .commandComplete(_, let code, _), .commandStatus(_, _, let code):
                opcode = code.rawValue
            case .disconnectionComplete(_, let link, let code):
                handle = link
                reason = code.rawValue
            case .connectionComplete(_, let link, _, _):
                handle = link
            case .le(let meta):
                subevent = meta.subevent.rawValue
                if case .connectionComplete(let complete) = meta { handle = complete.handle }
            case .unknown:
                break
            }
            if let full = try? HCIEventParameters.decode(record.bytes) {
                status = full.status?.rawValue ?? status
                handle = full.handle ?? handle
                address = full.address
            }
        case .acl(let acl):
            handle = acl.handle
        default:
            return
        }
        buffer.text(",\"hci\":")
        let open = buffer.count
        // Sorted: address, event, handle, opcode, reason, status, subevent; at least one is there.
        if let address {
            // Lowercase, as the over-the-air records' addresses (rare events: the text may allocate).
            buffer.text(",\"address\":")
            buffer.jsonString(address.description.lowercased())
        }
        member(",\"event\":", event.map(UInt64.init))
        member(",\"handle\":", handle.map(UInt64.init))
        member(",\"opcode\":", opcode.map(UInt64.init))
        member(",\"reason\":", reason.map(UInt64.init))
        member(",\"status\":", status.map(UInt64.init))
        member(",\"subevent\":", subevent.map(UInt64.init))
        buffer.byte(UInt8(ascii: "}"))
        buffer.set(open, UInt8(ascii: "{"))
    }

    /// `,"name":value` when there is a value.
    @inline(__always) private mutating func member(_ name: StaticString, _ value: UInt64?) {
        guard let value else { return }
        buffer.text(name)
        buffer.decimal(value)
    }

    private mutating func att(json pdu: ATTPDU, answering request: ATTRequest?) {
        var handle: UInt16?
        var start: UInt16?
        var end: UInt16?
        var requestOpcode: UInt8?
        var requestIndex: Int?
        var error: UInt8?
        var mtu: UInt16?
        var value: UnsafeRawBufferPointer?
        switch pdu {
        case .findInformationRequest(let first, let last), .findByTypeValueRequest(let first, let last, _, _),
            .readByTypeRequest(let first, let last, _), .readByGroupTypeRequest(let first, let last, _):
            (start, end) = (first, last)
        default:
            handle = attributeHandle(pdu, answering: request)
        }
        if let request, pdu.opcode.method == .response || pdu.opcode.method == .confirmation {
            requestOpcode = request.opcode.rawValue
            requestIndex = request.record
        }
        switch pdu {
        case .errorResponse(let requested, _, let code):
            requestOpcode = requested.rawValue
            error = code.rawValue
        case .exchangeMTURequest(let offered), .exchangeMTUResponse(let offered):
            mtu = offered
        case .readResponse(let bytes), .writeRequest(_, let bytes), .writeCommand(_, let bytes),
            .handleValueNotification(_, let bytes), .handleValueIndication(_, let bytes):
            value = bytes
        default:
            break
        }
        let open = buffer.count
        // Sorted: end, error, handle, mtu, opcode, request_frame, request_index, request_opcode,
        // start, value; the opcode is always there.
        member(",\"end\":", end.map(UInt64.init))
        member(",\"error\":", error.map(UInt64.init))
        member(",\"handle\":", handle.map(UInt64.init))
        member(",\"mtu\":", mtu.map(UInt64.init))
        member(",\"opcode\":", UInt64(pdu.opcode.rawValue))
        if let requestIndex {
            // Record numbers are never negative.
            member(",\"request_frame\":", UInt64(requestIndex + 1))
            member(",\"request_index\":", UInt64(requestIndex))
        }
        member(",\"request_opcode\":", requestOpcode.map(UInt64.init))
        member(",\"start\":", start.map(UInt64.init))
        if let value {
            buffer.text(",\"value\":\"")
            buffer.hexBytes(value)
            buffer.byte(UInt8(ascii: "\""))
        }
        buffer.byte(UInt8(ascii: "}"))
        buffer.set(open, UInt8(ascii: "{"))
    }
}
