import Foundation
import Lifecycle
import Reports
import TestSupport
import TraceFiles
import Testing
import Wire

/// The JSON documents, the error table, the GATT listing, the capture facts and the timeline,
/// produced by the library alone.
@Suite struct DocumentTests {
    let attErrors = Fixtures.capture("att-errors.btsnoop")

    func object(_ document: some Encodable) throws -> [String: Any] {
        let data = try ReportJSON.encode(document, pretty: false)
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func lifecycleDocumentCarriesTheVersionAndEveryConnection() throws {
        let analysis = try TraceAnalysis(path: attErrors)
        let json = try object(JSONLifecycle(analysis.lifecycle, summary: analysis.summary))
        #expect(json["version"] as? Int == ReportJSON.version)
        #expect((json["connections"] as? [Any])?.count == analysis.lifecycle.connections.count)
        #expect(json["records"] as? Int == analysis.lifecycle.records)
    }

    @Test func prettyAndCompactDocumentsHoldTheSameValues() throws {
        let analysis = try TraceAnalysis(path: attErrors)
        let document = JSONGATT(analysis.gatt)
        let pretty = try ReportJSON.encode(document, pretty: true)
        let compact = try ReportJSON.encode(document, pretty: false)
        #expect(pretty.count > compact.count)
        #expect(!compact.contains(UInt8(ascii: "\n")))
        let a = try JSONSerialization.jsonObject(with: pretty) as? NSDictionary
        let b = try JSONSerialization.jsonObject(with: compact) as? NSDictionary
        #expect(a == b)
    }

    @Test func errorsDocumentCountsTheUnexpectedOnes() throws {
        let analysis = try TraceAnalysis(path: attErrors)
        let json = try object(JSONErrors(analysis.errors, all: analysis.errors.map(JSONError.init)))
        #expect(json["total"] as? Int == analysis.errors.count)
        #expect(json["unexpected"] as? Int == analysis.errors.count { !$0.expected })
        let first = try #require((json["errors"] as? [[String: Any]])?.first)
        #expect(first["version"] == nil)
        #expect(first["frame"] as? Int == analysis.errors[0].record + 1)
    }

    @Test func errorTableHidesExpectedErrorsUnlessAllAreAsked() throws {
        let analysis = try TraceAnalysis(path: attErrors)
        let expected = analysis.errors.count { $0.expected }
        try #require(expected > 0)
        let origin = analysis.lifecycle.firstTime
        let some = ErrorTable(errors: analysis.errors, origin: origin).text
        let all = ErrorTable(errors: analysis.errors, origin: origin, all: true).text
        #expect(!some.contains("[expected]"))
        #expect(all.components(separatedBy: "[expected]").count - 1 == expected)
        #expect(some.contains("(\(expected) expected, not shown: --all)"))
        #expect(some.contains("CoreBluetooth: CBATTError."))
    }

    @Test func errorTableOfNoErrorsSaysSo() {
        #expect(ErrorTable(errors: [], origin: nil).text == "no errors\n\nsummary: 0 errors, 0 unexpected\n")
    }

    @Test func gattListingShowsTheHeartRateService() throws {
        let analysis = try TraceAnalysis(path: attErrors)
        let text = GATTListing(analysis.gatt).text
        #expect(text.hasPrefix("peer F0:F1:F2:F3:F4:05 — connection 1\n"))
        #expect(text.contains("\n  service 0x000e-0x0015 180D Heart Rate\n"))
        #expect(text.contains("characteristic 0x0010 "))
        #expect(GATTListing([]).text == "no GATT discovery in this capture\n")
    }

    @Test func captureInfoCountsRecordsByKind() throws {
        let reader = try CaptureReader(path: attErrors)
        var kinds: [PacketKind: Int] = [:]
        var first: Timestamp?
        var last: Timestamp?
        while let record = try reader.next() {
            kinds[record.kind, default: 0] += 1
            if first == nil { first = record.timestamp }
            last = record.timestamp
        }
        let info = CaptureInfo(file: "x.btsnoop", format: reader.format, kinds: kinds, first: first, last: last)
        let json = try object(info)
        #expect(json["records"] as? Int == kinds.values.reduce(0, +))
        #expect(json["format"] as? String == "btsnoop")
        #expect(json["error"] == nil)
        var lines: [String] = []
        info.write { lines.append($0) }
        #expect(lines.first == "file:     x.btsnoop")
        #expect(lines.count == 6)
    }

    @Test func timelineIsAnSVGDocumentAndTheHTMLPageHoldsIt() throws {
        let analysis = try TraceAnalysis(path: attErrors)
        let svg = timelineSVG(
            analysis.lifecycle, errors: analysis.errors, traffic: TrafficHistogram(), file: "dir/a<b>.btsnoop")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>"))
        #expect(svg.contains("a&lt;b&gt;.btsnoop"))
        #expect(!svg.contains("dir/"))
        let html = timelineHTML(
            analysis.lifecycle, errors: analysis.errors, traffic: TrafficHistogram(), file: "a.btsnoop")
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<svg "))
        #expect(html.contains("<table class=\"connections\">"))
    }

    @Test func formattingHelpersWriteTimesAndCodes() {
        #expect(hex(0x13, digits: 2) == "0x13")
        #expect(hex(0x40, digits: 4) == "0x0040")
        #expect(isoTime(Timestamp(microseconds: 1_250_000)) == "1970-01-01T00:00:01.250000Z")
        #expect(
            Wording.sinceStart(Timestamp(microseconds: 1_250_000), origin: Timestamp(microseconds: 0)) == "+1.250000")
        #expect(Wording.sinceStart(Timestamp(microseconds: 0), origin: Timestamp(microseconds: 1)) == "-0.000001")
    }

    @Test func relativeTimesAreSecondsWithSixDecimalsWhateverTheDistance() {
        // What the straightforward formatting gives, for times from nothing to the whole range.
        func plain(_ negative: Bool, _ magnitude: UInt64) -> String {
            let fraction = String(magnitude % 1_000_000)
            return (negative ? "-" : "+") + "\(magnitude / 1_000_000)."
                + String(repeating: "0", count: 6 - fraction.count) + fraction
        }
        let origin = Timestamp(microseconds: 0)
        for micros: Int64 in [
            0, 1, 9, 999_999, 1_000_000, 9_999_999, 10_000_000, 86_400_123_456, Int64.max, -1, -1_000_001,
            Int64.min + 1,
        ] {
            let time = Timestamp(microseconds: micros)
            #expect(Wording.sinceStart(time, origin: origin) == plain(micros < 0, micros.magnitude), "\(micros)")
        }
        #expect(
            Wording.sinceStart(Timestamp(microseconds: Int64.max), origin: Timestamp(microseconds: Int64.min))
                == "+18446744073709.551615")
    }
}
