import Foundation
import TestSupport
import Testing
import TraceFiles
import Wire

@testable import Lifecycle

/// The quick path (``CaptureAnalyzer``: ``TraceDecoder/decode(_:into:)`` and the analyzers' `add`
/// of a ``QuickRecord``) against the full decoding of every record fed to ``LifecycleAnalyzer``
/// and ``ErrorCollector``: the same lifecycles, errors and fault, on every capture and on
/// damaged ones.
@Suite struct CaptureAnalyzerTests {
    struct Outcome: Equatable {
        var report: LifecycleReport
        var errors: [TraceError]
        var fault: String?
        var records: Int
    }

    /// The full decoding of every record, through `next()`.
    static func full(_ path: String) throws -> Outcome {
        let reader = try CaptureReader(path: path)
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        var collector = ErrorCollector()
        var records = 0
        var fault: String?
        do {
            while let record = try reader.next() {
                let decoded = decoder.decode(record)
                analyzer.add(record, decoded)
                collector.add(record, decoded, analyzer: analyzer)
                records += 1
            }
        } catch { fault = "\(error)" }
        return Outcome(report: analyzer.report, errors: collector.errors, fault: fault, records: records)
    }

    /// CaptureAnalyzer through `forEach`; also counts the records that took the quick path.
    static func quick(_ path: String) throws -> (Outcome, quick: Int) {
        try analyzed(path, diagnosing: true).outcome
    }

    /// The same, with the analysis.
    static func analyzed(_ path: String, diagnosing: Bool) throws -> (
        outcome: (Outcome, quick: Int), analysis: CaptureAnalyzer
    ) {
        let reader = try CaptureReader(path: path)
        var analysis = CaptureAnalyzer(diagnosing: diagnosing)
        var records = 0
        var quick = 0
        var fault: String?
        do {
            try reader.forEach { record in
                if analysis.add(record) != nil { quick += 1 }
                records += 1
            }
        } catch { fault = "\(error)" }
        return (
            (
                Outcome(
                    report: analysis.lifecycle.report, errors: analysis.errors.errors, fault: fault, records: records),
                quick
            ), analysis
        )
    }

    @Test func givesTheLifecyclesErrorsAndFaultOfTheFullDecodingOnEveryCapture() throws {
        Fixtures.noteSharedSkipped(
            "CaptureAnalyzerTests.givesTheLifecyclesErrorsAndFaultOfTheFullDecodingOnEveryCapture")
        var quickRecords = 0
        for path in try Fixtures.allReadableCaptures() {
            let expected = try Self.full(path)
            let (outcome, quick) = try Self.quick(path)
            #expect(outcome == expected, "\(path)")
            quickRecords += quick
        }
        // The path is taken, not only correct when skipped (on ours alone, about 1,000 records).
        #expect(quickRecords > (Fixtures.shared != nil ? 10_000 : 500))
    }

