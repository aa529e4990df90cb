#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import CBlueZ
import Glibc
import Wire

/// An H4 byte stream read by ``LiveSource``: a TCP or Unix-domain connection to a virtual
/// controller, a pty, a serial port, a FIFO or a file. bletrace only reads; it never writes to the
/// stream.
///
/// Packets are cut by ``H4StreamDecoder``. Directions come from the packet type, since H4 itself
/// has none: commands are sent (host to controller), events received, and ACL, SCO and ISO data
/// take ``LiveSource/Options/h4DataDirection`` (received by default: the stream is what a
/// controller writes). Each packet's timestamp is the wall clock when the read that completed it
/// returned.
final class LiveH4Stream {
    let descriptor: Int32
    private let decoder = H4StreamDecoder()
    private let dataDirection: Direction
    /// The terminal settings to put back on close, for ttys bletrace switched to raw mode.
    private var savedTerminal: termios?
    /// When the last read returned: the completion time of the packets it completed.
    private var readTime = Timestamp(microseconds: 0)

    init(device: LiveDevice, options: LiveSource.Options) throws(CaptureError) {
        dataDirection = options.h4DataDirection
        (descriptor, savedTerminal) = try Self.open(device, writable: false, options: options)
    }

    /// Opens an H4 endpoint: connects to a TCP or Unix-domain server, or opens a device or file
    /// (a tty in raw mode, at the baud rate asked for). Returns the non-blocking descriptor and,
    /// for a tty, the settings to restore.
    static func open(_ device: LiveDevice, writable: Bool, options: LiveSource.Options) throws(CaptureError)
        -> (descriptor: Int32, savedTerminal: termios?)
    {
        switch device {
        case .tcp(let host, let port):
            return (
                try connectTCP(host: host, port: port, timeout: options.connectTimeout, source: device.description), nil
            )
        case .unix(let path):
            return (try connectUnix(path: path, timeout: options.connectTimeout, source: device.description), nil)
        case .serial(let path, let baud):
            let opened = Glibc.open(path, (writable ? O_RDWR : O_RDONLY) | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
            guard opened >= 0 else {
                throw CaptureError.live("\(device): cannot open it: \(LiveSource.message(errno))")
            }
            guard isatty(opened) == 1 else {
                if baud != nil {
                    close(opened)
                    throw CaptureError.live(
                        "\(device): a baud rate applies only to a serial device or pty, and this is not one")
                }
                return (opened, nil)
            }
            do {
                return (opened, try makeRaw(opened, baud: baud, source: device.description))
            } catch {
                close(opened)
                throw error
            }
        case .pcap, .monitorChannel, .relay:
            throw CaptureError.live("\(device): not an H4 stream endpoint")
        }
    }

    /// Reads from a descriptor already open (the tests' socket pairs); takes ownership.
    init(adopting descriptor: Int32, dataDirection: Direction = .received) {
        self.descriptor = descriptor
        self.dataDirection = dataDirection
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }

    deinit {
        if var savedTerminal { tcsetattr(descriptor, TCSANOW, &savedTerminal) }
        close(descriptor)
    }

    var framingErrors: [DecodeError] { decoder.framingErrors }
    var framingErrorCount: Int { decoder.framingErrorCount }
    var skippedBytes: Int64 { decoder.skippedBytes }

    /// A complete packet already in the buffer, as a record.
    func buffered(index: Int, source: String) throws -> CaptureRecord? {
        let packet: H4StreamDecoder.Packet?
        do {
            packet = try decoder.next()
        } catch {
            throw Self.located(error, index: index, source: source)
        }
        guard let packet else { return nil }
        let direction: Direction =
            switch packet.kind {
            case .command: .sent
            case .event: .received
            default: dataDirection
            }
        return CaptureRecord(
            index: index, fileOffset: packet.offset, timestamp: readTime, direction: direction, kind: packet.kind,
            originalLength: packet.bytes.count, bytes: packet.bytes)
    }

    /// One `read(2)` into the decoder, then the first packet it completed, if any.
    func read(index: Int, source: String) throws -> LiveSource.Read {
        let space = decoder.space()
        let count = Glibc.read(descriptor, space.baseAddress, space.count)
        if count < 0 {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return .nothing }
            // A pty whose other side closed reports EIO: a hang-up, so the end of the stream.
            if code != EIO {
                if let truncation = decoder.truncation() {
                    var error = Self.located(truncation, index: index, source: source)
                    error.expected += " (the read failed: \(LiveSource.message(code)))"
                    throw error
                }
                throw CaptureError.live("\(source): reading the stream failed: \(LiveSource.message(code))")
            }
        }
        if count <= 0 {
            if let truncation = decoder.truncation() {
                var error = Self.located(truncation, index: index, source: source)
                error.expected += " (the peer closed the stream mid-packet)"
                throw error
            }
            return .end
        }
        readTime = LiveSource.now()
        decoder.append(count)
        if let record = try buffered(index: index, source: source) { return .record(record) }
        return .nothing
    }

