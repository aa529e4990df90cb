import ArgumentParser
import BLETrace

/// One `--filter` of `bletrace decode`; several are all required (AND).
///
/// `command`, `event`, `acl`, `sco`, `iso`, `other`: the record's kind. `l2cap`, `att`, `smp`:
/// records that completed a frame of that layer. `handle=N`: a connection handle. `att=N`: an
/// ATT opcode. `command=N`: an HCI command opcode (also matches the Command Complete and Command
/// Status answering it). `event=N`: an HCI event code. `error`: records that carry a failure (an
/// ATT Error Response, SMP Pairing Failed, a failing HCI status, a Disconnection Complete).
/// Numbers are decimal or 0x-hex.
enum RecordFilter: ExpressibleByArgument, Equatable {
    case kind(PacketKind)
    case l2cap, att, smp, error
    case handle(UInt16)
    case attOpcode(UInt8)
    case commandOpcode(UInt16)
    case eventCode(UInt8)

    init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        if parts.count == 1 {
            switch argument {
            case "l2cap": self = .l2cap
            case "att": self = .att
            case "smp": self = .smp
            case "error": self = .error
            default:
                guard let kind = PacketKind.allCases.first(where: { "\($0)" == argument }) else { return nil }
                self = .kind(kind)
            }
            return
        }
        let text = parts[1].lowercased()
        let value = text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
        guard let value, value >= 0 else { return nil }
        switch parts[0] {
        case "handle" where value <= 0x0FFF: self = .handle(UInt16(value))
        case "att" where value <= 0xFF: self = .attOpcode(UInt8(value))
        case "command" where value <= 0xFFFF: self = .commandOpcode(UInt16(value))
        case "event" where value <= 0xFF: self = .eventCode(UInt8(value))
        default: return nil
        }
    }

    static var defaultCompletionKind: CompletionKind { .list(["command", "event", "acl", "l2cap", "att", "smp", "error"]) }

    func matches(_ record: CaptureRecord, _ decoded: DecodedRecord) -> Bool {
        switch self {
        case .kind(let kind): return record.kind == kind
        case .l2cap: return decoded.l2cap != nil
        case .att: return decoded.att != nil
        case .smp: return decoded.smp != nil
        case .handle(let handle): return decoded.handle == handle
        case .attOpcode(let opcode): return decoded.att?.opcode.rawValue == opcode
        case .commandOpcode(let opcode):
            switch decoded.packet {
            case .command(let command): return command.opcode.rawValue == opcode
            case .event(.commandComplete(_, let answered, _)), .event(.commandStatus(_, _, let answered)):
                return answered.rawValue == opcode
            default: return false
            }
        case .eventCode(let code):
            if case .event(let event) = decoded.packet { return event.code.rawValue == code }
            return false
        case .error:
            if case .errorResponse? = decoded.att { return true }
            if decoded.smp?.pairingFailedReason != nil { return true }
            if case .event(let event) = decoded.packet {
                if case .disconnectionComplete = event { return true }
                if let status = event.status, status != .success { return true }
            }
            return false
        }
    }
}
