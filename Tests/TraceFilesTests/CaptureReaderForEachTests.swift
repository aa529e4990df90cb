import Foundation
import TestSupport
import Testing
import Wire

@testable import TraceFiles

/// `CaptureReader.forEach` (records borrowed, built in place) against `next()`, and the mapped
/// window of regular files (``FileWindow``, mapped 4 MiB at a time) across its parts.
@Suite struct CaptureReaderForEachTests {
    /// Every record of `path` through `forEach`, copied out, and the error that ended it.
    func readWithForEach(_ path: String) throws -> (records: [OwnedRecord], fault: String?) {
        let reader = try CaptureReader(path: path)
        var records: [OwnedRecord] = []
        do {
            try reader.forEach { record in records.append(OwnedRecord(copy record)) }
        } catch {
            return (records, "\(error)")
        }
        return (records, nil)
    }

    @Test func handsEveryBundledAndPublicCaptureOverAsNextDoes() throws {
        Fixtures.noteSharedSkipped("CaptureReaderForEachTests.handsEveryBundledAndPublicCaptureOverAsNextDoes")
        for path in try Fixtures.allReadableCaptures() {
            let (byNext, nextFault) = try Fixtures.readAll(path)
            let (byForEach, forEachFault) = try readWithForEach(path)
            #expect(byForEach == byNext, "\(path)")
            #expect(forEachFault == nextFault.map { "\($0)" }, "\(path)")
        }
    }

    /// A btsnoop of `count` H4 ACL records of 40 to 299 bytes (so that records straddle the
    /// mapped parts' ends), each packet's bytes derived from its index.
    static func largeCapture(records count: Int) -> (bytes: [UInt8], packets: [[UInt8]]) {
        var packets: [[UInt8]] = []
        packets.reserveCapacity(count)
        for index in 0..<count {
            let length = 40 + (index * 7919) % 260
            var packet = [UInt8](repeating: 0, count: length)
            packet[0] = 0x02
            for offset in 1..<length { packet[offset] = UInt8(truncatingIfNeeded: index &* 31 &+ offset) }
            packets.append(packet)
        }
        let bytes = btsnoop(
            datalink: 1002,
            records: packets.enumerated().map {
                (flags: UInt32($0.offset & 1), time: Int64($0.offset), packet: $0.element)
            })
        return (bytes, packets)
    }

    @Test func readsAFileOfSeveralMappedPartsRecordByRecordWithRecordsAcrossTheirEnds() throws {
        // About 17 MB: four parts of 4 MiB and a tail.
        let (bytes, packets) = Self.largeCapture(records: 100_000)
        #expect(bytes.count > 4 * FileWindow.mappedPart)
        let path = try Fixtures.temporaryFile(bytes, name: "large.btsnoop")
        let reader = try CaptureReader(path: path)
        var index = 0
        var mismatches = 0
        try reader.forEach { record in
            if index >= packets.count || !record.bytes.elementsEqual(packets[index].dropFirst())
                || record.index != index
                || record.direction != (index & 1 == 0 ? .sent : .received) || record.kind != .acl
            {
                mismatches += 1
            }
            index += 1
        }
        #expect(index == packets.count)
        #expect(mismatches == 0)
    }

    @Test func reportsATruncatedLastRecordOfALargeFileAfterEveryGoodOne() throws {
        let (bytes, packets) = Self.largeCapture(records: 80_000)
        // The last record loses its last 5 bytes, as when the writer was killed.
        let path = try Fixtures.temporaryFile(Array(bytes.dropLast(5)), name: "truncated.btsnoop")
        let (records, fault) = try readWithForEach(path)
        #expect(records.count == packets.count - 1)
        let lastOffset = bytes.count - (24 + packets[packets.count - 1].count)
        let message = try #require(fault)
        #expect(message.contains("frame \(packets.count):"))
        #expect(message.contains("byte offset \(lastOffset + 24)"))
        #expect(message.contains("truncated"))
    }

