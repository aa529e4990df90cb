#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import CBlueZ
import Glibc
import Wire

/// Captures HCI traffic as it happens and yields it as records, like ``CaptureReader`` does for
/// files.
///
/// The sources (``LiveDevice``, Formats/live.md):
/// - libpcap's Bluetooth devices: `bluetooth-monitor` (every controller, link type 254) and
///   `bluetoothN` (one controller, link type 201);
/// - BlueZ's HCI monitor channel, opened directly (`hci-monitor`), as btmon reads it;
/// - an H4 byte stream from a virtual controller: TCP, a Unix-domain socket, a pty or serial port;
/// - an H4 relay between a host and a controller, recording both directions exactly.
///
/// ``next(until:)`` waits for the next record. Each record's bytes are borrowed until the next
/// call; `index` counts from 0; timestamps are capture times in µs since the Unix epoch (the
/// kernel's receive time for the Linux sources, the wall clock when the packet's last byte
/// arrived for H4 streams). ``stop()`` — or the ``Stopper`` from any thread — ends the capture:
/// the waiting call returns nil. Descriptors are non-blocking and every wait goes through
/// `poll(2)` with the stop pipe, so nothing blocks past a stop or a deadline.
///
/// A fault inside the data (a framing error, a stream that ends mid-packet) is thrown as a
/// ``DecodeError`` naming the source, the record index and the byte offset, after every good
/// record before it; a source that cannot be opened or read is a ``CaptureError/live(_:)`` with
/// the system's own words and what they mean.
public final class LiveSource {
    /// Why ``next(until:)`` returned nil.
    public enum EndReason: Hashable, Sendable {
        /// ``stop()`` was called (final).
        case stopped
        /// The source ended cleanly between packets: the peer closed the stream, the pty hung up
        /// (final).
        case endOfStream
        /// The deadline passed with no record; calling again goes on waiting.
        case deadlinePassed
    }

    /// Settings of the ways to open a source.
    public struct Options: Sendable {
        /// For H4 streams, the direction of ACL, SCO and ISO packets, which the stream does not
        /// say: `.received` (the default) when the stream is what a controller sends to its host,
        /// `.sent` when it is what a host sends. Commands are always sent, events received.
        public var h4DataDirection: Direction = .received
        /// How long to wait for a TCP or Unix-domain connection to be accepted; for a relay, also
        /// how long a side may refuse relayed bytes before the relay gives up.
        public var connectTimeout: Duration = .seconds(10)

        public init(h4DataDirection: Direction = .received, connectTimeout: Duration = .seconds(10)) {
            self.h4DataDirection = h4DataDirection
            self.connectTimeout = connectTimeout
        }
    }

    public let device: LiveDevice
    /// How the source names itself in errors and records (``LiveDevice/description``).
    public let name: String
    /// The pcap link type that holds the records without loss (254 or 201); see
    /// ``LiveDevice/linkType``.
    public let linkType: Int32
    /// For a relay (``LiveDevice/relay(host:port:controller:)``): the TCP port it listens on for
    /// the host, the kernel's pick when the device asked for port 0. Nil for other sources.
    public var listeningPort: UInt16? {
        if case .relay(let relay) = backend { relay.port } else { nil }
    }
    /// Why the last call to ``next(until:)`` returned nil.
    public private(set) var endReason: EndReason?
    /// For H4 streams and relays: where the stream had bytes that start no packet (the first
    /// 100, each with its stream offset), skipped up to the next event or command. Reported, not
    /// fatal: the records around them are all delivered.
    public var framingErrors: [DecodeError] {
        switch backend {
        case .h4(let stream): stream.framingErrors.map { Self.named($0, source: name) }
        case .relay(let relay): relay.framingErrors.map { Self.named($0, source: name) }
        default: []
        }
    }
    /// How many framing errors there were, and how many bytes were skipped.
    public var framingErrorCount: Int {
        switch backend {
        case .h4(let stream): stream.framingErrorCount
        case .relay(let relay): relay.framingErrorCount
        default: 0
        }
    }
    public var skippedBytes: Int64 {
        switch backend {
        case .h4(let stream): stream.skippedBytes
        case .relay(let relay): relay.skippedBytes
        default: 0
        }
    }

    private static func named(_ error: DecodeError, source: String) -> DecodeError {
        var named = error
        named.file = source
        return named
    }
    /// Stops this source from any thread; ``stop()`` is the same.
    public let stopper: Stopper

    enum Backend {
        case pcap(LivePcapHandle)
        case monitor(LiveMonitorChannel)
        case h4(LiveH4Stream)
        case relay(LiveH4Relay)

        /// What to wait on: one descriptor, or two for a relay.
        var descriptors: (Int32, Int32?) {
            switch self {
            case .pcap(let handle): (handle.descriptor, nil)
            case .monitor(let channel): (channel.descriptor, nil)
            case .h4(let stream): (stream.descriptor, nil)
            case .relay(let relay): relay.descriptors
            }
        }
    }

