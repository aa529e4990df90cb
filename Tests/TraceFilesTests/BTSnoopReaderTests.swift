import Foundation
import TestSupport
import Testing
import Wire

@testable import TraceFiles

/// A btsnoop file built by hand: header, then records of (flags, time, packet).
func btsnoop(datalink: UInt32, records: [(flags: UInt32, time: Int64, packet: [UInt8])]) -> [UInt8] {
    var bytes = Array("btsnoop\0".utf8)
    bytes += be32(1) + be32(datalink)
    for record in records {
        bytes += be32(UInt32(record.packet.count)) + be32(UInt32(record.packet.count))
        bytes += be32(record.flags) + be32(0)
        bytes += be64(record.time + BTSnoopReader.unixEpochOffset)
        bytes += record.packet
    }
    return bytes
}

func be32(_ value: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
func be64(_ value: Int64) -> [UInt8] {
    (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (8 * UInt64($0))) }
}

@Suite struct BTSnoopReaderTests {
    // Reset command (01 030c00), its Command Complete (04 0e04 01 030c 00), an ACL packet.
    static let h4Records: [(flags: UInt32, time: Int64, packet: [UInt8])] = [
        (0x02, 1_000_000, [0x01, 0x03, 0x0C, 0x00]),
        (0x03, 1_000_250, [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),
        (0x01, 1_500_000, [0x02, 0x40, 0x20, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x1E]),
    ]

    @Test func readsH4RecordsWithKindDirectionTimeAndBytesWithoutTheIndicator() throws {
        let path = try Fixtures.temporaryFile(btsnoop(datalink: 1002, records: Self.h4Records))
        let (records, fault) = try Fixtures.readAll(path)
        #expect(fault == nil)
        #expect(records.map(\.kind) == [.command, .event, .acl])
        #expect(records.map(\.direction) == [.sent, .received, .received])
        #expect(records.map(\.timestamp.microseconds) == [1_000_000, 1_000_250, 1_500_000])
        #expect(records[0].bytes == [0x03, 0x0C, 0x00])
        #expect(records[1].originalLength == 6)
        // File header 16; each record header 24, then its packet (4, 7, 10 bytes).
        let offsets: [Int64] = [16, 44, 75]
        #expect(records.map(\.fileOffset) == offsets)
    }

    @Test func takesTheKindFromTheH4ByteEvenWhenTheFlagsSayOtherwise() throws {
        // Some writers set 0x10 instead of 0x02 on commands and events.
        let path = try Fixtures.temporaryFile(
            btsnoop(
                datalink: 1002,
                records: [(0x10, 0, [0x01, 0x03, 0x0C, 0x00]), (0x11, 0, [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])]))
        let (records, _) = try Fixtures.readAll(path)
        #expect(records.map(\.kind) == [.command, .event])
    }

    @Test func readsH1WithTheKindFromTheFlags() throws {
        let path = try Fixtures.temporaryFile(
            btsnoop(
                datalink: 1001,
                records: [
                    (0x02, 0, [0x03, 0x0C, 0x00]),  // sent, command/event bit: command
                    (0x03, 0, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]),  // received + bit: event
                    (0x00, 0, [0x40, 0x00, 0x00, 0x00]),  // sent data: ACL
                ]))
        let (records, _) = try Fixtures.readAll(path)
        #expect(records.map(\.kind) == [.command, .event, .acl])
        #expect(records[0].bytes == [0x03, 0x0C, 0x00])
    }

    @Test func readsLinuxMonitorRecordsAndKeepsNotesAsText() throws {
        var logging: [UInt8] = [6, 6] + Array("btmon\0".utf8) + Array("hello\n\0".utf8)
        logging = Array(logging)
        let path = try Fixtures.temporaryFile(
            btsnoop(
                datalink: 2001,
                records: [
                    (0x0000_0002, 0, [0x03, 0x0C, 0x00]),  // index 0, opcode 2: command
                    (0x0001_0005, 0, [0x40, 0x00, 0x00, 0x00]),  // index 1, opcode 5: ACL RX
                    (0xFFFF_000C, 0, Array("Bluetooth subsystem\0".utf8)),  // system note
                    (0xFFFF_000D, 0, logging),  // user logging
                ]))
        let (records, _) = try Fixtures.readAll(path)
        #expect(records.map(\.kind) == [.command, .acl, .other, .other])
        #expect(records.map(\.direction) == [.sent, .received, nil, nil])
        #expect(records.map(\.controllerIndex) == [0, 1, 0xFFFF, 0xFFFF])
        #expect(records[2].note == "system note: Bluetooth subsystem")
        #expect(records[3].note == "btmon: hello")
    }

    @Test func keepsTimesBefore1970AsNegativeMicroseconds() throws {
        let path = try Fixtures.temporaryFile(
            btsnoop(datalink: 1002, records: [(0x02, -1_051_674_456_214, [0x01, 0x03, 0x0C, 0x00])]))
        let (records, _) = try Fixtures.readAll(path)
        #expect(records.first?.timestamp.microseconds == -1_051_674_456_214)
    }

    @Test func keepsAnUnknownH4TypeAsAnOtherRecordWithItsBytes() throws {
        let path = try Fixtures.temporaryFile(btsnoop(datalink: 1002, records: [(0, 0, [0x7F, 0xAA])]))
        let (records, fault) = try Fixtures.readAll(path)
        #expect(fault == nil)
        #expect(records.first?.kind == .other)
        #expect(records.first?.bytes == [0x7F, 0xAA])
        #expect(records.first?.note == "unknown H4 packet type 0x7f")
    }

    @Test func keepsAnEmptyH4RecordAsAnOtherRecord() throws {
        let path = try Fixtures.temporaryFile(btsnoop(datalink: 1002, records: [(0, 0, [])]))
        let (records, fault) = try Fixtures.readAll(path)
        #expect(fault == nil)
        #expect(records.first?.kind == .other && records.first?.note == "empty record")
    }

    @Test func aRecordIsPlainBytesToCopy() {
        // Readers hand one out per record: one that held a reference (such as a note as a
        // String) was copied through reference counting, a quarter of a whole-file decode.
        #expect(_isPOD(CaptureRecord.self))
    }

    @Test func readsTheBundledReconnectCapture() throws {
        let (records, fault) = try Fixtures.readAll(Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        #expect(fault == nil)
        // tshark 4.0 counts 102 frames in this file.
        #expect(records.count == 102)
        #expect(records.map(\.index) == Array(0..<102))
        #expect(zip(records, records.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
    }
}
