import Foundation
import Lifecycle
import TestSupport
import Testing
import TraceFiles

@testable import Reports
@testable import Wire

/// `decode`'s fast formatters (``DecodeLineFormatter``, ``DecodeJSONFormatter``,
/// ``DecodeVerboseFormatter``: bytes into a reused buffer) against the straightforward one they
/// replaced, kept as the reference: `describe(_:_:answering:origin:)` for text, ``JSONRecord``
/// through JSONEncoder for JSON (both in DecodeReference.swift), `DecodeVerboseFormatter.detail(_:_:)`
/// (``FieldPrinter``) for `-v`. Byte for byte, record by record, on every
/// bundled and public capture and on the robustness captures (extreme and backward times).
@Suite struct DecodeFormattersTests {
    static let captures: [String] = {
        let robustness = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/robustness")
        let extreme = ((try? FileManager.default.contentsOfDirectory(atPath: robustness.path)) ?? [])
            .filter { $0.hasSuffix(".btsnoop") || $0.hasSuffix(".pcapng") }
            .map { robustness.appendingPathComponent($0).path }
        return ((try? Fixtures.allReadableCaptures()) ?? ["<the captures could not be listed>"]) + extreme.sorted()
    }()

    @Test(arguments: captures)
    func writesTheReferenceBytesForEveryRecord(_ path: String) throws {
        Fixtures.noteSharedSkipped("DecodeFormattersTests.writesTheReferenceBytesForEveryRecord")
        let reader = try CaptureReader(path: path)
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        var buffer = LineBuffer()
        let encoder = ReportJSON.encoder(pretty: false)
        var origin: Timestamp?
        var records = 0
        var mismatches = 0
        while let record = try? reader.next() {
            let decoded = decoder.decode(record)
            analyzer.add(record, decoded)
            if origin == nil { origin = record.timestamp }
            let request = analyzer.lastAnswered

            DecodeLineFormatter.write(record, decoded, answering: request, origin: origin!, to: &buffer)
            let text = describe(record, decoded, answering: request, origin: origin!) + "\n"
            if buffer.bytes != Array(text.utf8) {
                mismatches += 1
                #expect(
                    String(decoding: buffer.bytes, as: UTF8.self) == text,
                    "text of record \(record.index) of \(path)")
            }
            buffer.removeAll()

            // -v: the records the fast path takes (the others are written by the reference itself).
            if DecodeVerboseFormatter.fields(record, decoded, to: &buffer) {
                let lines = DecodeVerboseFormatter.detail(record, decoded).map { $0 + "\n" }.joined()
                if buffer.bytes != Array(lines.utf8) {
                    mismatches += 1
                    #expect(
                        String(decoding: buffer.bytes, as: UTF8.self) == lines,
                        "-v lines of record \(record.index) of \(path)")
                }
                buffer.removeAll()
            }

            for version in [nil, jsonVersion] {
                DecodeJSONFormatter.write(record, decoded, answering: request, version: version, to: &buffer)
                var reference = JSONRecord(record, decoded, answering: request)
                reference.version = version
                let json = Array(try encoder.encode(reference)) + [0x0A]
                if buffer.bytes != json {
                    mismatches += 1
                    #expect(
                        String(decoding: buffer.bytes, as: UTF8.self)
                            == String(decoding: json, as: UTF8.self),
                        "JSON of record \(record.index) of \(path)")
                }
                buffer.removeAll()
            }
            records += 1
            if mismatches > 5 { break }
        }
        #expect(records > 0, "no record read from \(path)")
    }

    @Test func escapesStringsAsJSONEncoderDoes() throws {
        var every = String(decoding: Array(0..<0x80 as Range<UInt8>), as: UTF8.self)
        every += "/é✓𝄞\u{7F}\u{2028}"
        var buffer = LineBuffer()
        buffer.jsonString(every)
        #expect(buffer.bytes == Array(try ReportJSON.encoder(pretty: false).encode(every)))
    }

    @Test(arguments: [
        Int64.min, Int64.min + 1, -86_400_000_001, -1, 0, 1, 999_999, 1_000_000, 1_795_317_161_248_989, Int64.max,
    ])
    func writesTimesAndNumbersAsTheStringFunctions(_ microseconds: Int64) {
        var buffer = LineBuffer()
        for origin in [Int64.min, -1, 0, 1_795_317_161_000_000, Int64.max] {
            let (time, start) = (Timestamp(microseconds: microseconds), Timestamp(microseconds: origin))
            buffer.relativeTime(time, since: start)
            #expect(String(decoding: buffer.bytes, as: UTF8.self) == Wording.sinceStart(time, origin: start))
            buffer.removeAll()
        }
        buffer.decimal(microseconds)
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == String(microseconds))
        buffer.removeAll()
        let magnitude = microseconds.magnitude
        for digits in [2, 4, 8] {
            buffer.hex(magnitude, digits: digits)
            #expect(String(decoding: buffer.bytes, as: UTF8.self) == hex(magnitude, digits: digits))
            buffer.removeAll()
        }
        buffer.decimal(magnitude % 1_000_000_000, width: 6)
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == String(magnitude % 1_000_000_000).leftPadded(6))
    }

    @Test func writesAddressesAsBluetoothAddressPrintsThem() {
        var buffer = LineBuffer()
        for raw: UInt64 in [0, 0x0A0B_0C0D_0E0F, 0xFFFF_FFFF_FFFF, 0x1234_5678_9ABC] {
            let address = BluetoothAddress(rawValue: raw)
            buffer.address(address)
            #expect(String(decoding: buffer.bytes, as: UTF8.self) == address.description)
            buffer.removeAll()
        }
    }
}
