#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import CPcap
import Glibc
import Wire

/// A libpcap capture handle that ``LiveSource`` reads: a live Bluetooth device
/// (`bluetooth-monitor`, `bluetoothN`), or a savefile opened through the same read path (for
/// tests; a savefile's end is the end of the stream).
///
/// Live handles are created with `pcap_create` and `pcap_activate`, put in non-blocking mode, and
/// polled through `pcap_get_selectable_fd`; packets become records through
/// ``PcapReader/decode(header:data:linkType:index:offset:source:)``, the same function the file
/// reader uses, so both classify link types 187, 201 and 254 alike.
final class LivePcapHandle {
    private let handle: OpaquePointer
    let name: String
    let linkType: Int32
    let descriptor: Int32
    /// Bytes of packets handed over so far: the `fileOffset` of the next record.
    private var delivered: Int64 = 0

    /// Opens and activates a live capture on `device`.
    init(device: String) throws(CaptureError) {
        var message = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let handle = pcap_create(device, &message) else {
            throw Self.cannotOpen(device, libpcap: Self.text(message))
        }
        _ = pcap_set_snaplen(handle, 262_144)
        _ = pcap_set_timeout(handle, 100)
        _ = pcap_set_immediate_mode(handle, 1)
        let status = pcap_activate(handle)
        if status < 0 {
            // PCAP_ERROR and PCAP_ERROR_PERM_DENIED etc. leave the reason in pcap_geterr; the
            // others are described by pcap_statustostr.
            var text = String(cString: pcap_geterr(handle))
            if text.isEmpty { text = String(cString: pcap_statustostr(status)) }
            pcap_close(handle)
            throw Self.cannotOpen(device, libpcap: text, status: status)
        }
        guard pcap_setnonblock(handle, 1, &message) == 0 else {
            let text = Self.text(message)
            pcap_close(handle)
            throw CaptureError.live("\(device): libpcap cannot make the capture non-blocking: \(text)")
        }
        let descriptor = pcap_get_selectable_fd(handle)
        guard descriptor >= 0 else {
            pcap_close(handle)
            throw CaptureError.live("\(device): libpcap gives no descriptor to wait on for this device")
        }
        let linkType = pcap_datalink(handle)
        do throws(CaptureError) {
            try PcapReader.requireReadable(linkType: linkType, source: device)
        } catch {
            pcap_close(handle)
            throw error
        }
        self.handle = handle
        self.descriptor = descriptor
        self.linkType = linkType
        name = device
    }

    /// Opens a savefile through the live read path. Records come out exactly as from a live
    /// device with the same link type; the file's end is the end of the stream.
    init(savefile path: String) throws(CaptureError) {
        var message = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard
            let handle = pcap_open_offline_with_tstamp_precision(
                path, UInt32(PCAP_TSTAMP_PRECISION_MICRO), &message)
        else {
            throw CaptureError.cannotOpen(path: path, reason: "libpcap: \(Self.text(message))")
        }
        let descriptor = pcap_get_selectable_fd(handle)
        let linkType = pcap_datalink(handle)
        do throws(CaptureError) {
            guard descriptor >= 0 else {
                throw CaptureError.live("\(path): libpcap gives no descriptor to wait on for this file")
            }
            try PcapReader.requireReadable(linkType: linkType, source: path)
        } catch {
            pcap_close(handle)
            throw error
        }
        self.handle = handle
        self.descriptor = descriptor
        self.linkType = linkType
        name = path
    }

    deinit { pcap_close(handle) }

    /// libpcap's error buffer as text.
    static func text(_ buffer: [CChar]) -> String {
        buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// One `pcap_next_ex`: a record, nothing yet (non-blocking, or a packet the filter dropped),
    /// or the end (a savefile's end; `pcap_breakloop`).
    func read(index: Int) throws -> LiveSource.Read {
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let result = pcap_next_ex(handle, &header, &data)
        switch result {
        case 1:
            guard let header, let data else { return .nothing }
            let record = try PcapReader.decode(
                header: header.pointee, data: data, linkType: linkType, index: index, offset: delivered,
                source: name)
            delivered += Int64(header.pointee.caplen)
            return .record(record)
        case 0:
            return .nothing
        case PCAP_ERROR_BREAK:
            return .end
        default:
            throw CaptureError.live("\(name): libpcap stopped capturing: \(String(cString: pcap_geterr(handle)))")
        }
    }

    /// The error for a device libpcap could not open: libpcap's own message, then what it means
    /// on this host.
    static func cannotOpen(_ device: String, libpcap text: String, status: Int32 = PCAP_ERROR) -> CaptureError {
        var message = "\(device): libpcap cannot capture from it: \(text)"
        var meaning: String?
        let isBluetooth = device.hasPrefix("bluetooth")
        if isBluetooth, let problem = LiveSource.bluetoothProblem() {
            meaning = problem
        } else if status == PCAP_ERROR_PERM_DENIED || text.contains("Operation not permitted")
            || text.contains("Permission denied")
        {
            meaning = LiveSource.explain(EPERM)
        } else if status == PCAP_ERROR_NO_SUCH_DEVICE || text.contains("No such device") {
            meaning =
                isBluetooth && device != "bluetooth-monitor"
                ? LiveSource.explain(ENODEV) : "libpcap knows no such device"
        }
        if let meaning { message += "; \(meaning)" }
        return CaptureError.live(message)
    }
}
#endif
