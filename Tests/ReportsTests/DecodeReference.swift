import ATT
import Foundation
import HCI
import Lifecycle
import TraceFiles
import Wire

@testable import Reports

// The straightforward formatter `bletrace decode` had before its fast ones (DecodeLineFormatter,
// DecodeJSONFormatter), kept as the reference DecodeFormattersTests compares them with: a record's
// text line built from strings, its JSON through JSONEncoder.

/// The JSONL contract of `bletrace decode --format jsonl` (Formats/json.md), written through
/// JSONEncoder: the reference ``DecodeJSONFormatter``'s JSON is compared with.
struct JSONRecord: Encodable {
    struct HCI: Encodable {
        var address: String?
        var opcode: UInt16?
        var event: UInt8?
        var subevent: UInt8?
        var status: UInt8?
        var reason: UInt8?
        var handle: UInt16?
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
    var att: JSONATTFields?
    var smp: JSONSMPFields?
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
                fields.address = full.address.map { "\($0)".lowercased() }
            }
            hci = fields
        case .acl(let acl):
            hci = HCI(handle: acl.handle)
        default:
            break
        }
        if let pdu = decoded.att {
            att = JSONATTFields(
                pdu, answering: request.map { (opcode: $0.opcode, handle: $0.attributeHandle, record: $0.record) })
        }
        smp = decoded.smp.map(JSONSMPFields.init)
    }
}

/// One line for a person: index, time, direction, kind, then what the packet says.
func describe(_ record: CaptureRecord, _ decoded: DecodedRecord, answering request: ATTRequest?, origin: Timestamp)
    -> String
{
    var line = "\(record.index + 1)".leftPadded(6) + " " + Wording.sinceStart(record.timestamp, origin: origin)
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
            line +=
                "Disconnection Complete handle \(hex(handle, digits: 4)) reason \(reason) (\(hex(reason.rawValue, digits: 2)))"
            if status != .success { line += " status \(status)" }
        case .connectionComplete(let status, let handle, let address, _):
            line += "Connection Complete \(address) handle \(hex(handle, digits: 4)): \(status)"
        case .le(.connectionComplete(let complete)):
            line +=
                "\(complete.subevent) \(complete.peerAddress) handle \(hex(complete.handle, digits: 4)) role \(complete.role == 0 ? "central" : "peripheral"): \(complete.status)"
        case .le(.unknown(let subevent, _)):
            line += "\(subevent)"
            if subevent.rawValue == 0x12 { line += eventFieldsText(record.bytes) ?? "" }
        case .unknown(let code, _):
            line += "\(code)" + (eventFieldsText(record.bytes) ?? "")
        }
    case .acl(let acl):
        line += "handle \(hex(acl.handle, digits: 4))"
        if acl.handle == ACLPacket.androidDebugHandle {
            line += " (Android debug data)"
        } else if let att = decoded.att {
            line += " ATT " + describe(att, answering: request)
            if let request, att.opcode != .errorResponse {
                line +=
                    " (answers \(request.opcode)"
                    + (request.attributeHandle.map { " of \(hex($0, digits: 4))" } ?? "")
                    + ", frame \(request.record + 1))"
            }
        } else if let smp = decoded.smp {
            line += " SMP " + describe(smp)
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
    if let fault = decoded.fault ?? decoded.lostFragments {
        line += "  [\(fault.layer): expected \(fault.expected) at byte \(fault.offset)]"
    }
    return line
}
