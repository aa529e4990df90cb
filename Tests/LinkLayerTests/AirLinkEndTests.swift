import Lifecycle
import LinkLayer
import TestSupport
import Testing
import Wire

/// An over-the-air link whose end the capture did not hear: the same peripheral advertising
/// connectably, or connecting again, says it is over (an inference, with its frames), rather than
/// a supervision timeout long after.
@Suite struct AirLinkEndTests {
    /// A pcap of link type 251 (LE LL, no sniffer header) holding `packets` at their µs times.
    static func pcap(_ packets: [([UInt8], Int64)]) -> [UInt8] {
        func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var bytes = le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65_535) + le32(251)
        for (packet, time) in packets {
            bytes +=
                le32(UInt32(time / 1_000_000)) + le32(UInt32(time % 1_000_000)) + le32(UInt32(packet.count))
                + le32(UInt32(packet.count))
            bytes += packet
        }
        return bytes
    }

    /// ADV_IND (connectable) from the peripheral of ``LinkLayerDecoderTests/connectInd``.
    static let advertising = airPacket(packet("00 06", "26 25 24 23 22 21"))
    /// ADV_NONCONN_IND from it: says nothing of its links.
    static let nonConnectable = airPacket(packet("02 06", "26 25 24 23 22 21"))

    static func link(after last: [UInt8]) throws -> Connection {
        let path = try Fixtures.temporaryFile(
            Self.pcap([
                (LinkLayerDecoderTests.connectInd, 0),  // 0: interval 30 ms, supervision timeout 2 s
                (LinkLayerDecoderTests.data(llid: 0b11, [0x05]), 10_000),  // 1: LL_START_ENC_REQ, from the central
                // 2: encrypted control
                (LinkLayerDecoderTests.data(llid: 0b11, sn: 1, [0x02, 0x13, 0xAA, 0xBB, 0xCC, 0xDD]), 40_000),
                (last, 100_000),  // 3
            ]), name: "air.pcap")
        let (report, fault) = try LifecycleAnalyzer.analyze(path: path)
        #expect(fault == nil)
        return try #require(report.connections.first)
    }

    @Test func connectableAdvertisingOfThePeripheralEndsItsLinkAtItsLastPacket() throws {
        let connection = try Self.link(after: Self.advertising)
        #expect(connection.outcome == .disconnected)
        #expect(connection.disconnection?.time.microseconds == 40_000)
        // The last control PDU, unreadable, was this host's (the central's): most likely its terminate.
        #expect(connection.disconnection?.reason == .connectionTerminatedByLocalHost)
        #expect(connection.disconnection?.initiator == .local)
        let end = try #require(connection.air?.endInferred)
        #expect(end.evidenceRecord == 3 && end.evidence == "advertised")
        #expect(end.lastControlRecord == 2 && end.lastControlSender == .central)
        #expect(connection.air?.supervisionTimeoutInferred == false)
    }

    @Test func nonConnectableAdvertisingLeavesTheLinkOpen() throws {
        let connection = try Self.link(after: Self.nonConnectable)
        #expect(connection.outcome == .open)
        #expect(connection.air?.endInferred == nil)
    }

    @Test func aNewConnectionOfTheSamePeripheralEndsTheOldLink() throws {
        let again = airPacket(
            packet(
                "05 22", "16 15 14 13 12 11", "26 25 24 23 22 21", "79 56 34 12", "ef cd ab",
                "02 05 00 18 00 00 00 c8 00",
                "ff ff ff ff 1f", "25"))
        let path = try Fixtures.temporaryFile(
            Self.pcap([
                (LinkLayerDecoderTests.connectInd, 0), (LinkLayerDecoderTests.data(llid: 0b01, []), 1_600),
                (again, 500_000),
            ]),
            name: "air.pcap")
        let (report, _) = try LifecycleAnalyzer.analyze(path: path)
        #expect(report.connections.count == 2)
        let first = try #require(report.connections.first)
        #expect(first.outcome == .disconnected && first.air?.endInferred?.evidence == "reconnected")
        #expect(first.air?.endInferred?.lastControlRecord == nil)
        // Nothing heard says who ended it: the peer, as far as this host can tell.
        #expect(first.disconnection?.reason == .remoteUserTerminatedConnection)
        #expect(report.connections[1].outcome == .open)
    }
}
