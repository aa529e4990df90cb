import Foundation
import TestSupport
import Testing
import Wire

@testable import TraceFiles

/// Damaged and wrong files: one clear error with file, record index and byte offset, after every
/// good record before the fault.
@Suite struct BadInputTests {
    static let good = btsnoop(datalink: 1002, records: BTSnoopReaderTests.h4Records)

    @Test func aTruncatedFinalRecordYieldsTheGoodRecordsThenSaysWhere() throws {
        // Cut the last record's packet short by 3 bytes, as when btmon is killed mid-write.
        let path = try Fixtures.temporaryFile(Array(Self.good.dropLast(3)))
        let (records, fault) = try Fixtures.readAll(path)
        #expect(records.count == 2)
        let error = try #require(fault as? DecodeError)
        #expect(error.layer == .btsnoop)
        #expect(error.recordIndex == 2)
        #expect(error.file == path)
        #expect(error.offset == 16 + 28 + 31 + 24)
        #expect(error.expected.contains("10 bytes of packet data"))
        #expect(error.description.contains("frame 3"))
    }

    @Test func aTruncatedRecordHeaderIsReportedAtItsOffset() throws {
        let path = try Fixtures.temporaryFile(Self.good + [0, 0, 0, 4, 0])
        let (records, fault) = try Fixtures.readAll(path)
        #expect(records.count == 3)
        let error = try #require(fault as? DecodeError)
        #expect(error.recordIndex == 3)
        #expect(error.offset == Self.good.count)
        #expect(error.expected.contains("24-byte record header"))
    }

    @Test func aLengthLargerThanAnyPacketIsRefusedWithoutAllocatingIt() throws {
        var bytes = btsnoop(datalink: 1002, records: [BTSnoopReaderTests.h4Records[0]])
        // Second record claims 2 GB.
        bytes +=
            be32(0x7FFF_FFFF) + be32(0x7FFF_FFFF) + be32(0) + be32(0) + be64(BTSnoopReader.unixEpochOffset) + [0x01]
        let path = try Fixtures.temporaryFile(bytes)
        let (records, fault) = try Fixtures.readAll(path)
        #expect(records.count == 1)
        let error = try #require(fault as? DecodeError)
        #expect(error.recordIndex == 1)
        #expect(error.offset == 16 + 28 + 4)
        #expect(error.expected.contains("not 2147483647"))
    }

    @Test func aLengthLargerThanTheRestOfTheFileIsTruncation() throws {
        var bytes = btsnoop(datalink: 1002, records: [BTSnoopReaderTests.h4Records[0]])
        bytes += be32(60_000) + be32(60_000) + be32(0) + be32(0) + be64(BTSnoopReader.unixEpochOffset) + [0x02, 0x00]
        let (records, fault) = try Fixtures.readAll(try Fixtures.temporaryFile(bytes))
        #expect(records.count == 1)
        let error = try #require(fault as? DecodeError)
        #expect(error.expected.contains("60000 bytes of packet data; the file ends after 2"))
    }

    @Test func anUnknownDatalinkIsNamed() throws {
        let path = try Fixtures.temporaryFile(btsnoop(datalink: 1004, records: []))
        let error = try #require(throws: DecodeError.self) { try CaptureReader(path: path) }
        #expect(error.offset == 12)
        #expect(error.expected.contains("not 1004 (HCI Serial (H5))"))
    }

    @Test func anEmptyFileIsNotACapture() throws {
        let path = try Fixtures.temporaryFile([])
        let error = try #require(throws: DecodeError.self) { try CaptureReader(path: path) }
        #expect(error.expected.contains("the file is empty"))
        #expect(error.file == path)
    }

    @Test func aShortBTSnoopHeaderSaysHowLongTheFileIs() throws {
        let path = try Fixtures.temporaryFile(Array("btsnoop\0\0\0".utf8))
        let error = try #require(throws: DecodeError.self) { try CaptureReader(path: path) }
        #expect(error.expected.contains("the file has 10 bytes"))
    }

    @Test func aDirectoryIsRefusedAsSuch() throws {
        let directory = URL(fileURLWithPath: try Fixtures.temporaryFile([1])).deletingLastPathComponent().path
        let error = try #require(throws: CaptureError.self) { try CaptureReader(path: directory) }
        #expect(error == .cannotOpen(path: directory, reason: "it is a directory, not a capture file"))
    }

    @Test func aMissingFileIsRefusedAsSuch() throws {
        let error = try #require(throws: CaptureError.self) { try CaptureReader(path: "/nonexistent/x.btsnoop") }
        #expect(error == .cannotOpen(path: "/nonexistent/x.btsnoop", reason: "no such file"))
    }

    @Test func textIsNotMistakenForACapture() throws {
        let path = try Fixtures.temporaryFile(Array("this is a README, not a capture\n".utf8))
        let error = try #require(throws: DecodeError.self) { try CaptureReader(path: path) }
        #expect(error.expected.contains("match none of them"))
    }

    @Test(.sharedCaptures) func aPacketLoggerFileWithGarbageInTheMiddleStopsThereWithTheGoodRecords() throws {
        let original = try Fixtures.contents(Fixtures.publicCapture("elkusbry-peripage.pklg"))
        let (goodRecords, _) = try Fixtures.readAll(Fixtures.publicCapture("elkusbry-peripage.pklg"))
        // Overwrite record 100's header with garbage.
        let target = goodRecords[100]
        var damaged = original
        for offset in 0..<13 { damaged[Int(target.fileOffset) + offset] = 0xEE }
        let (records, fault) = try Fixtures.readAll(try Fixtures.temporaryFile(damaged))
        #expect(records.count == 100)
        #expect(records == Array(goodRecords.prefix(100)))
        let error = try #require(fault as? DecodeError)
        #expect(error.layer == .packetLogger)
        #expect(error.recordIndex == 100)
        #expect(Int64(error.offset) == target.fileOffset)
    }

    @Test(.sharedCaptures) func aTruncatedPcapngReportsTheRecordLibpcapCouldNotRead() throws {
        let original = try Fixtures.contents(Fixtures.publicCapture("joelarula-darkelf-test1.pcapng"))
        let (records, fault) = try Fixtures.readAll(try Fixtures.temporaryFile(Array(original.dropLast(10))))
        #expect(records.count == 121)
        let error = try #require(fault as? DecodeError)
        #expect(error.layer == .pcap)
        #expect(error.recordIndex == 121)
        #expect(error.expected.contains("libpcap"))
    }
}
