import Foundation
import TestSupport
import Testing

@testable import Lifecycle
@testable import LinkLayer

/// On nRF Sniffer captures the connection events heard and missed are the sniffer's own event
/// counters, checked against tshark's reading of the same header (`nordic_ble.event_counter`).
@Suite(.sharedCaptures) struct SnifferEventCounterTests {
    static let captures = Fixtures.sharedCaptures("field").filter { path in
        [
            "AleBonora3-Tesi_BLE-lv4-passkey.pcapng",
            "Matheus-Garbelini-sweyntooth_bluetooth_low_energy_attacks-st-att-deadlock.pcap",
        ]
        .contains((path as NSString).lastPathComponent)
    }

    @Test(arguments: captures)
    func eventsHeardAndMissedAreTheSniffersCounters(_ path: String) throws {
        let tshark = try #require(which("tshark"), "tshark is missing: `make deps` installs it")
        // Each data packet's connection event counter, as tshark reads the nRF Sniffer header.
        let run = try TestSupport.run(
            tshark,
            [
                "-r", path, "-Y", "btle.data_header && nordic_ble.crcok == 1", "-T", "fields", "-e",
                "nordic_ble.event_counter",
            ])
        let counters = run.stdout.split(separator: "\n").compactMap { Int($0) }
        let heard = Set(counters)
        let last = try #require(counters.max())
        let (report, _) = try LifecycleAnalyzer.analyze(path: path)
        let link = try #require(report.connections.first?.air)
        #expect(report.connections.count == 1)
        #expect(link.events == heard.count)
        // The capture holds the CONNECT_IND: every event from 0 to the last heard is heard or missed.
        #expect(link.events + link.missedEvents == last + 1)
    }

    @Test func aPacketTheSnifferDecryptedCountsAsDecrypted() {
        var header = NordicBLEHeader(
            boardID: 0, protocolVersion: 3, headerLength: nil, payloadLength: 0, packetCounter: 0, packetID: 0x06,
            eventHeaderLength: 10, flags: 0x04 | 0x08, channel: 0, rssi: 0, eventCounter: 0, time: 0, packetOffset: 0,
            isData: true)  // flags: encrypted, MIC OK
        #expect(header.encrypted && header.micOK == true)
        #expect(AirTranslator.snifferDecrypted(.nordic(header), length: 9, encrypted: true))
        #expect(!AirTranslator.snifferDecrypted(.nordic(header), length: 0, encrypted: true))
        header.flags = 0x04  // encrypted, MIC failed: not decrypted
        #expect(!AirTranslator.snifferDecrypted(.nordic(header), length: 9, encrypted: true))
    }
}
