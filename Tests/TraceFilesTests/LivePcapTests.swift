#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import CPcap
import Foundation
import Glibc
import TestSupport
import Testing
import Wire

@testable import TraceFiles

/// The libpcap live path where it can run here: packets written through a dead handle
/// (`pcap_open_dead`) and libpcap's dump API, then read back through the live handle's read loop
/// (`pcap_next_ex` after `poll`). Classification is the function the file reader uses, so the two
/// must agree record for record. Opening real devices is in LiveSourceTests.
@Suite struct LivePcapTests {
    /// Writes `packets` (time in µs, bytes as libpcap would hand them over) with a dead handle of
    /// `linkType`.
    static func savefile(linkType: Int32, _ packets: [(Int64, [UInt8])]) throws -> String {
        let path = try Fixtures.temporaryFile([], name: "live-\(linkType).pcap")
        let dead = try #require(
            pcap_open_dead_with_tstamp_precision(linkType, 65_535, UInt32(PCAP_TSTAMP_PRECISION_MICRO)))
        defer { pcap_close(dead) }
        let dumper = try #require(pcap_dump_open(dead, path))
        for (time, bytes) in packets {
            var header = pcap_pkthdr()
            header.ts.tv_sec = Int(time / 1_000_000)
            header.ts.tv_usec = Int(time % 1_000_000)
            header.caplen = UInt32(bytes.count)
            header.len = UInt32(bytes.count)
            bytes.withUnsafeBufferPointer {
                pcap_dump(UnsafeMutableRawPointer(dumper).assumingMemoryBound(to: UInt8.self), &header, $0.baseAddress)
            }
        }
        pcap_dump_close(dumper)
        return path
    }

    static func liveSource(_ path: String) throws -> LiveSource {
        try LiveSource(device: .pcap("bluetooth-monitor"), backend: .pcap(LivePcapHandle(savefile: path)), name: path)
    }

    /// Big-endian pseudo-header of link type 254: adapter index, opcode.
    static func monitor(_ adapter: UInt16, _ opcode: UInt16, _ payload: [UInt8]) -> [UInt8] {
        [UInt8(adapter >> 8), UInt8(adapter & 0xFF), UInt8(opcode >> 8), UInt8(opcode & 0xFF)] + payload
    }

    /// Big-endian direction word of link type 201 (0 sent, 1 received), then H4.
    static func h4(_ received: Bool, _ packet: [UInt8]) -> [UInt8] {
        [0, 0, 0, received ? 1 : 0] + packet
    }

    static let t0: Int64 = 1_767_225_600_000_000  // 2026-01-01 00:00:00 UTC

    @Test func monitorPacketsBecomeTheSameRecordsAsFromTheFileReader() throws {
        let path = try Self.savefile(
            linkType: 254,
            [
                (Self.t0, Self.monitor(0, 0, packet("00 01 66 55 44 33 22 11", "68 63 69 30 00 00 00 00"))),
                (Self.t0 + 1, Self.monitor(0, 2, Array(LiveSourceTests.reset.dropFirst()))),
                (Self.t0 + 250, Self.monitor(0, 3, Array(LiveSourceTests.resetComplete.dropFirst()))),
                (Self.t0 + 1_000_000, Self.monitor(1, 5, Array(LiveSourceTests.notification.dropFirst()))),
                (Self.t0 + 1_000_001, Self.monitor(0xFFFF, 12, Array("btmon 5.66\0".utf8))),
            ])
        let source = try Self.liveSource(path)
        #expect(source.linkType == 254)
        let (records, fault) = collect(source)
        #expect(fault == nil)
        #expect(source.endReason == .endOfStream)
        try #require(records.count == 5)
        #expect(records.map(\.kind) == [.other, .command, .event, .acl, .other])
        #expect(records.map(\.direction) == [nil, .sent, .received, .received, nil])
        #expect(records.map(\.controllerIndex) == [0, 0, 0, 1, 0xFFFF])
        #expect(records.map(\.timestamp.microseconds) == [0, 1, 250, 1_000_000, 1_000_001].map { Self.t0 + $0 })
        #expect(records[0].note == "new index 11:22:33:44:55:66 hci0")
        #expect(records[4].note == "system note: btmon 5.66")
        #expect(records[3].bytes == Array(LiveSourceTests.notification.dropFirst()))
        #expect(records.map(\.fileOffset) == [0, 20, 27, 37, 55])

        // The file reader classifies the same packets identically (offsets differ: file bytes).
        let (fromFile, fileFault) = try Fixtures.readAll(path)
        #expect(fileFault == nil)
        #expect(fromFile.count == records.count)
        for (live, file) in zip(records, fromFile) {
            #expect(live.kind == file.kind && live.direction == file.direction)
            #expect(live.controllerIndex == file.controllerIndex && live.note == file.note)
            #expect(live.timestamp == file.timestamp && live.bytes == file.bytes)
            #expect(live.originalLength == file.originalLength && live.index == file.index)
        }
    }

    @Test func oneControllerPacketsTakeTheirDirectionFromThePseudoHeader() throws {
        let path = try Self.savefile(
            linkType: 201,
            [
                (Self.t0, Self.h4(false, LiveSourceTests.reset)),
                (Self.t0 + 10, Self.h4(true, LiveSourceTests.resetComplete)),
                (Self.t0 + 20, Self.h4(false, LiveSourceTests.notification)),
            ])
        let source = try Self.liveSource(path)
        #expect(source.linkType == 201)
        let (records, fault) = collect(source)
        #expect(fault == nil)
        #expect(records.map(\.kind) == [.command, .event, .acl])
        // The ACL packet here went out (direction word 0), whatever its kind suggests.
        #expect(records.map(\.direction) == [.sent, .received, .sent])
        #expect(records.map(\.bytes) == LiveH4StreamTests.expected.map(\.1))
        #expect(records.map(\.originalLength) == [3, 6, 14])
    }

    @Test func aShortPacketIsADecodeErrorNamingTheSourceAfterTheGoodOnes() throws {
        let path = try Self.savefile(
            linkType: 254, [(Self.t0, Self.monitor(0, 2, [0x03, 0x0C, 0x00])), (Self.t0 + 1, [0x00, 0x01])])
        let (records, fault) = collect(try Self.liveSource(path))
        #expect(records.count == 1)
        let error = try #require(fault as? DecodeError)
        #expect(error.file == path)
        #expect(error.recordIndex == 1)
        #expect(error.expected.contains("4-byte Linux monitor header"))
    }

    @Test func anotherLinkTypeIsRefusedByName() throws {
        let path = try Self.savefile(linkType: 256, [])
        let error = try #require(throws: CaptureError.self) { try LivePcapHandle(savefile: path) }
        #expect(
            "\(error)".contains(
                "link type 256 (BLUETOOTH_LE_LL_WITH_PHDR) is an over-the-air link-layer sniffer capture"))
    }

    @Test func aDeviceLibpcapDoesNotKnowIsAClearError() throws {
        let error = try #require(throws: CaptureError.self) { try LivePcapHandle(device: "nosuchdevice0") }
        #expect("\(error)".hasPrefix("nosuchdevice0: libpcap cannot capture from it: "))
    }
}
#endif
