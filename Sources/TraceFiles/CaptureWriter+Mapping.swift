import Wire

/// How a record is framed in each family of target, and what of it each cannot hold: shared by
/// the four writers so that btsnoop and pcap make the same choices for the same framing.
///
/// - H4 targets (btsnoop 1002, pcap 187 and 201): HCI packets behind their H4 indicator; an
///   unrecognised packet (kind `other`, no ``CaptureRecord/sourceType``) is written verbatim, as
///   the H4 readers kept it; notes and logs have no place.
/// - Linux monitor targets (btsnoop 2001, pcap 254): HCI packets by opcode; monitor records keep
///   their opcode; PacketLogger notes become system notes (opcode 12) and its other non-HCI
///   records user logging (opcode 13) with the ident `PacketLogger <label>`, which the
///   PacketLogger writer turns back into the original type. Monitor text gets the NUL that btmon
///   expects after it.
/// - PacketLogger: HCI packets by type; PacketLogger records keep their type; monitor system notes
///   become notes (0xFC, without the NUL) and other user logging becomes syslog (0xF7) text.
enum RecordMapping {
    typealias Loss = CaptureWriter.Loss

    /// A record's payload as the target writes it: the record's own bytes, or bytes made for
    /// the target (a note carried between PacketLogger and the Linux monitor).
    enum Payload {
        case record
        case made([UInt8])

        func withBytes<T>(of record: CaptureRecord, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
            switch self {
            case .record: try body(record.bytes)
            case .made(let bytes): try bytes.withUnsafeBytes(body)
            }
        }
    }

    // MARK: Direction and controller

    /// The controller index a Linux monitor writer gives a record that has none, and the index a
    /// format without indexes implies: 0 for HCI packets, 0xFFFF ("no controller", as btmon
    /// writes notes and logs) for the rest.
    static func impliedController(_ kind: PacketKind) -> UInt16 { kind == .other ? 0xFFFF : 0 }

    static func checkController(_ record: CaptureRecord, target: String, losses: inout [Loss]) {
        if let index = record.controllerIndex, index != impliedController(record.kind) {
            losses.append(
                Loss(.controllerIndex, "\(target) has none (only controller 0, and 0xFFFF for notes, is implied)"))
        }
    }

    /// The direction to write where the target records one for every packet: the record's,
    /// else the one its kind implies (commands sent, events received), else sent, reported.
    static func direction(_ record: CaptureRecord, losses: inout [Loss]) -> Direction {
        if let direction = record.direction { return direction }
        switch record.kind {
        case .command: return .sent
        case .event: return .received
        default:
            losses.append(
                Loss(.direction, "unknown in the source (as for ACL, SCO and ISO in pcap 187); written as sent"))
            return .sent
        }
    }

    /// Reports a command that was received or an event that was sent, where the target's record
    /// type fixes the direction of commands and events.
    static func checkFixedDirection(_ record: CaptureRecord, target: String, losses: inout [Loss]) {
        switch (record.kind, record.direction) {
        case (.command, .received?):
            losses.append(
                Loss(.direction, "\(target) holds commands only as sent; a received command was written as sent"))
        case (.event, .sent?):
            losses.append(
                Loss(.direction, "\(target) holds events only as received; a sent event was written as received"))
        default:
            break
        }
    }

    // MARK: H4 targets

    /// The H4 framing of a record: its indicator (nil for an unrecognised packet written
    /// verbatim) and the direction to record (nil where the target records none). Nil when the
    /// target has no place for the record.
    static func h4(
        _ record: CaptureRecord, target: String, recordsDirection: Bool, losses: inout [Loss]
    ) -> (indicator: UInt8?, direction: Direction?)? {
        var indicator: UInt8?
        if record.kind == .other {
            if let type = record.sourceType {
                losses.append(
                    Loss(
                        .record,
                        "\(describe(type)); \(target) holds only HCI packets (btsnoop 2001 or pcap 254 would carry it)")
                )
                return nil
            }
        } else {
            indicator = record.kind.rawValue
        }
        checkController(record, target: target, losses: &losses)
        if recordsDirection { return (indicator, direction(record, losses: &losses)) }
        if record.kind == .command || record.kind == .event {
            checkFixedDirection(record, target: target, losses: &losses)
        } else if record.direction != nil {
            losses.append(Loss(.direction, "\(target) records none for ACL, SCO, ISO and unrecognised packets"))
        }
        return (indicator, nil)
    }

