import Wire

/// Writes Apple PacketLogger (`.pklg`) files: no file header; each record a u32 length (9 +
/// payload), u32 seconds, u32 microseconds, u8 type, then the payload (HCI packets without an H4
/// indicator). Little-endian (newer files) by default, big-endian (older files) on request.
///
/// Types come from kind and direction (0x00 command, 0x01 event, 0x02/0x03 ACL sent/received,
/// 0x08/0x09 SCO, 0x12/0x13 ISO); a record read from a PacketLogger file keeps its raw type
/// (0xFC note, 0x0A, …). PacketLogger has no original length and no controller index, and its
/// seconds are unsigned 32-bit (1970 to 2106): what falls outside is reported.
final class PacketLoggerWriter {
    let out: BufferedFileWriter
    let bigEndian: Bool

    init(path: String, bigEndian: Bool) throws {
        self.bigEndian = bigEndian
        out = try BufferedFileWriter(path: path)
    }

    func write(_ record: CaptureRecord, losses: inout [CaptureWriter.Loss]) throws -> Bool {
        guard let framing = RecordMapping.packetLogger(record, losses: &losses) else { return false }
        if record.isTruncated, case .record = framing.payload {
            losses.append(
                .init(
                    .length,
                    "PacketLogger keeps only the captured bytes, so a packet the capture cut short reads back as whole")
            )
        }
        var (seconds, micros) = RecordMapping.split(record.timestamp)
        if seconds < 0 || seconds > Int64(UInt32.max) {
            losses.append(
                .init(.timestamp, "PacketLogger holds times from 1970 to 2106; written as the nearest it can hold"))
            (seconds, micros) = seconds < 0 ? (0, 0) : (Int64(UInt32.max), 999_999)
        }
        try framing.payload.withBytes(of: record) { (bytes) in
            try out.integer(UInt32(9 + bytes.count), bigEndian: bigEndian)
            try out.integer(UInt32(seconds), bigEndian: bigEndian)
            try out.integer(UInt32(micros), bigEndian: bigEndian)
            try out.integer(framing.type, bigEndian: bigEndian)
            try out.bytes(bytes)
        }
        return true
    }
}