    /// Without the diagnosis (`bletrace stats`, `errors`): the same lifecycles, errors and fault
    /// on every capture, no finding, and nothing gathered for diagnose.
    @Test func givesTheSameLifecyclesAndErrorsWithoutTheDiagnosis() throws {
        Fixtures.noteSharedSkipped("CaptureAnalyzerTests.givesTheSameLifecyclesAndErrorsWithoutTheDiagnosis")
        var findings = 0
        for path in try Fixtures.allReadableCaptures() {
            let (diagnosed, with) = try Self.analyzed(path, diagnosing: true)
            let (plain, without) = try Self.analyzed(path, diagnosing: false)
            #expect(plain.0 == diagnosed.0, "\(path)")
            #expect(plain.quick == diagnosed.quick, "\(path)")
            #expect(without.findings.isEmpty, "\(path)")
            #expect(
                (0..<without.lifecycle.connections.count).allSatisfy { without.diagnosis.links[$0] == nil }, "\(path)")
            findings += with.findings.count
        }
        // The captures have findings when diagnosed: the comparison is not of two empty lists.
        #expect(findings > 100)
    }

    // Packets of the crafted capture below (H4, without the btsnoop record header).
    // LE Connection Complete, handle 0x40
    static let connect = "04 3e13 01 00 4000 00 00 010203040506 2800 0000 f401 00"
    static func acl(_ handle: UInt16, boundary: UInt8 = 0b10, _ data: String) -> String {
        let bytes = Wire.bytes(hex: data)!
        let word = handle | UInt16(boundary) << 12
        return "02"
            + [UInt8(word & 0xFF), UInt8(word >> 8), UInt8(bytes.count & 0xFF), UInt8(bytes.count >> 8)]
            .withUnsafeBytes(\.hexString) + data
    }

    /// Each case: a record or a few, after an LE connection on handle 0x40; `quick` says how many
    /// of them take the quick path.
    static let cases: [(name: String, packets: [(received: Bool, hex: String)], quick: Int)] = [
        ("notification", [(true, acl(0x40, "0700 0400 1b 2a00 01020304"))], 1),
        ("write command", [(false, acl(0x40, "0500 0400 52 2a00 0102"))], 1),
        // A value a Client Characteristic Configuration takes may turn notifications on: the full path.
        ("write command of a CCCD value", [(false, acl(0x40, "0500 0400 52 2a00 0100"))], 0),
        (
            "read request and response",
            [(false, acl(0x40, "0300 0400 0a 2a00")), (true, acl(0x40, "0300 0400 0b 0102"))], 2
        ),
        ("empty read response", [(false, acl(0x40, "0300 0400 0a 2a00")), (true, acl(0x40, "0100 0400 0b"))], 2),
        ("read request one byte too long (a fault)", [(false, acl(0x40, "0400 0400 0a 2a00 ff"))], 0),
        ("notification without its handle (a fault)", [(true, acl(0x40, "0200 0400 1b 2a"))], 0),
        (
            "notification in two fragments",
            [(true, acl(0x40, "0700 0400 1b 2a")), (true, acl(0x40, boundary: 0b01, "00 01020304"))], 2
        ),
        (
            "a new start while a frame is gathered (lost fragments)",
            [(true, acl(0x40, "0700 0400 1b 2a")), (true, acl(0x40, "0300 0400 1b 2a00"))], 1
        ),
        ("a continuation with nothing to continue", [(true, acl(0x40, boundary: 0b01, "00 01020304"))], 0),
        (
            "a fragment gathered on the other direction only",
            [(false, acl(0x40, "0700 0400 52 2a")), (true, acl(0x40, "0300 0400 1b 2a00"))], 2
        ),
        ("Android's debug handle", [(true, acl(0x0EDC, "0300 0400 1b 2a00"))], 0),
        ("an unknown connection handle", [(true, acl(0x55, "0300 0400 1b 2a00"))], 1),
        ("bytes past the L2CAP frame", [(true, acl(0x40, "0300 0400 1b 2a00 eeee"))], 1),
        ("ACL length past the record (a fault)", [(true, "02 4020 0900 0300 0400 1b 2a00")], 0),
        ("another channel", [(true, acl(0x40, "0300 0500 1b 2a00"))], 0),
        (
            "a Read Response answering discovery (a damaged capture)",
            [(false, acl(0x40, "0500 0400 04 0100 ffff")), (true, acl(0x40, "0300 0400 0b 0102"))], 1
        ),
        (
            "an Error Response",
            [(false, acl(0x40, "0300 0400 0a 2a00")), (true, acl(0x40, "0500 0400 01 0a 2a00 02"))], 1
        ),
        ("Number Of Completed Packets", [(true, "04 13 05 01 4000 0100")], 1),
        ("an Encryption Change", [(true, "04 08 04 00 4000 01")], 1),
        ("an event shorter than its length (a fault)", [(true, "04 13 05 01 4000")], 0),
        (
            "a disconnection and the handle reused",
            [(true, "04 05 04 00 4000 13"), (true, connect), (true, acl(0x40, "0300 0400 1b 2a00"))], 1
        ),
    ]

    @Test(arguments: cases.indices)
    func takesTheQuickPathWhereItMayAndGivesTheSameResult(_ index: Int) throws {
        let (name, packets, quick) = Self.cases[index]
        let records = [(received: true, hex: Self.connect)] + packets
        var bytes = Array("btsnoop\0".utf8) + be32(1) + be32(1002)
        for (offset, record) in records.enumerated() {
            let packet = Wire.bytes(hex: record.hex)!
            bytes += be32(UInt32(packet.count)) + be32(UInt32(packet.count)) + be32(record.received ? 1 : 0) + be32(0)
            bytes += be64(0x00DC_DDB3_0F2F_8000 + Int64(offset) * 1000)
            bytes += packet
        }
        let path = try Fixtures.temporaryFile(bytes, name: "case.btsnoop")
        let expected = try Self.full(path)
        let (outcome, taken) = try Self.quick(path)
        #expect(outcome == expected, "\(name)")
        #expect(taken == quick, "\(name)")
        #expect(outcome.records == records.count, "\(name)")
    }

    @Test func givesTheSameResultOnDamagedCopiesOfTheBundledCaptures() throws {
        // Seeded damage (bytes changed, records dropped, duplicated, turned round, cut short, ACL
        // flags and L2CAP headers changed), 24 copies of each btsnoop capture in Captures/.
        let captures = try Fixtures.allReadableCaptures().filter { $0.hasSuffix(".btsnoop") && Fixtures.isOurs($0) }
        var generator = SeededGenerator(seed: 15)
        var compared = 0
        for path in captures {
            let original = try Fixtures.contents(path)
            guard original.count > 16, Array(original[12..<16]) == be32(1002) else { continue }
            var records: [[UInt8]] = []
            var position = 16
            while position + 24 <= original.count {
                // (The included length is the header's second word.)
                let length =
                    Int(original[position + 4]) << 24 | Int(original[position + 5]) << 16
                    | Int(original[position + 6]) << 8 | Int(original[position + 7])
                guard position + 24 + length <= original.count else { break }
                records.append(Array(original[position..<position + 24 + length]))
                position += 24 + length
            }
            guard records.count > 4 else { continue }
            for _ in 0..<24 {
                var damaged = records
                for _ in 0..<max(2, damaged.count / 20) {
                    let at = Int(generator.next() % UInt64(damaged.count))
                    var record = damaged[at]
                    switch generator.next() % 6 {
                    case 0 where record.count > 25:
                        record[25 + Int(generator.next() % UInt64(record.count - 25))] = UInt8(
                            truncatingIfNeeded: generator.next())
                    case 1 where damaged.count > 2: damaged.remove(at: at); continue
                    case 2: damaged.insert(record, at: at); continue
                    case 3: record[11] ^= 1  // direction
                    case 4 where record.count > 26 && record[24] == 0x02:  // packet boundary flags
                        record[26] = (record[26] & 0xCF) | UInt8(generator.next() % 4) << 4
                    case 5 where record.count > 30:  // L2CAP length or channel
                        record[29 + Int(generator.next() % 2)] = UInt8(truncatingIfNeeded: generator.next())
                    default: break
                    }
                    damaged[at] = record
                }
                let file = try Fixtures.temporaryFile(
                    Array(original[0..<16]) + damaged.flatMap { $0 }, name: "damaged.btsnoop")
                let expected = try Self.full(file)
                let (outcome, _) = try Self.quick(file)
                #expect(outcome == expected, "\(path), damaged copy")
                compared += 1
            }
        }
        #expect(compared >= 100)
    }
}

func be32(_ value: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
func be64(_ value: Int64) -> [UInt8] {
    (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (8 * UInt64($0))) }
}