    // MARK: Linux monitor targets

    /// The Linux monitor framing of a record, or nil when the monitor has no opcode for it.
    static func monitor(
        _ record: CaptureRecord, target: String, losses: inout [Loss]
    ) -> (opcode: UInt16, controller: UInt16, payload: Payload)? {
        let controller = record.controllerIndex ?? impliedController(record.kind)
        let opcode: UInt16
        switch record.kind {
        case .command, .event:
            checkFixedDirection(record, target: target, losses: &losses)
            opcode = record.kind == .command ? 2 : 3
        case .acl, .sco, .iso:
            let received = direction(record, losses: &losses) == .received
            switch record.kind {
            case .acl: opcode = received ? 5 : 4
            case .sco: opcode = received ? 7 : 6
            default: opcode = received ? 19 : 18
            }
        case .other:
            switch record.sourceType {
            case .linuxMonitor(let code)?:
                return (code, controller, .record)
            case .packetLogger(0xFC)?:
                return (12, controller, .made(Array(record.bytes) + [0]))
            case .packetLogger(let type)?:
                return (13, controller, .made(userLogging(packetLoggerType: type, message: record.bytes)))
            case nil:
                losses.append(
                    Loss(.record, "an unrecognised packet (no HCI packet type); \(target) has no opcode for it"))
                return nil
            }
        }
        return (opcode, controller, .record)
    }

    /// A Linux monitor user-logging payload (priority, ident length, ident with its NUL, message
    /// with its NUL) carrying a PacketLogger record: the ident says the type, the message is its
    /// payload. btmon prints monitor text up to a NUL, so one is added (and removed on the way
    /// back).
    static func userLogging(packetLoggerType type: UInt8, message: UnsafeRawBufferPointer) -> [UInt8] {
        let ident = Array(packetLoggerIdent(type).utf8) + [0]
        return [priority(packetLoggerType: type), UInt8(ident.count)] + ident + Array(message) + [0]
    }

    /// syslog levels: error 3, debug 7, info 6.
    static func priority(packetLoggerType type: UInt8) -> UInt8 {
        switch type {
        case 0xFA: 3
        case 0xF9: 7
        default: 6
        }
    }

    static func packetLoggerIdent(_ type: UInt8) -> String {
        "PacketLogger " + (packetLoggerLabel(type) ?? "type 0x" + hex2(type))
    }

    // MARK: PacketLogger

    /// The PacketLogger framing of a record, or nil when PacketLogger has no type for it.
    static func packetLogger(_ record: CaptureRecord, losses: inout [Loss]) -> (type: UInt8, payload: Payload)? {
        let target = "PacketLogger"
        guard let framing = packetLoggerType(record, target: target, losses: &losses) else { return nil }
        checkController(record, target: target, losses: &losses)
        return framing
    }

    private static func packetLoggerType(_ record: CaptureRecord, target: String, losses: inout [Loss]) -> (
        type: UInt8, payload: Payload
    )? {
        switch record.kind {
        case .command, .event:
            checkFixedDirection(record, target: target, losses: &losses)
            return (record.kind == .command ? 0x00 : 0x01, .record)
        case .acl, .sco, .iso:
            let received: UInt8 = direction(record, losses: &losses) == .received ? 1 : 0
            let base: UInt8 = record.kind == .acl ? 0x02 : record.kind == .sco ? 0x08 : 0x12
            return (base | received, .record)
        case .other:
            break
        }
        switch record.sourceType {
        case .packetLogger(let type)?:
            return (type, .record)
        case .linuxMonitor(12)?:
            // The monitor's text ends with a NUL that PacketLogger notes do not have.
            return (0xFC, .made(Array(record.bytes.last == 0 ? record.bytes.dropLast() : record.bytes[...])))
        case .linuxMonitor(13)?:
            return fromUserLogging(record.bytes, losses: &losses)
        case .linuxMonitor(let opcode)?:
            losses.append(
                Loss(.record, "\(describe(.linuxMonitor(opcode: opcode))); \(target) has no record type for it"))
            return nil
        case nil:
            losses.append(
                Loss(.record, "an unrecognised packet (no HCI packet type); \(target) has no record type for it"))
            return nil
        }
    }

