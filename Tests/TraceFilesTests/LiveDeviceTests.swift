#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import Testing

@testable import TraceFiles

/// How a person names a live source, and the link type that holds its records.
@Suite struct LiveDeviceTests {
    @Test(arguments: [
        ("bluetooth-monitor", LiveDevice.pcap("bluetooth-monitor"), "bluetooth-monitor", Int32(254)),
        ("bluetooth0", .pcap("bluetooth0"), "bluetooth0", 201),
        ("hci1", .pcap("bluetooth1"), "bluetooth1", 201),
        ("hci-monitor", .monitorChannel, "hci-monitor", 254),
        ("tcp:127.0.0.1:9000", .tcp(host: "127.0.0.1", port: 9000), "tcp:127.0.0.1:9000", 201),
        ("tcp:localhost:1", .tcp(host: "localhost", port: 1), "tcp:localhost:1", 201),
        ("tcp:[::1]:6402", .tcp(host: "::1", port: 6402), "tcp:[::1]:6402", 201),
        ("unix:/tmp/bt-hci", .unix(path: "/tmp/bt-hci"), "unix:/tmp/bt-hci", 201),
        ("/dev/pts/3", .serial(path: "/dev/pts/3", baudRate: nil), "/dev/pts/3", 201),
        ("./hci_pty", .serial(path: "./hci_pty", baudRate: nil), "./hci_pty", 201),
        (
            "serial:/dev/ttyUSB0,1000000", .serial(path: "/dev/ttyUSB0", baudRate: 1_000_000),
            "serial:/dev/ttyUSB0,1000000", 201
        ),
        ("serial:/dev/ttyACM0", .serial(path: "/dev/ttyACM0", baudRate: nil), "/dev/ttyACM0", 201),
        (
            "relay:127.0.0.1:9000,tcp:127.0.0.1:9001",
            .relay(host: "127.0.0.1", port: 9000, controller: .tcp(host: "127.0.0.1", port: 9001)),
            "relay:127.0.0.1:9000,tcp:127.0.0.1:9001", 201
        ),
        (
            "relay:[::1]:0,serial:/dev/ttyUSB0,1000000",
            .relay(host: "::1", port: 0, controller: .serial(path: "/dev/ttyUSB0", baudRate: 1_000_000)),
            "relay:[::1]:0,serial:/dev/ttyUSB0,1000000", 201
        ),
    ])
    func parsesEachSpelling(text: String, device: LiveDevice, canonical: String, linkType: Int32) throws {
        let parsed = try LiveDevice(parsing: text)
        #expect(parsed == device)
        #expect(parsed.description == canonical)
        #expect(try LiveDevice(parsing: canonical) == device)
        #expect(parsed.linkType == linkType)
    }

    @Test(arguments: [
        (
            "eth0",
            "unknown live source 'eth0': expected bluetooth-monitor, bluetoothN or hciN (libpcap), hci-monitor (BlueZ's monitor channel), tcp:HOST:PORT, unix:PATH, the path of a pty or serial device, or relay:HOST:PORT,CONTROLLER"
        ),
        ("hcix", "unknown live source 'hcix'"),
        ("tcp:127.0.0.1", "tcp:127.0.0.1: expected tcp:HOST:PORT with a port from 1 to 65535"),
        ("tcp:127.0.0.1:0", "tcp:127.0.0.1:0: expected tcp:HOST:PORT with a port from 1 to 65535"),
        ("tcp:127.0.0.1:70000", "tcp:127.0.0.1:70000: expected tcp:HOST:PORT with a port from 1 to 65535"),
        ("tcp::9000", "tcp::9000: expected tcp:HOST:PORT; the host is missing"),
        ("unix:", "unix:: expected unix:PATH"),
        ("relay:127.0.0.1:9000", "relay:127.0.0.1:9000: expected relay:HOST:PORT,CONTROLLER"),
        ("relay:127.0.0.1:9000,hci0", "relay:127.0.0.1:9000,hci0: expected relay:HOST:PORT,CONTROLLER"),
        (
            "serial:/dev/ttyS0,12345",
            "serial:/dev/ttyS0,12345: expected serial:PATH[,BAUD] with BAUD one of 9600, 19200"
        ),
    ])
    func refusesWhatItCannotOpenWithTheSpellingsItKnows(text: String, message: String) throws {
        let error = try #require(throws: CaptureError.self) { try LiveDevice(parsing: text) }
        #expect("\(error)".hasPrefix(message))
    }
}
#endif
