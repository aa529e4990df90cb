import Wire

/// The Linux kernel's Bluetooth monitor channel framing, shared by btsnoop datalink 2001 and pcap
/// link type 254: an adapter index and an opcode saying what the payload is.
enum LinuxMonitor {
    /// Sets kind, direction and controller from the monitor opcode. (``note(opcode:payload:)``
    /// reads the records that carry text, such as new index, system note and user logging.)
    static func classify(_ record: inout CaptureRecord, controller: UInt16, opcode: UInt16) {
        record.controllerIndex = controller
        record.sourceType = .linuxMonitor(opcode: opcode)
        switch opcode {
        case 2: (record.kind, record.direction) = (.command, .sent)
        case 3: (record.kind, record.direction) = (.event, .received)
        case 4: (record.kind, record.direction) = (.acl, .sent)
        case 5: (record.kind, record.direction) = (.acl, .received)
        case 6: (record.kind, record.direction) = (.sco, .sent)
        case 7: (record.kind, record.direction) = (.sco, .received)
        case 18: (record.kind, record.direction) = (.iso, .sent)
        case 19: (record.kind, record.direction) = (.iso, .received)
        default:
            record.kind = .other
            record.direction = nil
        }
    }

    static func note(opcode: UInt16, payload: UnsafeRawBufferPointer) -> String {
        switch opcode {
        case 0:
            // type, bus, address[6], name[8]
            guard payload.count >= 16 else { return "new index" }
            var reader = ByteReader(payload, layer: .btsnoop, offset: 2)
            let address = (try? reader.address("address")).map { "\($0)" } ?? "?"
            return "new index \(address) \(text(UnsafeRawBufferPointer(rebasing: payload[8..<16])))"
        case 1: return "delete index"
        case 8: return "open index"
        case 9: return "close index"
        case 10: return "index info"
        case 11: return "vendor diagnostic"
        case 12: return "system note: " + text(payload)
        case 13:
            // priority, ident length, ident (NUL-terminated), message
            guard payload.count >= 2 else { return "user logging" }
            let identLength = Int(payload[1])
            guard 2 + identLength <= payload.count else { return "user logging" }
            let ident = text(UnsafeRawBufferPointer(rebasing: payload[2..<2 + identLength]))
            let message = text(UnsafeRawBufferPointer(rebasing: payload[(2 + identLength)...]))
            return "\(ident): \(message)"
        case 14...17: return "control channel (opcode \(opcode))"
        default: return "monitor opcode \(opcode)"
        }
    }

    /// UTF-8 up to the first NUL, with line ends trimmed. A payload that is not text (binary
    /// records, such as PacketLogger's config) gives its printable runs of four or more
    /// characters, as `strings` would, joined by spaces.
    static func text(_ bytes: UnsafeRawBufferPointer) -> String {
        let cut = bytes.firstIndex(of: 0) ?? bytes.count
        let head = UnsafeRawBufferPointer(rebasing: bytes[0..<cut])
        let isText = head.allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if isText, cut == bytes.count || bytes[cut...].allSatisfy({ $0 == 0 }) {
            var result = String(decoding: head, as: UTF8.self)
            while let last = result.last, last.isNewline { result.removeLast() }
            return result
        }
        var runs: [String] = []
        var run: [UInt8] = []
        for byte in bytes {
            if (0x20..<0x7F).contains(byte) {
                run.append(byte)
                continue
            }
            if run.count >= 4 { runs.append(String(decoding: run, as: UTF8.self)) }
            run.removeAll(keepingCapacity: true)
        }
        if run.count >= 4 { runs.append(String(decoding: run, as: UTF8.self)) }
        return runs.joined(separator: " ")
    }
}