    /// A user-logging record as PacketLogger: the original type when it carries one (ident
    /// `PacketLogger <label>`), else syslog text `ident: message`, reported (the priority is lost).
    static func fromUserLogging(_ payload: UnsafeRawBufferPointer, losses: inout [Loss]) -> (
        type: UInt8, payload: Payload
    ) {
        let lost = Loss(
            .detail,
            "Linux monitor user logging is written as PacketLogger syslog text \"ident: message\", without its priority"
        )
        guard payload.count >= 2, 2 + Int(payload[1]) <= payload.count else {
            losses.append(lost)
            return (0xF7, .record)
        }
        let identEnd = 2 + Int(payload[1])
        let identBytes = payload[2..<identEnd].prefix { $0 != 0 }
        let ident = String(decoding: identBytes, as: UTF8.self)
        var message = Array(payload[identEnd...])
        if let type = packetLoggerType(ident: ident) {
            if message.last == 0 { message.removeLast() }
            if payload[0] != priority(packetLoggerType: type) {
                losses.append(Loss(.detail, "a user-logging priority that PacketLogger has no field for"))
            }
            return (type, .made(message))
        }
        losses.append(lost)
        var text = Array(identBytes) + Array(": ".utf8) + message
        while text.last == 0 { text.removeLast() }
        return (0xF7, .made(text))
    }

    /// The PacketLogger type an ident made by ``packetLoggerIdent(_:)`` names.
    static func packetLoggerType(ident: String) -> UInt8? {
        guard ident.hasPrefix("PacketLogger ") else { return nil }
        let label = ident.dropFirst("PacketLogger ".count)
        if label.hasPrefix("type 0x") { return UInt8(label.dropFirst("type 0x".count), radix: 16) }
        return (0xF7...0xFE).first { packetLoggerLabel(UInt8($0)) == String(label) }.map { UInt8($0) }
    }

    // MARK: Names

    /// The non-HCI PacketLogger types, as the reader names them (Formats/pklg.md).
    static func packetLoggerLabel(_ type: UInt8) -> String? {
        switch type {
        case 0xF7: "syslog"
        case 0xF8: "kernel"
        case 0xF9: "kernel debug"
        case 0xFA: "error"
        case 0xFB: "power"
        case 0xFC: "note"
        case 0xFD: "config"
        case 0xFE: "new controller"
        default: nil
        }
    }

    static func monitorName(_ opcode: UInt16) -> String? {
        switch opcode {
        case 0: "new index"
        case 1: "delete index"
        case 8: "open index"
        case 9: "close index"
        case 10: "index info"
        case 11: "vendor diagnostic"
        case 12: "system note"
        case 13: "user logging"
        case 14: "control open"
        case 15: "control close"
        case 16: "control command"
        case 17: "control event"
        default: nil
        }
    }

    /// A non-HCI record, for messages: `a PacketLogger note record (type 0xfc)`.
    static func describe(_ type: CaptureRecord.SourceType) -> String {
        switch type {
        case .packetLogger(let code):
            "a PacketLogger " + (packetLoggerLabel(code).map { $0 + " " } ?? "") + "record (type 0x\(hex2(code)))"
        case .linuxMonitor(let opcode):
            "a Linux monitor " + (monitorName(opcode).map { $0 + " " } ?? "") + "record (opcode \(opcode))"
        }
    }

    static func hex2(_ value: UInt8) -> String { hex(value, digits: 2, prefixed: false) }

    // MARK: Times

    /// Splits Unix microseconds into seconds and microseconds 0-999,999 (floored, so times
    /// before 1970 keep a non-negative fraction).
    static func split(_ timestamp: Timestamp) -> (seconds: Int64, microseconds: Int64) {
        var (seconds, micros) = timestamp.microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        if micros < 0 {
            seconds -= 1
            micros += 1_000_000
        }
        return (seconds, micros)
    }
}
