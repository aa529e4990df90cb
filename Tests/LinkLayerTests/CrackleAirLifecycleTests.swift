import HCI
import Lifecycle
import LinkLayer
import TestSupport
import Testing
import Wire

/// The lifecycle of the public Ubertooth capture (mikeryan-crackle-le-sc.pcapng in the shared
/// folder's captures/public/) and of its conversions (Captures/linklayer/convert.py's, made by
/// Fixtures.crackleConversion), against what tshark 4.0.17 shows of it:
/// - CONNECT_IND, frame 44: `btle.initiator_address` 5c:f3:70:73:3e:f4, `btle.advertising_address`
///   7d:43:82:42:23:16 (RxAdd random), `btle.link_layer_data.interval` 54, `.timeout` 42, `.hop` 5,
///   `.channel_map` ffffffff1f (37 channels);
/// - 12 × `btatt.error_code` 0x0a; `btsmp.opcode == 1` with `btsmp.sc_flag` 1, `btsmp.bonding_flags`
///   0x01, IO capability 0x03 (no input, no output: Just Works); LL_ENC_REQ, frame 159, and
///   LL_START_ENC_REQ, frame 166;
/// - on the nRF Sniffer conversion, whose header gives each data packet's direction:
///   `btatt.server_rx_mtu` 517 (frame 68, the peripheral's), `nordic_ble.crcok == 0` on 2 frames,
///   and with a good CRC 135 data packets central to peripheral (`nordic_ble.direction == 1`) and
///   122 the other way.
@Suite(.sharedCaptures) struct CrackleAirLifecycleTests {
    static let captures = [
        Fixtures.publicCapture("mikeryan-crackle-le-sc.pcapng"), Fixtures.crackleConversion("crackle-phdr.pcap"),
        Fixtures.crackleConversion("crackle-ll.pcapng"), Fixtures.crackleConversion("crackle-nordic-v1.pcapng"),
        Fixtures.crackleConversion("crackle-nordic-v2.pcap"), Fixtures.crackleConversion("crackle-nordic-v3.pcap"),
    ]

    @Test(arguments: captures) func theConnectionIsTsharks(_ path: String) throws {
        let analysis = try TraceAnalysis(path: path)
        #expect(analysis.fault == nil)
        #expect(analysis.lifecycle.connections.count == 1)
        let connection = try #require(analysis.lifecycle.connections.first)
        #expect(
            connection.role == .central && connection.peer == BluetoothAddress("7D:43:82:42:23:16")
                && connection.peerAddressType == 1)
        #expect(connection.interval == 54 && connection.latency == 0 && connection.supervisionTimeout == 42)
        #expect(connection.outcome == .open && connection.completion?.record == 43)
        // The Exchange MTU Response (frame 68) is the peripheral's on every file: by the sniffer's
        // header, or without one by timing and sequence numbers (the central's packet that opened
        // its event, frame 63, follows the peripheral's missed-event answer, frame 62).
        #expect(connection.mtu == 517)
        let link = try #require(connection.air)
        #expect(link.central == BluetoothAddress("5C:F3:70:73:3E:F4") && link.hop == 5 && link.usedChannels == 37)
        #expect(link.encrypted && link.connectRecord == 43)
        #expect(analysis.errors.count == 12 && analysis.errors.allSatisfy { $0.layer == .att && $0.code == 0x0A })
        let pairing = try #require(connection.pairings.first)
        #expect(
            connection.pairings.count == 1 && pairing.method == .justWorks && pairing.secureConnections == true
                && pairing.bonding == true)
        #expect(pairing.outcome == .encrypted)
        #expect(connection.changes.contains { $0.kind == .encryption(enabled: true, keySize: nil) })
        // From the peripheral's side, the peer is the central.
        let peripheral = try TraceAnalysis(path: path, air: AirOptions(host: .peripheral))
        #expect(peripheral.lifecycle.connections.first?.role == .peripheral)
        #expect(peripheral.lifecycle.connections.first?.peer == BluetoothAddress("5C:F3:70:73:3E:F4"))
    }

    @Test func withTheSniffersDirectionsTheMTUAndPacketsAreTsharks() throws {
        let analysis = try TraceAnalysis(path: Fixtures.crackleConversion("crackle-nordic-v3.pcap"))
        let connection = try #require(analysis.lifecycle.connections.first)
        #expect(connection.mtu == 517)
        let link = try #require(connection.air)
        #expect(link.crcErrors == 2 && link.centralPackets == 135 && link.peripheralPackets == 122)
    }
}
