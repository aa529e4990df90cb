import TestSupport
import Testing
import Wire

@testable import Lifecycle

@Suite struct LifecycleSummaryTests {
    @Test(.sharedCaptures) func countsConnectionsByTransportOutcomeAndReasonOfABusyCapture() throws {
        // whoisbe-pongbot-last (the shared folder's captures/public/SOURCES.md, counted with tshark): 229 BR/EDR
        // Page Timeouts; LE disconnections 0x08 ×6, 0x16 ×3, 0x3E ×5.
        let path = Fixtures.publicCapture("whoisbe-pongbot-last.btsnoop")
        let errors = try collectErrors(path)
        let (report, _) = try LifecycleAnalyzer.analyze(path: path)
        let summary = LifecycleSummary(connections: report.connections, scans: report.scans, errors: errors)
        #expect(summary.brEdr.total == 229)
        #expect(summary.brEdr.failed == 229)
        #expect(
            summary.brEdr.failures == [
                LifecycleSummary.Count(code: 0x04, name: "Page Timeout", initiator: nil, count: 229)
            ])
        let endings = Dictionary(summary.le.disconnections.map { ($0.code, $0.count) }, uniquingKeysWith: +)
        #expect(endings == [0x08: 6, 0x16: 3, 0x3E: 5])
        #expect(
            summary.le.total == summary.le.connected + summary.le.failed + summary.le.cancelled + summary.le.pending)
        #expect(summary.scans == report.scans.count)
        #expect(summary.emptyScans == report.scans.filter { $0.reports == 0 }.count)
        #expect(summary.unexpectedErrors == errors.filter { !$0.expected }.count)
        // Peers are ordered by how often they were tried.
        let tries = summary.peers.map { $0.connections + $0.failed }
        #expect(tries == tries.sorted(by: >))
    }

    @Test(.sharedCaptures) func aFailedBrEdrAttemptHasNoCoreBluetoothError() throws {
        let (report, _) = try LifecycleAnalyzer.analyze(path: Fixtures.publicCapture("whoisbe-pongbot-last.btsnoop"))
        let classic = report.connections.filter { $0.transport == .classic }
        #expect(!classic.isEmpty)
        #expect(classic.allSatisfy { $0.cbError == nil })
        // LE failures keep theirs.
        #expect(report.connections.contains { $0.transport == .le && $0.outcome == .disconnected && $0.cbError != nil })
    }

    @Test(.sharedCaptures) func advertisedNamesLabelTheConnectionsToThatPeer() throws {
        let (report, _) = try LifecycleAnalyzer.analyze(path: Fixtures.publicCapture("whoisbe-pongbot-last.btsnoop"))
        let named = report.connections.filter { $0.peerName != nil }
        #expect(!named.isEmpty)
        let heard = Set(
            report.scans.flatMap(\.devices).compactMap { device in device.name.map { "\(device.address) \($0)" } })
        #expect(named.allSatisfy { heard.contains("\($0.peer!) \($0.peerName!)") })
    }
}

extension LifecycleSummaryTests {
    @Test func aPeerWhoseOnlyAttemptWasCancelledHasNoConnection() throws {
        // cancelled-connect: one attempt, cancelled by this host before it completed.
        let (report, _) = try LifecycleAnalyzer.analyze(path: Fixtures.capture("cancelled-connect.btsnoop"))
        let summary = LifecycleSummary(connections: report.connections, scans: report.scans, errors: [])
        #expect(summary.le.connected == 0 && summary.le.cancelled == 1)
        let peer = try #require(summary.peers.first)
        #expect(peer.connections == 0)
        #expect(peer.cancelled == 1)
    }
}
