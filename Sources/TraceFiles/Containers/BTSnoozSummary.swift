import Foundation
import Wire

/// The btsnooz summary an Android bug report carries when no snoop log file is kept: the last
/// packets of the Bluetooth stack's in-memory ring buffer, written by `dumpsys` between the
/// lines `--- BEGIN:BTSNOOP_LOG_SUMMARY (N bytes in) ---` and `--- END:BTSNOOP_LOG_SUMMARY ---`
/// (AOSP system/bt, btif/src/btif_debug_btsnoop.cc; its decoder tools/scripts/btsnooz.py).
///
/// Layout (Formats/containers.md): base64 text, in lines of 128 characters, of a 9-byte preamble
/// (version, 1 or 2; the last packet's time, µs since 1970, 64-bit little-endian) followed by a
/// zlib stream of records. A record is a little-endian header, then its bytes less the H4 type:
/// version 1 `length u16, delta µs u32, type u8`; version 2 `length u16, packet length u16,
/// delta µs u32, type u8`. `length` counts the type byte and the bytes kept (Android keeps 14
/// bytes of ACL data but the whole of signalling packets), `packet length` the packet's whole
/// size plus the type byte; `delta` is the time since the previous packet.
enum BTSnoozSummary {
    static let begin = Array("--- BEGIN:BTSNOOP_LOG_SUMMARY".utf8)
    static let end = Array("--- END:BTSNOOP_LOG_SUMMARY".utf8)

    /// The packet types of btsnooz (the stack's event codes shifted right by 8): direction and
    /// H4 kind.
    static func kind(of type: UInt8) -> (PacketKind, Direction)? {
        switch type {
        case 0x10: (.event, .received)
        case 0x11: (.acl, .received)
        case 0x12: (.sco, .received)
        case 0x17: (.iso, .received)
        case 0x20: (.command, .sent)
        case 0x21: (.acl, .sent)
        case 0x22: (.sco, .sent)
        case 0x2D: (.iso, .sent)
        default: nil
        }
    }

    /// Decodes the section's base64 `text` (whitespace allowed) and writes its packets to a
    /// btsnoop file (datalink 1002) at `path`; returns the record count. `name` is what errors
    /// name (the report and its section).
    static func decode(text: [UInt8], to path: String, name: String, container: String, limit: Int64) throws -> Int {
        let compact = text.filter { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        guard let data = Data(base64Encoded: Data(compact)) else {
            throw ContainerError(
                container: container, member: name,
                expected: "base64 text between the BTSNOOP_LOG_SUMMARY lines; it is not valid base64")
        }
        let snooz = [UInt8](data)
        guard snooz.count >= 9 else {
            throw ContainerError(
                container: container, member: name, offset: 0,
                expected: "a 9-byte btsnooz preamble (version, last timestamp); the summary holds \(snooz.count) bytes")
        }
        let version = snooz[0]
        guard version == 1 || version == 2 else {
            throw ContainerError(
                container: container, member: name, offset: 0, expected: "btsnooz version 1 or 2; found \(version)")
        }
        var last: UInt64 = 0
        for index in (1...8).reversed() { last = last << 8 | UInt64(snooz[index]) }

        // The packets, inflated in memory under the member limit (a real summary is 256 KiB).
        var packets: [UInt8] = []
        let inflater = try Inflater()
        do {
            try snooz.withUnsafeBytes { raw in
                try inflater.feed(UnsafeRawBufferPointer(rebasing: raw[9...])) { piece in
                    guard Int64(packets.count + piece.count) <= limit else {
                        throw ContainerError(
                            container: container, member: name,
                            expected:
                                "a btsnooz summary of at most \(limit) bytes once inflated; it is larger (raise BLETRACE_MAX_MEMBER_BYTES to read it)"
                        )
                    }
                    packets += piece
                }
            }
            try inflater.finish()
        } catch let fault as InflateFault {
            throw ContainerError(
                container: container, member: name, offset: 9 + fault.offset,
                expected: fault.reason + " (offset in the decoded summary)")
        }

        // First pass: the records' bounds, and the first packet's time (the last one's less
        // every delta).
        let headerSize = version == 1 ? 7 : 9
        var bounds: [(offset: Int, delta: UInt32)] = []
        var offset = 0
        var total: UInt64 = 0
        while offset < packets.count {
            guard offset + headerSize <= packets.count else {
                throw ContainerError(
                    container: container, member: name, offset: Int64(offset),
                    expected:
                        "a \(headerSize)-byte btsnooz record header (offset in the inflated records); \(packets.count - offset) bytes are left"
                )
            }
            let length = Int(packets[offset]) | Int(packets[offset + 1]) << 8
            let deltaAt = offset + (version == 1 ? 2 : 4)
            let delta = (0..<4).reduce(UInt32(0)) { $0 | UInt32(packets[deltaAt + $1]) << (8 * $1) }
            let type = packets[offset + headerSize - 1]
            guard length >= 1, offset + headerSize + length - 1 <= packets.count else {
                throw ContainerError(
                    container: container, member: name, offset: Int64(offset),
                    expected:
                        "a btsnooz record whose length (\(length), with its type byte) fits the \(packets.count - offset - headerSize) bytes left (offset in the inflated records)"
                )
            }
            guard kind(of: type) != nil else {
                throw ContainerError(
                    container: container, member: name, offset: Int64(offset),
                    expected:
                        "a btsnooz packet type (0x10-0x12, 0x17, 0x20-0x22, 0x2D); found \(hex(type, digits: 1)) (offset in the inflated records)"
                )
            }
            bounds.append((offset, delta))
            total &+= UInt64(delta)
            offset += headerSize + length - 1
        }

        let writer = try CaptureWriter(path: path, format: .btsnoop(datalink: 1002))
        var time = Int64(bitPattern: last &- total)
        try packets.withUnsafeBytes { raw in
            for (index, record) in bounds.enumerated() {
                let length = Int(raw[record.offset]) | Int(raw[record.offset + 1]) << 8
                let packetLength =
                    version == 1 ? length : Int(raw[record.offset + 2]) | Int(raw[record.offset + 3]) << 8
                let (kind, direction) = kind(of: raw[record.offset + headerSize - 1])!
                time += Int64(record.delta)
                let start = record.offset + headerSize
                let bytes = UnsafeRawBufferPointer(rebasing: raw[start..<start + length - 1])
                let captured = CaptureRecord(
                    index: index, fileOffset: Int64(record.offset), timestamp: Timestamp(microseconds: time),
                    direction: direction, kind: kind, originalLength: max(packetLength - 1, length - 1), bytes: bytes)
                _ = try writer.write(captured)
            }
        }
        try writer.close()
        return bounds.count
    }
}