    private static func located(_ error: DecodeError, index: Int, source: String) -> DecodeError {
        var located = error
        located.recordIndex = index
        located.file = source
        return located
    }

    /// Raw mode (no echo, no line editing, no character translation, 8 bits), optionally at a
    /// baud rate; returns the settings to restore.
    static func makeRaw(_ descriptor: Int32, baud: Int?, source: String) throws(CaptureError) -> termios {
        var saved = termios()
        guard tcgetattr(descriptor, &saved) == 0 else {
            throw CaptureError.live("\(source): cannot read its terminal settings: \(LiveSource.message(errno))")
        }
        var raw = saved
        cfmakeraw(&raw)
        raw.c_cflag |= tcflag_t(CLOCAL | CREAD)
        if let baud, let speed = LiveDevice.baudRates[baud] {
            guard cfsetispeed(&raw, speed) == 0, cfsetospeed(&raw, speed) == 0 else {
                throw CaptureError.live("\(source): cannot set \(baud) baud: \(LiveSource.message(errno))")
            }
        }
        guard tcsetattr(descriptor, TCSANOW, &raw) == 0 else {
            throw CaptureError.live("\(source): cannot put it in raw mode: \(LiveSource.message(errno))")
        }
        return saved
    }

    /// Connects to a TCP server, trying each address the name resolves to, each within `timeout`.
    static func connectTCP(host: String, port: UInt16, timeout: Duration, source: String) throws(CaptureError) -> Int32
    {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw CaptureError.live("\(source): cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var reasons: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            entry = current.pointee.ai_next
            let attempt = Self.connect(
                family: current.pointee.ai_family, address: current.pointee.ai_addr,
                length: current.pointee.ai_addrlen, timeout: timeout)
            switch attempt {
            case .success(let descriptor): return descriptor
            case .failure(let reason): reasons.append(reason)
            }
        }
        let unique = reasons.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        throw CaptureError.live(
            "\(source): cannot connect: \(unique.joined(separator: "; ")) (is the virtual controller's TCP server running on that port?)"
        )
    }

    /// Connects to a Unix-domain stream socket.
    static func connectUnix(path: String, timeout: Duration, source: String) throws(CaptureError) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let utf8 = Array(path.utf8)
        guard utf8.count < capacity else {
            throw CaptureError.live(
                "\(source): the path is longer than a Unix socket address holds (\(capacity - 1) bytes)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: utf8)
            raw[utf8.count] = 0
        }
        let attempt = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Self.connect(
                    family: AF_UNIX, address: $0, length: socklen_t(MemoryLayout<sockaddr_un>.size), timeout: timeout)
            }
        }
        switch attempt {
        case .success(let descriptor): return descriptor
        case .failure(let reason): throw CaptureError.live("\(source): cannot connect: \(reason)")
        }
    }

    private enum Attempt {
        case success(Int32)
        case failure(String)
    }

    /// A non-blocking connect, waited for with `poll(2)` up to `timeout`.
    private static func connect(
        family: Int32, address: UnsafePointer<sockaddr>?, length: socklen_t, timeout: Duration
    ) -> Attempt {
        let descriptor = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return .failure(LiveSource.message(errno)) }
        if Glibc.connect(descriptor, address, length) == 0 { return .success(descriptor) }
        guard errno == EINPROGRESS || errno == EAGAIN else {
            let reason = LiveSource.message(errno)
            close(descriptor)
            return .failure(reason)
        }
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - .now
            let milliseconds = max(
                0,
                Int32(clamping: left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000))
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 {
                close(descriptor)
                return .failure(ready == 0 ? "no answer within \(timeout)" : LiveSource.message(errno))
            }
            break
        }
        var code: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &size)
        guard code == 0 else {
            close(descriptor)
            return .failure(LiveSource.message(code))
        }
        return .success(descriptor)
    }
}
#endif
