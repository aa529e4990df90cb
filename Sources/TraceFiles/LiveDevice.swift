#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import Glibc

/// Where a live capture comes from, as a person names it on the command line.
///
/// Spellings (``init(parsing:)``), described in Formats/live.md:
///
/// | text | source | pcap link type of the records |
/// | --- | --- | --- |
/// | `bluetooth-monitor` | libpcap's Linux monitor pseudo-device: every controller | 254 |
/// | `bluetoothN`, `hciN` | libpcap's device for controller N | 201 |
/// | `hci-monitor` | BlueZ's HCI monitor channel, opened directly (as btmon does): every controller | 254 |
/// | `tcp:HOST:PORT` | an H4 byte stream from a TCP server (bletrace connects as the client) | 201 |
/// | `unix:PATH` | an H4 byte stream from a Unix-domain stream socket | 201 |
/// | `serial:PATH[,BAUD]`, or any path with a `/` | an H4 byte stream from a pty, a serial port or a file | 201 |
/// | `relay:HOST:PORT,CONTROLLER` | both directions of an H4 link: bletrace listens on HOST:PORT for the host and relays to the controller (any H4 spelling above) | 201 |
public indirect enum LiveDevice: Hashable, Sendable, CustomStringConvertible {
    /// A libpcap capture device: `bluetooth-monitor` or `bluetoothN`.
    case pcap(String)
    /// BlueZ's HCI monitor channel (`AF_BLUETOOTH`, `BTPROTO_HCI`, `HCI_CHANNEL_MONITOR`).
    case monitorChannel
    /// An H4 stream from a TCP server; bletrace connects and only reads.
    case tcp(host: String, port: UInt16)
    /// An H4 stream from a Unix-domain stream socket; bletrace connects and only reads.
    case unix(path: String)
    /// An H4 stream from a character device or file: a pty, a serial port (set to raw mode, and to
    /// `baudRate` when given), a FIFO, or a regular file holding a raw H4 dump.
    case serial(path: String, baudRate: Int?)
    /// Both directions of an H4 link, exactly: bletrace listens on `host`:`port` (TCP; port 0
    /// lets the kernel pick) for one host to connect, connects to `controller` (an H4 endpoint:
    /// `.tcp`, `.unix` or `.serial`), copies every byte across unchanged, and records what the
    /// host wrote as sent and what the controller wrote as received.
    case relay(host: String, port: UInt16, controller: LiveDevice)

    public init(parsing text: String) throws(CaptureError) {
        func number(_ digits: Substring) -> Int? {
            guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else {
                return nil
            }
            return Int(digits)
        }
        if text == "bluetooth-monitor" {
            self = .pcap(text)
        } else if text == "hci-monitor" {
            self = .monitorChannel
        } else if text.hasPrefix("bluetooth"), let n = number(text.dropFirst("bluetooth".count)) {
            self = .pcap("bluetooth\(n)")
        } else if text.hasPrefix("hci"), let n = number(text.dropFirst(3)) {
            self = .pcap("bluetooth\(n)")
        } else if text.hasPrefix("relay:") {
            let usage =
                "expected relay:HOST:PORT,CONTROLLER (such as relay:127.0.0.1:9000,tcp:127.0.0.1:9001): bletrace listens on HOST:PORT for the host and relays to the controller's H4 endpoint (tcp:, unix:, serial: or a path)"
            let rest = text.dropFirst(6)
            guard let comma = rest.firstIndex(of: ","),
                let (host, port) = Self.hostAndPort(rest[..<comma], allowingZero: true)
            else {
                throw CaptureError.live("\(text): \(usage)")
            }
            let controller = try LiveDevice(parsing: String(rest[rest.index(after: comma)...]))
            guard controller.isH4Endpoint else { throw CaptureError.live("\(text): \(usage)") }
            self = .relay(host: host, port: port, controller: controller)
        } else if text.hasPrefix("tcp:") {
            let address = text.dropFirst(4)
            guard let (host, port) = Self.hostAndPort(address, allowingZero: false) else {
                if address.hasPrefix(":") {
                    throw CaptureError.live("\(text): expected tcp:HOST:PORT; the host is missing")
                }
                throw CaptureError.live(
                    "\(text): expected tcp:HOST:PORT with a port from 1 to 65535, such as tcp:127.0.0.1:9000")
            }
            self = .tcp(host: host, port: port)
        } else if text.hasPrefix("unix:") {
            guard text.count > 5 else { throw CaptureError.live("\(text): expected unix:PATH") }
            self = .unix(path: String(text.dropFirst(5)))
        } else if text.hasPrefix("serial:") {
            let rest = text.dropFirst(7)
            var path = rest
            var baud: Int?
            if let comma = rest.lastIndex(of: ",") {
                guard let rate = number(rest[rest.index(after: comma)...]), LiveDevice.baudRates[rate] != nil else {
                    throw CaptureError.live(
                        "\(text): expected serial:PATH[,BAUD] with BAUD one of \(LiveDevice.baudRates.keys.sorted().map(String.init).joined(separator: ", "))"
                    )
                }
                path = rest[..<comma]
                baud = rate
            }
            guard !path.isEmpty else { throw CaptureError.live("\(text): expected serial:PATH[,BAUD]") }
            self = .serial(path: String(path), baudRate: baud)
        } else if text.contains("/") {
            self = .serial(path: text, baudRate: nil)
        } else {
            throw CaptureError.live(
                "unknown live source '\(text)': expected bluetooth-monitor, bluetoothN or hciN (libpcap), hci-monitor (BlueZ's monitor channel), tcp:HOST:PORT, unix:PATH, the path of a pty or serial device, or relay:HOST:PORT,CONTROLLER"
            )
        }
    }

    /// `HOST:PORT`, the host possibly an IPv6 address in brackets.
    static func hostAndPort(_ text: Substring, allowingZero: Bool) -> (String, UInt16)? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let digits = text[text.index(after: colon)...]
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(digits), port <= 65_535, port > 0 || allowingZero
        else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty else { return nil }
        return (String(host), UInt16(port))
    }

    /// The canonical spelling, which ``init(parsing:)`` reads back.
    public var description: String {
        switch self {
        case .pcap(let name): name
        case .monitorChannel: "hci-monitor"
        case .tcp(let host, let port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        case .serial(let path, let baud?): "serial:\(path),\(baud)"
        case .serial(let path, nil): path.contains(",") ? "serial:\(path)" : path
        case .relay(let host, let port, let controller):
            "relay:" + (host.contains(":") ? "[\(host)]" : host) + ":\(port),\(controller)"
        }
    }

    /// True for the H4 byte-stream endpoints (`.tcp`, `.unix`, `.serial`).
    public var isH4Endpoint: Bool {
        switch self {
        case .tcp, .unix, .serial: true
        case .pcap, .monitorChannel, .relay: false
        }
    }

    /// The pcap link type that holds this source's records without loss: 254 (Linux monitor:
    /// controller index, and the index and note records) for the monitor sources, 201 (H4 with a
    /// direction word) for one controller and for H4 streams.
    public var linkType: Int32 {
        switch self {
        case .pcap(let name): name == "bluetooth-monitor" ? 254 : 201
        case .monitorChannel: 254
        case .tcp, .unix, .serial, .relay: 201
        }
    }

    /// The serial speeds a `serial:PATH,BAUD` source may ask for, and their termios codes.
    static let baudRates: [Int: speed_t] = [
        9600: speed_t(B9600), 19_200: speed_t(B19200), 38_400: speed_t(B38400),
        57_600: speed_t(B57600), 115_200: speed_t(B115200), 230_400: speed_t(B230400),
        460_800: speed_t(B460800), 500_000: speed_t(B500000), 576_000: speed_t(B576000),
        921_600: speed_t(B921600), 1_000_000: speed_t(B1000000), 1_152_000: speed_t(B1152000),
        1_500_000: speed_t(B1500000), 2_000_000: speed_t(B2000000), 2_500_000: speed_t(B2500000),
        3_000_000: speed_t(B3000000), 3_500_000: speed_t(B3500000), 4_000_000: speed_t(B4000000),
    ]
}
#endif
