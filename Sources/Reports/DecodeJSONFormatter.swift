import ATT
import HCI
import Lifecycle
import TraceFiles
import Wire

/// Writes the records of `bletrace decode --format json|jsonl` into a reused ``LineBuffer``, one
/// JSON object a record (Formats/json.md): the fast path of the JSON output (also measured by
/// Benchmarks/Benchmarks/DecodeLines).
///
/// Each object is byte for byte what JSONEncoder writes for ``JSONRecord`` (the reference in
/// Tests/ReportsTests/DecodeReference.swift; `DecodeFormattersTests` compares the two on every
/// bundled and public capture), written member by member with nothing allocated.
public enum DecodeJSONFormatter {
    /// One JSON record on one line, with its line end: the bytes JSONEncoder writes for
    /// ``JSONRecord`` (keys sorted, no escaped slashes); `version` for `--format jsonl`.
    public static func write(
        _ record: CaptureRecord, _ decoded: DecodedRecord, answering request: ATTRequest?, version: Int?,
        to buffer: inout LineBuffer
    ) {
        // Keys in sorted order: att, controller, direction, fault, frame, hci, index, kind, note,
        // smp, ts_us, version.
        // Every member is written with a comma before it; the first comma becomes the brace.
        let open = buffer.count
        if let pdu = decoded.att {
            buffer.text(",\"att\":")
            att(pdu, answering: request, to: &buffer)
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
        hci(record, decoded, to: &buffer)
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
            buffer.member(",\"reason\":", smp.pairingFailedReason.map { UInt64($0.rawValue) })
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

    private static func hci(_ record: CaptureRecord, _ decoded: DecodedRecord, to buffer: inout LineBuffer) {
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
        buffer.member(",\"event\":", event.map(UInt64.init))
        buffer.member(",\"handle\":", handle.map(UInt64.init))
        buffer.member(",\"opcode\":", opcode.map(UInt64.init))
        buffer.member(",\"reason\":", reason.map(UInt64.init))
        buffer.member(",\"status\":", status.map(UInt64.init))
        buffer.member(",\"subevent\":", subevent.map(UInt64.init))
        buffer.byte(UInt8(ascii: "}"))
        buffer.set(open, UInt8(ascii: "{"))
    }

    private static func att(_ pdu: ATTPDU, answering request: ATTRequest?, to buffer: inout LineBuffer) {
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
        buffer.member(",\"end\":", end.map(UInt64.init))
        buffer.member(",\"error\":", error.map(UInt64.init))
        buffer.member(",\"handle\":", handle.map(UInt64.init))
        buffer.member(",\"mtu\":", mtu.map(UInt64.init))
        buffer.member(",\"opcode\":", UInt64(pdu.opcode.rawValue))
        if let requestIndex {
            // Record numbers are never negative.
            buffer.member(",\"request_frame\":", UInt64(requestIndex + 1))
            buffer.member(",\"request_index\":", UInt64(requestIndex))
        }
        buffer.member(",\"request_opcode\":", requestOpcode.map(UInt64.init))
        buffer.member(",\"start\":", start.map(UInt64.init))
        if let value {
            buffer.text(",\"value\":\"")
            buffer.hexBytes(value)
            buffer.byte(UInt8(ascii: "\""))
        }
        buffer.byte(UInt8(ascii: "}"))
        buffer.set(open, UInt8(ascii: "{"))
    }
}

extension LineBuffer {
    /// `,"name":value` when there is a value.
    @inline(__always) fileprivate mutating func member(_ name: StaticString, _ value: UInt64?) {
        guard let value else { return }
        text(name)
        decimal(value)
    }
}
