import TestSupport
import Testing
import Wire

@testable import TraceFiles

@Suite struct OtherFormatTests {
    @Test(
        .sharedCaptures,
        arguments: [
            // (file, format, record count as tshark 4.0 counts them)
            ("elkusbry-peripage.pklg", CaptureFormat.packetLogger, 721),
            ("fotonick-hciparse-test00.pklg", .packetLogger, 2239),
            ("joelarula-darkelf-test1.pcapng", .pcapng(linkType: 201), 122),
            ("syssi-jbdbms-ffaa-auth-h1.btsnoop", .btsnoop(datalink: 1001), 214),
        ])
    func detectsTheFormatFromTheContentAndReadsEveryRecord(file: String, format: CaptureFormat, count: Int) throws {
        let reader = try CaptureReader(path: Fixtures.publicCapture(file))
        #expect(reader.format == format)
        let (records, fault) = try Fixtures.readAll(Fixtures.publicCapture(file))
        #expect(fault == nil)
        #expect(records.count == count)
    }

    @Test(.sharedCaptures) func detectsBothPacketLoggerByteOrders() throws {
        let little = try Fixtures.contents(Fixtures.publicCapture("elkusbry-peripage.pklg"))
        let big = try Fixtures.contents(Fixtures.publicCapture("fotonick-hciparse-test00.pklg"))
        #expect(little.withUnsafeBytes { PacketLoggerReader.detectByteOrder($0) } == false)
        #expect(big.withUnsafeBytes { PacketLoggerReader.detectByteOrder($0) } == true)
    }

    @Test(.sharedCaptures) func decodesPacketLoggerNotesAsText() throws {
        let (records, _) = try Fixtures.readAll(Fixtures.publicCapture("elkusbry-peripage.pklg"))
        #expect(records[0].kind == .other)
        #expect(records[0].note == "note: Product: iPhone17,1")
        // 2026-06-07 10:50:47.116000 UTC, as tshark shows it.
        #expect(records[0].timestamp.microseconds == 1_780_829_447_116_000)
    }

    @Test(.sharedCaptures) func readsTheDirectionWordOfLinkType201() throws {
        let (records, _) = try Fixtures.readAll(Fixtures.publicCapture("joelarula-darkelf-test1.pcapng"))
        #expect(records[0].direction == .sent)
        #expect(records[1].direction == .received)
        #expect(records.allSatisfy { $0.kind == .acl })
    }

    @Test func keepsARecordWithoutAKnownH4TypeAsAnOtherRecord() throws {
        // A classic pcap file (little-endian), link type 201: a direction word, then the H4 type.
        func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let packet: [UInt8] = [0, 0, 0, 1, 0x7F, 0xAA]
        let file =
            le32(0xA1B2_C3D4) + [2, 0, 4, 0] + le32(0) + le32(0) + le32(65535) + le32(201)
            + le32(1) + le32(0) + le32(UInt32(packet.count)) + le32(UInt32(packet.count)) + packet
        let (records, fault) = try Fixtures.readAll(Fixtures.temporaryFile(file, name: "non-h4.pcap"))
        #expect(fault == nil)
        #expect(records.count == 1)
        #expect(records.first?.kind == .other && records.first?.note == "not an H4 packet")
        #expect(records.first?.bytes == packet)
    }

    @Test(.sharedCaptures) func refusesALinkLayerSnifferCaptureByName() throws {
        let path = Fixtures.publicCapture("mikeryan-crackle-le-sc.pcapng")
        let error = try #require(throws: CaptureError.self) { try CaptureReader(path: path) }
        #expect("\(error)".contains("link type 256 (BLUETOOTH_LE_LL_WITH_PHDR)"))
        #expect("\(error)".contains("not an HCI trace"))
    }
}
