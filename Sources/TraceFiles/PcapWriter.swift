import CPcap
import Glibc
import Wire

/// Writes pcap files through libpcap's dump API (`pcap_open_dead_with_tstamp_precision`,
/// `pcap_dump_open`, `pcap_dump`, `pcap_dump_flush`, `pcap_dump_close`), for link types 187, 201
/// and 254. libpcap writes the 24-byte header (magic `A1B2C3D4` in the host's byte order, so
/// little-endian here; version 2.4; snap length; link type) and buffers records through stdio
/// until ``flush()``.
///
/// Times are microseconds. pcap's seconds are 32 bits, unsigned by the format's definition and
/// signed to libpcap's reader, so only 1970-01-01 to 2038-01-19 reads back the same everywhere;
/// times outside it are written and reported (``timeLoss(_:)``).
final class PcapWriter {
    private let dead: OpaquePointer
    private var dumper: OpaquePointer?
    private let path: String
    private let linkType: Int32
    private let snapLength: UInt32
    private let target: String
    private var scratch: [UInt8] = []

    init(path: String, linkType: Int32, snapLength: UInt32) throws {
        self.path = path
        self.linkType = linkType
        self.snapLength = snapLength
        target = "pcap \(linkType)"
        guard
            let dead = pcap_open_dead_with_tstamp_precision(
                linkType, Int32(clamping: snapLength), UInt32(PCAP_TSTAMP_PRECISION_MICRO))
        else {
            throw CaptureWriter.Failure(path: path, reason: "libpcap could not make a handle for link type \(linkType)")
        }
        self.dead = dead
        // Every property is set from here, so a throw runs deinit, which closes `dead`.
        guard let dumper = pcap_dump_open(dead, path) else {
            throw CaptureWriter.Failure(path: path, reason: "libpcap: \(String(cString: pcap_geterr(dead)))")
        }
        self.dumper = dumper
    }

    deinit {
        if let dumper { pcap_dump_close(dumper) }
        pcap_close(dead)
    }

    func write(_ record: CaptureRecord, losses: inout [CaptureWriter.Loss]) throws -> Bool {
        guard let dumper else { throw CaptureWriter.Failure(path: path, reason: "the writer is closed") }
        guard
            let original = PcapFraming.frame(
                record, linkType: linkType, target: target, into: &scratch, losses: &losses)
        else { return false }
        let captured = PcapFraming.clip(scratch.count, to: snapLength, target: target, losses: &losses)
        var (seconds, micros) = RecordMapping.split(record.timestamp)
        if let loss = Self.timeLoss(seconds) {
            losses.append(loss)
            if seconds < Int64(Int32.min) { (seconds, micros) = (Int64(Int32.min), 0) }
            if seconds > Int64(UInt32.max) { (seconds, micros) = (Int64(UInt32.max), 999_999) }
        }
        var header = pcap_pkthdr()
        header.ts.tv_sec = Int(seconds)
        header.ts.tv_usec = Int(micros)
        header.caplen = UInt32(captured)
        header.len = UInt32(clamping: original)
        scratch.withUnsafeBufferPointer { bytes in
            pcap_dump(UnsafeMutablePointer<UInt8>(dumper), &header, bytes.baseAddress)
        }
        return true
    }

    /// pcap seconds are 32 bits: unsigned in the format's definition (and to Wireshark), signed
    /// to libpcap's reader. Readers agree on 1970-01-01 to 2038-01-19 only; outside it the 32 bits
    /// are written as libpcap's signed or the format's unsigned reading needs, and reported.
    static func timeLoss(_ seconds: Int64) -> CaptureWriter.Loss? {
        switch seconds {
        case 0...Int64(Int32.max): nil
        case Int64(Int32.min)..<0:
            .init(
                .timestamp,
                "before 1970, where pcap's seconds are unsigned: libpcap (so bletrace) reads it back, Wireshark shows a time after 2106 (pcapng holds it)"
            )
        case Int64(Int32.max)...Int64(UInt32.max):
            .init(
                .timestamp,
                "after 2038-01-19, which libpcap (so bletrace) reads back as before 1970 (Wireshark reads it right; pcapng holds it)"
            )
        default:
            .init(.timestamp, "outside 1901 to 2106, the most pcap's 32-bit seconds can say; written as the nearest")
        }
    }

