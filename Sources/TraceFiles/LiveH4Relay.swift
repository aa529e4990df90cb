#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import CBlueZ
import Glibc
import Wire

/// Both directions of an H4 link, recorded exactly: bletrace sits between a host and a controller
/// that speak H4 (a Zephyr or Bumble host, a virtual or serial controller), copies every byte
/// across unchanged, and cuts each direction into packets with its own ``H4StreamDecoder``.
///
/// The controller's endpoint is connected (or opened) at once, so a wrong address fails early;
/// the host is accepted on a TCP listener when it connects, within a ``LiveSource/next(until:)``
/// call, so waiting for it can be stopped or bounded like any read. One host only: the listener
/// closes once it has connected.
///
/// Directions come from the side, not the packet type: what the host wrote is sent, what the
/// controller wrote is received. Each record's `fileOffset` is its offset in that direction's
/// stream. The capture ends when either side closes (cleanly between packets, or with the
/// truncation error of ``H4StreamDecoder/truncation()``). A framing error on either side is
/// recorded (``framingErrors``) and skipped in the recording; the bytes are relayed unchanged.
final class LiveH4Relay {
    private enum Side {
        case host, controller
    }

    /// The TCP port the listener is bound to (the kernel's pick when asked for 0).
    let port: UInt16
    private var listener: Int32
    private var host: Int32 = -1
    private let controller: Int32
    private let controllerIsSocket: Bool
    private var savedTerminal: termios?
    private let fromHost = H4StreamDecoder()
    private let fromController = H4StreamDecoder()
    private var readTime = Timestamp(microseconds: 0)
    /// How long a side may refuse to take relayed bytes before the relay gives up.
    private let writeTimeout: Duration

    init(host listenHost: String, port listenPort: UInt16, controller device: LiveDevice, options: LiveSource.Options)
        throws(CaptureError)
    {
        let source = LiveDevice.relay(host: listenHost, port: listenPort, controller: device).description
        (listener, port) = try Self.listen(host: listenHost, port: listenPort, source: source)
        writeTimeout = options.connectTimeout
        do {
            (controller, savedTerminal) = try LiveH4Stream.open(device, writable: true, options: options)
        } catch {
            close(listener)
            throw error
        }
        var status = stat()
        controllerIsSocket = fstat(controller, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }

    deinit {
        if var savedTerminal { tcsetattr(controller, TCSANOW, &savedTerminal) }
        if listener >= 0 { close(listener) }
        if host >= 0 { close(host) }
        close(controller)
    }

    /// What to wait on: the listener until the host connects, then both sides.
    var descriptors: (Int32, Int32?) { host < 0 ? (listener, nil) : (host, controller) }

    /// Framing errors of both sides, each saying which side sent the bytes.
    var framingErrors: [DecodeError] {
        fromHost.framingErrors.map { Self.sided($0, .host) }
            + fromController.framingErrors.map { Self.sided($0, .controller) }
    }
    var framingErrorCount: Int { fromHost.framingErrorCount + fromController.framingErrorCount }
    var skippedBytes: Int64 { fromHost.skippedBytes + fromController.skippedBytes }

    private static func sided(_ error: DecodeError, _ side: Side) -> DecodeError {
        var sided = error
        sided.expected += side == .host ? " (in what the host sent)" : " (in what the controller sent)"
        return sided
    }

    /// A complete packet already read from either side, as a record.
    func buffered(index: Int, source: String) throws -> CaptureRecord? {
        for side in [Side.host, .controller] {
            let decoder = side == .host ? fromHost : fromController
            let packet: H4StreamDecoder.Packet?
            do {
                packet = try decoder.next()
            } catch {
                throw Self.located(error, side: side, index: index, source: source)
            }
            if let packet {
                return CaptureRecord(
                    index: index, fileOffset: packet.offset, timestamp: readTime,
                    direction: side == .host ? .sent : .received, kind: packet.kind,
                    originalLength: packet.bytes.count, bytes: packet.bytes)
            }
        }
        return nil
    }

    /// Handles the descriptor at `position` in ``descriptors`` being readable.
    func read(_ position: Int, index: Int, source: String) throws -> LiveSource.Read {
        guard host >= 0 else {
            try accept(source: source)
            return .nothing
        }
        let side: Side = position == 0 ? .host : .controller
        let (from, to) = side == .host ? (host, controller) : (controller, host)
        let decoder = side == .host ? fromHost : fromController
        let space = decoder.space()
        let count = Glibc.read(from, space.baseAddress, space.count)
        if count < 0 {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return .nothing }
            if code != EIO && code != ECONNRESET {
                throw CaptureError.live("\(source): reading from the \(side) failed: \(LiveSource.message(code))")
            }
        }
        if count <= 0 {
            if let truncation = decoder.truncation() {
                var error = Self.located(truncation, side: nil, index: index, source: source)
                error.expected += " (the \(side) closed its stream mid-packet)"
                throw error
            }
            return .end
        }
        readTime = LiveSource.now()
        // Relay first, so recording never delays or alters the link.
        try writeAll(
            UnsafeRawBufferPointer(rebasing: space[0..<count]), to: to,
            isSocket: side == .host ? controllerIsSocket : true, source: source,
            peer: side == .host ? "controller" : "host")
        decoder.append(count)
        if let record = try buffered(index: index, source: source) { return .record(record) }
        return .nothing
    }

