import ATT
import HCI
import Lifecycle
import TraceFiles
import Wire

/// Writes the text line of `bletrace decode` for each record into a reused ``LineBuffer``: the
/// fast path of the text output (also measured by Benchmarks/Benchmarks/DecodeLines).
///
/// The line is byte for byte what the straightforward formatter writes (a record's line built
/// from strings: the reference in Tests/ReportsTests/DecodeReference.swift; `DecodeFormattersTests`
/// compares the two on every bundled and public capture). Traffic (notifications, writes, reads,
/// their answers, HCI commands and events, flow control) is written field by field with nothing
/// allocated; the rare PDUs that list UUIDs or values (discovery responses) reuse
/// `describe(_:answering:)`'s text for the PDU. ``DecodeVerboseFormatter`` writes the `-v` lines
/// under it, ``DecodeJSONFormatter`` the JSON form.
public enum DecodeLineFormatter {
    /// One record's line, with its line end: its number, its time since `origin` (the first
    /// record's), its direction and kind, then what it is; `request` is the ATT request the record
    /// answers, if it is a response.
    public static func write(
        _ record: CaptureRecord, _ decoded: DecodedRecord, answering request: ATTRequest?, origin: Timestamp,
        to buffer: inout LineBuffer
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
            buffer.name(command.opcode.name, command.opcode)
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
                buffer.reason(reason)
            default: break
            }
        case .event(let event):
            switch event {
            case .commandComplete(_, let opcode, _):
                buffer.text("Command Complete ")
                buffer.name(opcode.name, opcode)
                if let status = event.status {
                    buffer.text(": ")
                    buffer.name(status.name, status)
                }
            case .commandStatus(let status, _, let opcode):
                buffer.text("Command Status ")
                buffer.name(opcode.name, opcode)
                buffer.text(": ")
                buffer.name(status.name, status)
            case .disconnectionComplete(let status, let handle, let reason):
                buffer.text("Disconnection Complete handle ")
                buffer.hex(UInt64(handle), digits: 4)
                buffer.reason(reason)
                if status != .success {
                    buffer.text(" status ")
                    buffer.name(status.name, status)
                }
            case .connectionComplete(let status, let handle, let address, _):
                buffer.text("Connection Complete ")
                buffer.address(address)
                buffer.text(" handle ")
                buffer.hex(UInt64(handle), digits: 4)
                buffer.text(": ")
                buffer.name(status.name, status)
            case .le(.connectionComplete(let complete)):
                buffer.name(complete.subevent.name, complete.subevent)
                buffer.byte(0x20)
                buffer.address(complete.peerAddress)
                buffer.text(" handle ")
                buffer.hex(UInt64(complete.handle), digits: 4)
                buffer.text(complete.role == 0 ? " role central: " : " role peripheral: ")
                buffer.name(complete.status.name, complete.status)
            case .le(.unknown(let subevent, _)):
                buffer.name(subevent.name, subevent)
                // LE Advertising Set Terminated: its fields (`eventFieldsText`).
                if subevent.rawValue == 0x12, let fields = eventFieldsText(record.bytes) { buffer.string(fields) }
            case .unknown(let code, _):
                buffer.name(code.name, code)
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
                Self.att(att, answering: request, to: &buffer)
                if let request, att.opcode != .errorResponse {
                    buffer.text(" (answers ")
                    buffer.name(request.opcode.name, request.opcode)
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
    private static func att(_ pdu: ATTPDU, answering request: ATTRequest?, to buffer: inout LineBuffer) {
        buffer.name(pdu.opcode.name, pdu.opcode)
        switch pdu {
        case .errorResponse(let requested, let attribute, let error):
            buffer.text(" to ")
            buffer.name(requested.name, requested)
            buffer.text(" on handle ")
            buffer.hex(UInt64(attribute), digits: 4)
            buffer.text(": ")
            buffer.name(error.name, error)
            buffer.text(" (")
            buffer.hex(UInt64(error.rawValue), digits: 2)
            buffer.byte(UInt8(ascii: ")"))
        case .exchangeMTURequest(let mtu), .exchangeMTUResponse(let mtu):
            buffer.text(" MTU ")
            buffer.decimal(UInt64(mtu))
        case .findInformationRequest(let start, let end):
            buffer.byte(0x20)
            buffer.range(start, end)
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
            buffer.value(bytes)
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
            buffer.value(bytes)
        case .signedWriteCommand(let attribute, let bytes, _):
            buffer.text(" handle ")
            buffer.hex(UInt64(attribute), digits: 4)
            buffer.text(" value ")
            buffer.value(bytes)
            buffer.text(" (signed)")
        case .prepareWriteRequest(let attribute, let offset, let bytes),
            .prepareWriteResponse(let attribute, let offset, let bytes):
            buffer.text(" handle ")
            buffer.hex(UInt64(attribute), digits: 4)
            buffer.text(" offset ")
            buffer.decimal(UInt64(offset))
            buffer.text(" value ")
            buffer.value(bytes)
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
}

extension LineBuffer {
    /// A handle range, `0001-ffff`.
    fileprivate mutating func range(_ start: UInt16, _ end: UInt16) {
        hex(UInt64(start), digits: 4)
        byte(UInt8(ascii: "-"))
        hex(UInt64(end), digits: 4)
    }

    /// An attribute value in hex, or `empty`.
    fileprivate mutating func value(_ bytes: UnsafeRawBufferPointer) {
        if bytes.isEmpty { text("empty") } else { hexBytes(bytes) }
    }

    /// A wire code's name; its description (which allocates) only for a code with no name.
    @inline(__always) fileprivate mutating func name(
        _ name: String?, _ code: @autoclosure () -> some CustomStringConvertible
    ) {
        if let name { string(name) } else { string(code().description) }
    }

    /// ` reason NAME (0xNN)`: the reason of a Disconnect command or a Disconnection Complete.
    fileprivate mutating func reason(_ reason: HCIStatus) {
        text(" reason ")
        name(reason.name, reason)
        text(" (")
        hex(UInt64(reason.rawValue), digits: 2)
        byte(UInt8(ascii: ")"))
    }
}