    /// What one read of a source's descriptor gave.
    enum Read {
        case record(CaptureRecord)
        case nothing
        case end
    }

    private let backend: Backend
    private var index = 0
    private var failure: (any Error)?

    /// Opens a live source. Throws ``CaptureError/live(_:)`` when it cannot be opened, with the
    /// system's message and what it means (no Bluetooth in this kernel, no permission, no such
    /// controller, nothing listening at that address).
    public convenience init(_ device: LiveDevice, options: Options = Options()) throws {
        let backend: Backend
        switch device {
        case .pcap(let name):
            backend = .pcap(try LivePcapHandle(device: name))
        case .monitorChannel:
            backend = .monitor(try LiveMonitorChannel())
        case .tcp, .unix, .serial:
            backend = .h4(try LiveH4Stream(device: device, options: options))
        case .relay(let host, let port, let controller):
            backend = .relay(try LiveH4Relay(host: host, port: port, controller: controller, options: options))
        }
        try self.init(device: device, backend: backend)
    }

    /// Opens the source a person named (``LiveDevice/init(parsing:)``).
    public convenience init(parsing text: String, options: Options = Options()) throws {
        try self.init(try LiveDevice(parsing: text), options: options)
    }

    init(device: LiveDevice, backend: Backend, name: String? = nil) throws {
        self.device = device
        self.name = name ?? device.description
        self.backend = backend
        if case .pcap(let handle) = backend {
            linkType = handle.linkType
        } else {
            linkType = device.linkType
        }
        stopper = try Stopper()
    }

    /// Ends the capture: a waiting or later ``next(until:)`` returns nil with
    /// ``EndReason/stopped``. Safe from any thread (it writes one byte to a pipe).
    public func stop() { stopper.stop() }

    /// The next record; nil when stopped, when the source ended cleanly, or when `deadline`
    /// (if any) passed first — ``endReason`` says which. Complete packets already received are
    /// returned before a stop takes effect.
    public func next(until deadline: ContinuousClock.Instant? = nil) throws -> CaptureRecord? {
        if let failure { throw failure }
        do {
            return try readNext(until: deadline)
        } catch {
            failure = error
            throw error
        }
    }

    private func readNext(until deadline: ContinuousClock.Instant?) throws -> CaptureRecord? {
        if endReason == .stopped || endReason == .endOfStream { return nil }
        endReason = nil
        while true {
            if case .h4(let stream) = backend, let record = try stream.buffered(index: index, source: name) {
                return deliver(record)
            }
            if case .relay(let relay) = backend, let record = try relay.buffered(index: index, source: name) {
                return deliver(record)
            }
            let position: Int
            let (first, second) = backend.descriptors
            switch try stopper.wait(for: first, second, until: deadline, source: name) {
            case .stopped:
                endReason = .stopped
                return nil
            case .timedOut:
                endReason = .deadlinePassed
                return nil
            case .readable(let which):
                position = which
            }
            let read: Read
            switch backend {
            case .pcap(let handle): read = try handle.read(index: index)
            case .monitor(let channel): read = try channel.read(index: index, source: name)
            case .h4(let stream): read = try stream.read(index: index, source: name)
            case .relay(let relay): read = try relay.read(position, index: index, source: name)
            }
            switch read {
            case .record(let record): return deliver(record)
            case .nothing: continue
            case .end:
                endReason = .endOfStream
                return nil
            }
        }
    }

    private func deliver(_ record: CaptureRecord) -> CaptureRecord {
        index += 1
        return record
    }

    /// Microseconds since the Unix epoch, from the real-time clock.
    static func now() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Timestamp(microseconds: Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1_000)
    }

    /// The system's message for an errno value.
    static func message(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// What is wrong with this host's Bluetooth, if anything: probes for an `AF_BLUETOOTH`
    /// socket, as every Linux capture path needs one.
    static func bluetoothProblem() -> String? {
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        if probe >= 0 {
            close(probe)
            return nil
        }
        return explain(errno)
    }

    /// What an errno from an `AF_BLUETOOTH` socket call means for a person.
    static func explain(_ code: Int32) -> String? {
        switch code {
        case EAFNOSUPPORT:
            "this host has no Bluetooth support (the kernel offers no AF_BLUETOOTH sockets: no bluetooth module is loaded, or this is a container or virtual machine without one)"
        case EPERM, EACCES:
            "capturing Bluetooth traffic needs root or the CAP_NET_RAW capability"
        case ENODEV:
            "no such Bluetooth controller (the kernel lists them in /sys/class/bluetooth, and bletrace adapters shows them)"
        default:
            nil
        }
    }
}
#endif