    private func accept(source: String) throws(CaptureError) {
        let accepted = Glibc.accept(listener, nil, nil)
        guard accepted >= 0 else {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED { return }
            throw CaptureError.live("\(source): accepting the host's connection failed: \(LiveSource.message(errno))")
        }
        _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
        _ = fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK)
        host = accepted
        close(listener)
        listener = -1
    }

    /// Writes all of `bytes`, waiting (up to the write timeout) while the peer's buffer is full.
    private func writeAll(
        _ bytes: UnsafeRawBufferPointer, to descriptor: Int32, isSocket: Bool, source: String, peer: String
    ) throws {
        var done = 0
        let deadline = ContinuousClock.now + writeTimeout
        while done < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[done...])
            let written =
                isSocket
                ? send(descriptor, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL))
                : write(descriptor, rest.baseAddress, rest.count)
            if written > 0 {
                done += written
                continue
            }
            let code = errno
            guard written < 0, code == EAGAIN || code == EWOULDBLOCK || code == EINTR else {
                throw CaptureError.live("\(source): relaying to the \(peer) failed: \(LiveSource.message(code))")
            }
            let left = deadline - .now
            guard left > .zero else {
                throw CaptureError.live("\(source): the \(peer) took no data for \(writeTimeout); the relay stops")
            }
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            _ = poll(
                &entry, 1,
                Int32(
                    clamping: left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            )
        }
    }

    /// The error with the record index and source filled in, and, for a framing error, the side
    /// whose stream it is in.
    private static func located(_ error: DecodeError, side: Side?, index: Int, source: String) -> DecodeError {
        var located = error
        located.recordIndex = index
        located.file = source
        if let side { located.expected += " (in what the \(side) sent)" }
        return located
    }

    /// A listening TCP socket on `host`:`port` and the port it got.
    static func listen(host: String, port: UInt16, source: String) throws(CaptureError) -> (Int32, UInt16) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let list else {
            throw CaptureError.live("\(source): cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        let info = list.pointee
        let descriptor = socket(
            info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            0)
        guard descriptor >= 0 else {
            throw CaptureError.live("\(source): cannot listen: \(LiveSource.message(errno))")
        }
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, info.ai_addr, info.ai_addrlen) == 0, Glibc.listen(descriptor, 1) == 0 else {
            let reason = LiveSource.message(errno)
            close(descriptor)
            throw CaptureError.live("\(source): cannot listen on \(host):\(port): \(reason)")
        }
        var address = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &size) }
        }
        var actual = port
        if bound == 0 {
            // sin_port and sin6_port sit at the same offset, in network byte order.
            actual = withUnsafeBytes(of: &address) {
                UInt16(bigEndian: $0.loadUnaligned(fromByteOffset: 2, as: UInt16.self))
            }
        }
        return (descriptor, actual)
    }
}
#endif