    /// The next part of a file is mapped ahead and its pages mapped in on another thread
    /// (``PagePrefetcher``): the window takes each part over in turn, and every record comes
    /// whole and in order, those across the parts' ends included.
    @Test func takesOverThePartsMappedAheadWithEveryRecordInOrder() throws {
        let (bytes, packets) = Self.largeCapture(records: 100_000)
        let path = try Fixtures.temporaryFile(bytes, name: "ahead.btsnoop")
        let window = try FileWindow(path: path)
        let reader = try BTSnoopReader(window: window)
        var index = 0
        var mismatches = 0
        try reader.forEach { record in
            if index >= packets.count || !record.bytes.elementsEqual(packets[index].dropFirst())
                || record.index != index
            {
                mismatches += 1
            }
            index += 1
        }
        #expect(index == packets.count)
        #expect(mismatches == 0)
        #if os(Linux)
        // About 17 MB: the parts after the first, each taken over from the part mapped ahead.
        #expect(window.partsMappedAhead == bytes.count / FileWindow.mappedPart)
        #endif
    }

    /// Bytes whose value says where they are in the file, to check what a window shows.
    static func numbered(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 12) }
    }

    /// Fills and moves of every size, the mapped part's end and the part ahead's overlap crossed
    /// at odd places, and fills longer than the overlap (the next part is then mapped afresh):
    /// the window always shows the file's bytes at its offset.
    @Test func showsTheFilesBytesWhereverItsPartsEnd() throws {
        let bytes = Self.numbered(3 * FileWindow.mappedPart + 12_345)
        let path = try Fixtures.temporaryFile(bytes, name: "numbered.bin")
        let window = try FileWindow(path: path)
        var offset = 0
        var step = 0
        var wrong = 0
        while offset < bytes.count {
            // Mostly short reads, now and then one past the overlap, or the largest allowed.
            let wanted = [24, 1, 4_096, 70_000, 300_000, 24, 999, window.limit][step % 8]
            let have = try window.fill(wanted)
            #expect(have >= min(wanted, bytes.count - offset))
            let view = window.view(min(have, wanted))
            if !view.elementsEqual(bytes[offset..<offset + view.count]) { wrong += 1 }
            let move = min(have, [1_000_003, 24, 4_095, 69_999, 299_000, 7, 1, 500_000][step % 8])
            window.consume(move)
            offset += move
            step += 1
        }
        #expect(wrong == 0)
        #expect(try window.atEnd())
        #expect(window.fileOffset == Int64(bytes.count))
    }

    /// A file still being written is read as far as it has been written each time the window
    /// moves on, though the part mapped ahead was mapped when it was shorter.
    @Test func readsWhatWasAddedToTheFileAfterThePartAheadWasMapped() throws {
        let bytes = Self.numbered(2 * FileWindow.mappedPart + 4_096)
        let first = FileWindow.mappedPart + 100_000
        let path = try Fixtures.temporaryFile(Array(bytes[..<first]), name: "growing.bin")
        let window = try FileWindow(path: path)
        try window.fill(24)
        window.consume(1_000)
        // The rest of the file arrives while the first part is read.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes[first...]))
        try handle.close()
        var offset = 1_000
        var wrong = 0
        while try window.fill(65_564) > 0 {
            let view = window.view(min(window.available, 65_564))
            if !view.elementsEqual(bytes[offset..<offset + view.count]) { wrong += 1 }
            window.consume(view.count)
            offset += view.count
        }
        #expect(wrong == 0)
        #expect(offset == bytes.count)
    }

    @Test func reportsACorruptLengthInALaterPartAfterEveryGoodRecord() throws {
        let (bytes, packets) = Self.largeCapture(records: 80_000)
        // The record at index 60,000 (in the third part) says it includes 70,000 bytes.
        let bad = 60_000
        let offset = 16 + packets[..<bad].reduce(0) { $0 + 24 + $1.count }
        var corrupt = bytes
        corrupt.replaceSubrange((offset + 4)..<(offset + 8), with: [0x00, 0x01, 0x11, 0x70])
        #expect(offset > 2 * FileWindow.mappedPart)
        let path = try Fixtures.temporaryFile(corrupt, name: "corrupt.btsnoop")
        let (records, fault) = try readWithForEach(path)
        #expect(records.count == bad)
        #expect(records.last?.bytes == Array(packets[bad - 1].dropFirst()))
        let message = try #require(fault)
        #expect(message.contains("frame \(bad + 1):"))
        #expect(message.contains("byte offset \(offset + 4)"))
        #expect(message.contains("70000"))
    }
}
