import CPcap
import Wire

/// Reads pcap and pcapng files through libpcap, for the Bluetooth HCI link types and, when asked
/// for, the over-the-air link-layer sniffer types.
///
/// Link types: 187 (H4, no direction: commands count as sent and events as received), 201 (H4
/// after a 4-byte big-endian direction word), 254 (Linux monitor: adapter index and opcode, both
/// big-endian u16). The sniffer types 251, 256 and 272 are read only when the caller opens the
/// file with `linkLayer: true` (its records are then of kind `.other`, their bytes the whole
/// packet, pseudo-header included, for the `LinkLayer` module to decode); otherwise they are
/// refused by name.
final class PcapReader {
    private let handle: OpaquePointer
    private let path: String
    let linkType: Int32
    private var index = 0

    static let readable: Set<Int32> = [187, 201, 254]
    static let linkLayerSniffer: Set<Int32> = [251, 256, 272]

    init(path: String, linkLayer: Bool = false) throws {
        var message = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard
            let handle = pcap_open_offline_with_tstamp_precision(
                path, UInt32(PCAP_TSTAMP_PRECISION_MICRO), &message)
        else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw DecodeError(
                layer: .pcap, offset: 0, expected: "a pcap or pcapng file libpcap can open (libpcap: \(text))",
                file: path)
        }
        self.handle = handle
        self.path = path
        linkType = pcap_datalink(handle)
        // Throwing from here still runs deinit (every property is set), which closes the handle.
        try Self.requireReadable(linkType: linkType, source: path, linkLayer: linkLayer)
    }

    /// Refuses the link types bletrace does not read, naming them; shared with live capture.
    /// `linkLayer`: the caller decodes the over-the-air sniffer types (251, 256, 272).
    static func requireReadable(linkType: Int32, source path: String, linkLayer: Bool = false) throws(CaptureError) {
        guard Self.readable.contains(linkType) else {
            if Self.linkLayerSniffer.contains(linkType) {
                if linkLayer { return }
                throw CaptureError.unsupported(
                    path: path,
                    reason:
                        "link type \(linkType) (\(PcapLinkType(linkType))) is an over-the-air link-layer sniffer capture, not an HCI trace: `bletrace info` and `bletrace decode` read it, this command does not yet (it reads the HCI link types 187, 201 and 254)"
                )
            }
            throw CaptureError.unsupported(
                path: path,
                reason:
                    "link type \(linkType)\(PcapLinkType(linkType) == "unknown" ? "" : " (\(PcapLinkType(linkType)))") is not a Bluetooth HCI link type; bletrace reads 187, 201 and 254"
            )
        }
    }

    deinit { pcap_close(handle) }

    func next() throws -> CaptureRecord? {
        let offset = Int64(ftell(pcap_file(handle)))
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let result = pcap_next_ex(handle, &header, &data)
        if result == PCAP_ERROR_BREAK { return nil }
        guard result == 1, let header, let data else {
            let text = String(cString: pcap_geterr(handle))
            throw DecodeError(
                layer: .pcap, offset: Int(offset), expected: "a complete packet record (libpcap: \(text))",
                recordIndex: index, file: path)
        }
        let record = try Self.decode(
            header: header.pointee, data: data, linkType: linkType, index: index, offset: offset,
            source: path)
        index += 1
        return record
    }

    /// One packet as libpcap hands it over (header and captured bytes) as a record, for the
    /// link types 187, 201 and 254. Shared by files and live capture (``LiveSource``), so both
    /// classify packets the same way. `offset` is where the packet's record starts in its
    /// source; `source` names the file or device in errors.
    static func decode(
        header: pcap_pkthdr, data: UnsafePointer<UInt8>, linkType: Int32, index: Int, offset: Int64,
        source path: String
    ) throws -> CaptureRecord {
        let captured = UnsafeRawBufferPointer(start: data, count: Int(header.caplen))
        // libpcap hands pcapng's 64-bit stamps over as seconds that may not fit in microseconds:
        // such a time is read as the nearest a Timestamp holds (Formats/pcap.md).
        let time = Timestamp(seconds: Int64(header.ts.tv_sec), microseconds: Int64(header.ts.tv_usec))
        var record = CaptureRecord(
            index: index, fileOffset: offset, timestamp: time,
            direction: nil, kind: .other, originalLength: Int(header.len), bytes: captured)
        let fault = { (at: Int, expected: String) in
            DecodeError(layer: .pcap, offset: Int(offset) + at, expected: expected, recordIndex: index, file: path)
        }
        var reader = ByteReader(captured, layer: .pcap)
        switch linkType {
        case 251, 256, 272:
            // An over-the-air packet: the link-layer decoder reads it whole.
            break
        case 254:
            guard captured.count >= 4 else {
                throw fault(0, "a 4-byte Linux monitor header (adapter index, opcode), not \(captured.count) bytes")
            }
            let adapter = try reader.u16be("Linux monitor adapter index")
            let opcode = try reader.u16be("Linux monitor opcode")
            record.bytes = reader.rest()
            LinuxMonitor.classify(&record, controller: adapter, opcode: opcode)
        default:
            if linkType == 201 {
                guard captured.count >= 4 else { throw fault(0, "a 4-byte direction word") }
                record.direction = (try reader.u32be("direction")) & 1 == 0 ? .sent : .received
            }
            guard !reader.isAtEnd, let kind = PacketKind(rawValue: try reader.u8("H4 packet type")),
                kind != .other
            else {
                record.unclassified = .notH4
                break
            }
            record.kind = kind
            record.bytes = reader.rest()
            if record.direction == nil {
                record.direction = kind == .command ? .sent : kind == .event ? .received : nil
            }
        }
        record.originalLength -= captured.count - record.bytes.count
        return record
    }
}