    func flush() throws {
        guard let dumper else { return }
        guard pcap_dump_flush(dumper) == 0 else {
            throw CaptureWriter.Failure(path: path, reason: String(cString: strerror(errno)))
        }
    }

    func close() throws {
        guard let open = dumper else { return }
        // pcap_dump_close reports nothing, so flush first to learn of a failed write.
        let flushed = pcap_dump_flush(open) == 0
        let reason = flushed ? "" : String(cString: strerror(errno))
        pcap_dump_close(open)
        dumper = nil
        guard flushed else { throw CaptureWriter.Failure(path: path, reason: reason) }
    }
}

/// A record as a pcap or pcapng packet of link type 187, 201 or 254: the link-layer header
/// (big-endian, as libpcap's `pcap/bluetooth.h` defines it) and the payload; of an over-the-air
/// link type (251, 256, 272, for `bletrace redact`), the record's bytes as they were read.
enum PcapFraming {
    /// Frames `record` into `packet` (cleared first) and returns its original length, or nil
    /// when the link type has no place for the record.
    static func frame(
        _ record: CaptureRecord, linkType: Int32, target: String, into packet: inout [UInt8],
        losses: inout [CaptureWriter.Loss]
    ) -> Int? {
        packet.removeAll(keepingCapacity: true)
        var payload = RecordMapping.Payload.record
        switch linkType {
        case 251, 256, 272:
            // An over-the-air packet is written as it was read: sniffer pseudo-header and packet.
            guard record.kind == .other, record.sourceType == nil, record.unclassified == nil else {
                losses.append(
                    .init(
                        .record, "an HCI packet or a note, which an over-the-air capture (\(target)) has no place for"))
                return nil
            }
        case 254:
            guard let monitor = RecordMapping.monitor(record, target: target, losses: &losses) else { return nil }
            append(UInt32(monitor.controller) << 16 | UInt32(monitor.opcode), to: &packet)
            payload = monitor.payload
        default:
            let recordsDirection = linkType == 201
            guard
                let h4 = RecordMapping.h4(record, target: target, recordsDirection: recordsDirection, losses: &losses)
            else { return nil }
            if recordsDirection, let direction = h4.direction {
                let word: UInt32 = direction == .received ? 1 : 0
                // An unrecognised packet read from a 201 file kept its direction word.
                if h4.indicator != nil || !startsWithDirectionWord(record.bytes, word) {
                    append(word, to: &packet)
                }
            }
            if let indicator = h4.indicator { packet.append(indicator) }
        }
        let header = packet.count
        payload.withBytes(of: record) { packet.append(contentsOf: $0) }
        if case .made = payload { return packet.count }
        return header + record.originalLength
    }

    private static func startsWithDirectionWord(_ bytes: UnsafeRawBufferPointer, _ word: UInt32) -> Bool {
        bytes.count >= 4 && bytes[0] == 0 && bytes[1] == 0 && bytes[2] == 0 && UInt32(bytes[3]) & 1 == word
    }

    private static func append(_ value: UInt32, to packet: inout [UInt8]) {
        for shift in [24, 16, 8, 0] as [UInt32] { packet.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// The bytes to write of a packet of `count`: all of them, or the snap length, reported.
    static func clip(_ count: Int, to snapLength: UInt32, target: String, losses: inout [CaptureWriter.Loss]) -> Int {
        guard count > Int(snapLength) else { return count }
        losses.append(
            .init(.length, "longer than the \(target) file's snap length; cut to it, with the original length kept"))
        return Int(snapLength)
    }
}
