#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import CBlueZ
import Glibc
import Wire

/// BlueZ's HCI monitor channel, read directly (what btmon does, and what libpcap's
/// `bluetooth-monitor` wraps): a raw `AF_BLUETOOTH`/`BTPROTO_HCI` socket bound to
/// `HCI_DEV_NONE` on `HCI_CHANNEL_MONITOR`. The kernel then copies every controller's traffic to
/// it, one ``LiveMonitorFrame`` per read, after announcing the controllers that exist (new-index
/// and index-info frames). `SO_TIMESTAMP` gives each frame the kernel's receive time.
///
/// Needs a kernel with Bluetooth and `CAP_NET_RAW`.
final class LiveMonitorChannel {
    let descriptor: Int32
    /// One frame: the 6-byte header and the longest payload its u16 length allows, and a byte
    /// more so that a longer datagram shows as truncated.
    private let frame: UnsafeMutableRawBufferPointer
    private let control: UnsafeMutableRawBufferPointer
    /// Bytes of frames read so far: the `fileOffset` of the next record.
    private var delivered: Int64 = 0

    /// Opens and binds the monitor channel.
    convenience init() throws(CaptureError) {
        let source = "hci-monitor"
        let descriptor = socket(
            AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            BTPROTO_HCI)
        guard descriptor >= 0 else {
            let code = errno
            throw Self.failure(source, "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)", code)
        }
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = UInt16(HCI_DEV_NONE)
        address.hci_channel = UInt16(HCI_CHANNEL_MONITOR)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_hci>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw Self.failure(source, "bind(HCI_DEV_NONE, HCI_CHANNEL_MONITOR)", code)
        }
        self.init(adopting: descriptor)
    }

    /// Reads monitor frames from an open datagram or seqpacket socket (the tests use an
    /// `AF_UNIX` `SOCK_SEQPACKET` pair). Takes ownership: the descriptor is closed with this
    /// object. Turns on `SO_TIMESTAMP`, where the socket has it.
    init(adopting descriptor: Int32) {
        self.descriptor = descriptor
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_TIMESTAMP, &on, socklen_t(MemoryLayout<Int32>.size))
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
        frame = .allocate(byteCount: LiveMonitorFrame.headerLength + 65_535 + 1, alignment: 16)
        control = .allocate(byteCount: 256, alignment: 16)
    }

    deinit {
        close(descriptor)
        frame.deallocate()
        control.deallocate()
    }

    /// One `recvmsg`: a record, nothing yet, or the end (the peer of a test socket closed; the
    /// kernel's channel never ends by itself).
    func read(index: Int, source: String) throws -> LiveSource.Read {
        var vector = iovec(iov_base: frame.baseAddress, iov_len: frame.count)
        var message = msghdr()
        let count = withUnsafeMutablePointer(to: &vector) { vector in
            message.msg_iov = vector
            message.msg_iovlen = 1
            message.msg_control = control.baseAddress
            message.msg_controllen = control.count
            return recvmsg(descriptor, &message, Int32(MSG_DONTWAIT))
        }
        if count < 0 {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return .nothing }
            throw Self.failure(source, "reading the monitor channel", code)
        }
        if count == 0 { return .end }
        let offset = delivered
        delivered += Int64(count)
        if message.msg_flags & Int32(MSG_TRUNC) != 0 {
            throw DecodeError(
                layer: .hci, offset: Int(offset),
                expected: "a monitor frame of at most \(frame.count - 1) bytes; a longer one was cut",
                recordIndex: index, file: source)
        }
        let bytes = UnsafeRawBufferPointer(rebasing: frame[0..<count])
        let parsed: LiveMonitorFrame
        do throws(DecodeError) {
            parsed = try LiveMonitorFrame(parsing: bytes, offset: Int(offset))
        } catch {
            var located = error
            located.recordIndex = index
            located.file = source
            throw located
        }
        let time = Self.timestamp(
            control: UnsafeRawBufferPointer(rebasing: control[0..<min(Int(message.msg_controllen), control.count)]))
        var record = CaptureRecord(
            index: index, fileOffset: offset, timestamp: time ?? LiveSource.now(), direction: nil, kind: .other,
            originalLength: parsed.payload.count, bytes: parsed.payload)
        LinuxMonitor.classify(&record, controller: parsed.controller, opcode: parsed.opcode)
        return .record(record)
    }

    /// The `SCM_TIMESTAMP` time (a `struct timeval`) among a message's control data, if any.
    /// Walks the `cmsghdr` list by hand, as Swift does not import the `CMSG_*` macros.
    static func timestamp(control: UnsafeRawBufferPointer) -> Timestamp? {
        let headerSize = MemoryLayout<cmsghdr>.size
        let align = MemoryLayout<Int>.size
        func aligned(_ n: Int) -> Int { (n + align - 1) & ~(align - 1) }
        var offset = 0
        while offset + headerSize <= control.count {
            let length = Int(control.loadUnaligned(fromByteOffset: offset, as: Int.self))
            let level = control.loadUnaligned(fromByteOffset: offset + MemoryLayout<Int>.size, as: Int32.self)
            let type = control.loadUnaligned(fromByteOffset: offset + MemoryLayout<Int>.size + 4, as: Int32.self)
            guard length >= headerSize, offset + length <= control.count else { return nil }
            let data = offset + aligned(headerSize)
            if level == SOL_SOCKET, type == SO_TIMESTAMP, data + MemoryLayout<timeval>.size <= offset + length {
                let time = control.loadUnaligned(fromByteOffset: data, as: timeval.self)
                return Timestamp(seconds: Int64(time.tv_sec), microseconds: Int64(time.tv_usec))
            }
            offset += aligned(length)
        }
        return nil
    }

    /// A failed system call on the monitor channel, in the system's words and ours.
    static func failure(_ source: String, _ call: String, _ code: Int32) -> CaptureError {
        var text = "\(source): opening BlueZ's HCI monitor channel failed: \(call): \(LiveSource.message(code))"
        if call.hasPrefix("reading") {
            text = "\(source): \(call) failed: \(LiveSource.message(code))"
        }
        if let meaning = LiveSource.explain(code) { text += "; \(meaning)" }
        return CaptureError.live(text)
    }
}
#endif
