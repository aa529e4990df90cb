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
            datalink: 1002, records: packets.enumerated().map { (flags: UInt32($0.offset & 1), time: Int64($0.offset), packet: $0.element) })
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
            if index >= packets.count || !record.bytes.elementsEqual(packets[index].dropFirst()) || record.index != index
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
}
