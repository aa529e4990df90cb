import Lifecycle
import LinkLayer
import TestSupport
import Testing
import TraceFiles
import Wire

/// CIS PDUs (Captures/linklayer/synthetic.py's `cis.pcap`, whose LE RF header marks them PDU
/// type 4/5, and `cis-ll.pcap`, the same packets with no header, where only the LL_CIS_IND's
/// access address tells): read as isochronous PDUs with their own header fields, not as data
/// channel PDUs of a connection joined late; the analyses make nothing of them.
@Suite struct IsochronousTests {
    struct Decoded: Equatable {
        var header: [Int]
        var payload: [UInt8]
        var segments: [IsochronousPDU.Segment]?
    }

    @Test(arguments: [("cis.pcap", Int32(256)), ("cis-ll.pcap", Int32(251))])
    func cisPDUsAreIsochronous(_ name: String, linkType: Int32) throws {
        let reader = try CaptureReader(path: Fixtures.capture("linklayer/synthetic/\(name)"), linkLayer: true)
        var decoder = LinkLayerDecoder(linkType: linkType)
        var iso: [Decoded] = []
        var connections = Set<Int>()
        while let record = try reader.next() {
            let decoded = decoder.decode(record.bytes, time: record.timestamp, index: record.index)
            #expect(decoded.fault == nil)
            if let connection = decoded.connection { connections.insert(connection.index) }
            guard let pdu = decoded.isochronous else { continue }
            #expect(decoded.connection == nil && decoded.control == nil && decoded.l2cap == nil)
            #expect(pdu.kind == .connected && decoded.packet?.accessAddress == 0x6B4A_1C35)
            let header = [Int(pdu.llid), Int(pdu.nesn!), Int(pdu.sn!), pdu.cie! ? 1 : 0, pdu.npi! ? 1 : 0, pdu.length]
            iso.append(Decoded(header: header, payload: Array(pdu.payload), segments: try pdu.segments()))
        }
        // Only the ACL connection: the CIS's packets made none.
        #expect(connections == [0])
        // As synthetic.py writes them, and as tshark reads them (btle.data_header.*,
        // btle.isochronous_data; AdvertisingChainCrossCheckTests).
        #expect(
            iso.map(\.header) == [
                [0, 0, 0, 0, 0, 10], [0, 1, 0, 0, 1, 0], [2, 0, 1, 0, 0, 13], [0, 0, 0, 0, 0, 6], [1, 1, 0, 1, 0, 15],
                [0, 1, 1, 1, 0, 4],
            ])
        #expect(iso[0].payload == Array("0123456789".utf8) && iso[5].payload == Array("last".utf8))
        let segment = try #require(iso[2].segments?.first)
        #expect(iso[2].segments?.count == 1 && !segment.continuation && segment.complete)
        #expect(segment.timeOffset == 0x123 && segment.length == 8)
        #expect(iso[0].segments == nil)

        let analysis = try TraceAnalysis(path: Fixtures.capture("linklayer/synthetic/\(name)"), air: AirOptions())
        #expect(analysis.lifecycle.connections.count == 1)
        // The ACL's data PDUs, 12 a side (`info` counts 24 `data`), less the peripheral's
        // acknowledgement of LL_TERMINATE_IND, which comes after the link ended; the CIS's 6 are
        // not the link's.
        let link = try #require(analysis.lifecycle.connections.first?.air)
        #expect(link.centralPackets == 12 && link.peripheralPackets == 11)
    }

    /// A framed PDU whose segment runs past the payload is a fault, not a crash.
    @Test func aSegmentPastThePayloadIsAFault() throws {
        let bytes: [UInt8] = [0x02, 4, 0x00, 9, 0x01, 0x02]
        try bytes.withUnsafeBytes {
            let pdu = try IsochronousPDU.decode($0, kind: .connected)
            #expect(throws: DecodeError.self) { try pdu.segments() }
        }
        let short: [UInt8] = [0x00, 9, 1]
        short.withUnsafeBytes { bytes in
            #expect(throws: DecodeError.self) { try IsochronousPDU.decode(bytes, kind: .broadcast) }
        }
    }
}
