import Foundation
import Lifecycle
import Reports
import TestSupport
import Testing

/// The story of `bletrace lifecycle`, produced by the library alone.
@Suite struct LifecycleStoryTests {
    let reconnect = Fixtures.capture("reconnect-supervision-timeout.btsnoop")

    @Test func tellsTheSupervisionTimeoutAndTheReconnection() throws {
        let analysis = try TraceAnalysis(path: reconnect)
        let lines = LifecycleStory(analysis).text.split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
        #expect(lines.first?.hasPrefix("\(analysis.lifecycle.records) records over ") == true)
        #expect(lines.contains("summary"))
        let timeouts = lines.filter { $0.contains("disconnected by the peer or the link: ") && $0.contains("(0x08)") }
        #expect(timeouts.count == analysis.lifecycle.connections.count { $0.disconnection?.reason.rawValue == 0x08 })
        #expect(!timeouts.isEmpty)
        #expect(lines.contains { $0.hasPrefix("connection 2: LE") })
        #expect(lines.last == "")
    }

    @Test func plainTextHasNoEscapesAndColourHasThem() throws {
        let analysis = try TraceAnalysis(path: reconnect)
        #expect(!LifecycleStory(analysis).text.contains("\u{1B}["))
        let coloured = LifecycleStory(analysis, style: .ansi).text
        #expect(coloured.contains("\u{1B}[1msummary\u{1B}[0m"))
        #expect(coloured.contains("\u{1B}[33m"))
    }

    @Test func briefGivesOneLinePerConnectionAfterTheSummary() throws {
        let analysis = try TraceAnalysis(path: reconnect)
        let story = LifecycleStory(report: analysis.lifecycle, summary: analysis.summary, showing: "LE", brief: true)
        let lines = story.text.split(separator: "\n").map(String.init)
        #expect(lines[1] == "showing: LE")
        #expect(lines.count { $0.hasPrefix("connection ") } == analysis.lifecycle.connections.count)
        #expect(!lines.contains { $0.contains("attempt (frame") })
    }

    @Test func anEmptyReportSaysSo() {
        let story = LifecycleStory(
            report: LifecycleReport(connections: [], firstTime: nil, lastTime: nil, records: 0),
            summary: LifecycleSummary(connections: [], scans: [], errors: []))
        #expect(story.text == "no records\n")
    }

    @Test func writesTheSameLinesItsTextHolds() throws {
        let story = LifecycleStory(try TraceAnalysis(path: Fixtures.capture("scan.btsnoop")))
        var lines: [String] = []
        story.write { lines.append($0) }
        #expect(lines.map { $0 + "\n" }.joined() == story.text)
        #expect(lines.contains { $0.hasPrefix("scan 1: legacy") })
    }
}
