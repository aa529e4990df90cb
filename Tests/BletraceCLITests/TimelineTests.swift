import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `bletrace lifecycle FILE --format svg|html`: the timeline picture.
@Suite struct TimelineTests {
    let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")

    /// What an SVG document holds, read with a real XML parser (which fails on a document that
    /// is not well-formed).
    final class Parsed: NSObject, XMLParserDelegate {
        var root: String?
        /// Every element's name and attributes, in document order.
        var elements: [(name: String, attributes: [String: String])] = []
        /// The text of each `<text>` element, with its class.
        var texts: [(cls: String?, text: String)] = []
        var titles: [String] = []
        private var current: String?
        private var currentClass: String?
        private var buffer = ""

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if root == nil { root = name }
            elements.append((name, attributes))
            current = name
            currentClass = attributes["class"]
            buffer = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { buffer += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text" { texts.append((currentClass, buffer)) }
            if name == "title" { titles.append(buffer) }
            buffer = ""
        }

        func elements(classed cls: String) -> Int { elements.filter { $0.attributes["class"] == cls }.count }
    }

    func parse(_ svg: String) throws -> Parsed {
        let parser = XMLParser(data: Data(svg.utf8))
        let parsed = Parsed()
        parser.delegate = parsed
        let ok = parser.parse()
        try #require(ok, "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "?")")
        return parsed
    }

    @Test func svgIsWellFormedWithALanePerConnection() throws {
        let result = try bletrace("lifecycle", capture, "--format", "svg")
        #expect(result.status == 0)
        let svg = try parse(result.stdout)
        #expect(svg.root == "svg")
        #expect(svg.elements.first?.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(svg.elements(classed: "lane connection") == 2)
        #expect(svg.elements(classed: "legend") == 1)
        // The axis has labelled ticks; each connection has its attempt and its connected bar.
        #expect(svg.texts.contains { $0.text == "0.0 s" })
        #expect(svg.elements(classed: "attempt") == 2)
        #expect(svg.elements(classed: "connected disconnected") == 2)
        #expect(svg.elements(classed: "traffic") == 2)
        #expect(svg.elements(classed: "subscription") == 2)
        #expect(svg.elements(classed: "discovery") == 1)
    }

    @Test func svgLabelsTheDisconnectionWithReasonAndInitiator() throws {
        let svg = try parse(try bletrace("lifecycle", capture, "--format", "svg").stdout)
        let labels = svg.texts.filter { $0.cls == "disconnect-label" }.map(\.text)
        #expect(labels.count == 2)
        #expect(
            labels.contains {
                $0.contains("0x08") && $0.contains("Connection Timeout") && $0.contains("by peer or link")
            })
        #expect(labels.contains { $0.contains("0x13") && $0.contains("by this host") })
        // The tooltip says what CoreBluetooth would report.
        #expect(svg.titles.contains { $0.contains("didDisconnectPeripheral") && $0.contains("connectionTimeout (6)") })
    }

    @Test func svgMarksErrorsWithTheirNames() throws {
        let svg = try parse(try bletrace("lifecycle", Fixtures.capture("att-errors.btsnoop"), "--format", "svg").stdout)
        let ticks = svg.elements.filter { $0.attributes["class"] == "error" }
        #expect(!ticks.isEmpty)
        #expect(ticks.contains { $0.attributes["stroke"] == "#d50000" })
        #expect(svg.titles.contains { $0.contains("ATT 0x") && $0.contains("answering") })
    }

    @Test func htmlWrapsTheSVGWithATitleAndATableOfConnections() throws {
        let result = try bletrace("lifecycle", capture, "--format", "html")
        #expect(result.status == 0)
        let html = result.stdout
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<h1>reconnect-supervision-timeout.btsnoop</h1>"))
        #expect(html.contains("102 records"))
        #expect(!html.contains("<script"))
        // only the SVG namespace
        #expect(!html.contains("http://") || html.components(separatedBy: "http://").count == 2)
        let start = try #require(html.range(of: "<svg"))
        let end = try #require(html.range(of: "</svg>"))
        let svg = try parse(String(html[start.lowerBound..<end.upperBound]))
        #expect(svg.elements(classed: "lane connection") == 2)
        #expect(html.contains("<table class=\"connections\">"))
        let rows = html.components(separatedBy: "<tr>").count - 1
        #expect(rows == 3)  // the header and two connections
        #expect(html.contains("<td>0x08 Connection Timeout</td>"))
        #expect(html.contains("<td>connectionTimeout (6)</td>"))
    }

    @Test(.sharedCaptures) func manyConnectionsRenderWithinBounds() throws {
        let path = Fixtures.publicCapture("whoisbe-pongbot-last.btsnoop")
        try #require(FileManager.default.fileExists(atPath: path))
        let result = try bletrace("lifecycle", path, "--format", "svg")
        #expect(result.status == 0)
        #expect(result.stdout.utf8.count < 400_000)
        let svg = try parse(result.stdout)
        let lanes = svg.elements.filter { ($0.attributes["class"] ?? "").hasPrefix("lane ") }.count
        #expect(lanes <= 62)
        #expect(svg.elements(classed: "lane connection") > 0)
        #expect(svg.elements(classed: "lane attempts") == 1)
        #expect(svg.elements(classed: "lane scans") == 1)
        // The picture says what it left out.
        #expect(svg.texts.contains { $0.cls == "lanes-capped" && $0.text.contains("278 connections") })
        let html = try bletrace("lifecycle", path, "--format", "html")
        #expect(html.status == 0)
        #expect(html.stdout.utf8.count < 1_000_000)
    }

    @Test func everyCaptureRendersAsWellFormedSVG() throws {
        Fixtures.noteSharedSkipped("TimelineTests.everyCaptureRendersAsWellFormedSVG")
        for path in try Fixtures.allReadableCaptures() {
            let result = try bletrace("lifecycle", path, "--format", "svg")
            #expect(result.status == 0 || result.status == 1, "\(path)")
            _ = try parse(result.stdout)
        }
    }

    @Test func onlyLifecycleTakesThePictureFormats() throws {
        let lifecycle = try bletrace("lifecycle", capture, "--format", "png")
        #expect(lifecycle.status == 2)
        #expect(lifecycle.stderr.contains("svg"))
        for command in ["info", "errors", "stats", "gatt", "decode"] {
            let result = try bletrace(command, capture, "--format", "svg")
            #expect(result.status == 2, "\(command)")
        }
    }
}
