import Foundation
import TestSupport
import Testing

@testable import Lifecycle

@Suite struct TraceAnalysisTests {
    @Test func oneCallGivesWhatEachCollectorGivesOnItsOwn() throws {
        let path = Fixtures.capture("att-errors.btsnoop")
        let analysis = try TraceAnalysis(path: path)
        let (report, fault) = try LifecycleAnalyzer.analyze(path: path)
        #expect(fault == nil && analysis.fault == nil)
        #expect(analysis.lifecycle == report)
        #expect(analysis.errors == (try collectErrors(path)))
        #expect(analysis.gatt == (try gatt(path)).filter { !$0.database.services.isEmpty })
        #expect(
            analysis.summary
                == LifecycleSummary(connections: report.connections, scans: report.scans, errors: analysis.errors))
        #expect(analysis.format.hasPrefix("btsnoop"))
        // Captures/README.md: 100 records; 11 Error Responses (opcode 0x01).
        #expect(analysis.statistics.records == 100)
        #expect(analysis.statistics.kinds.values.reduce(0, +) == 100)
        #expect(analysis.statistics.attPDUs.first { $0.code == 0x01 }?.count == 11)
        // Every Error Response is an error, counted by its code.
        #expect(analysis.statistics.errors.filter { $0.layer == "att" }.map(\.count).reduce(0, +) == 11)
        #expect(analysis.statistics.connections == report.connections.count)
    }

    @Test func aDamagedFileKeepsEverythingBeforeTheFault() throws {
        let bytes = try Fixtures.contents(Fixtures.capture("att-errors.btsnoop"))
        let cut = try Fixtures.temporaryFile(Array(bytes.dropLast(7)), name: "cut.btsnoop")
        let analysis = try TraceAnalysis(path: cut)
        #expect(analysis.fault != nil)
        #expect(analysis.statistics.records == 99)
    }

    @Test func theSummaryAndStatisticsAreCodable() throws {
        let analysis = try TraceAnalysis(path: Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        let summary = try JSONDecoder().decode(LifecycleSummary.self, from: JSONEncoder().encode(analysis.summary))
        #expect(summary == analysis.summary)
        let statistics = try JSONDecoder().decode(TraceStatistics.self, from: JSONEncoder().encode(analysis.statistics))
        #expect(statistics == analysis.statistics)
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(analysis.statistics)) as? [String: Any]
        #expect((object?["att_pdus"] as? [[String: Any]])?.isEmpty == false)
    }

    @Test(arguments: ["att-errors.btsnoop", "service-changed.btsnoop", "scan.btsnoop"])
    func aWholeAnalysisComesBackFromJSONAsItWas(_ capture: String) throws {
        let analysis = try TraceAnalysis(path: Fixtures.capture(capture))
        let data = try JSONEncoder().encode(analysis)
        #expect(try JSONDecoder().decode(TraceAnalysis.self, from: data) == analysis)
    }

    @Test(.sharedCaptures) func aBusyRealCaptureComesBackFromJSONAsItWas() throws {
        // Every kind of connection, change, scan, error and CoreBluetooth equivalent at once.
        let analysis = try TraceAnalysis(path: Fixtures.publicCapture("whoisbe-pongbot-last.btsnoop"))
        let decoded = try JSONDecoder().decode(TraceAnalysis.self, from: JSONEncoder().encode(analysis))
        #expect(decoded == analysis)
        #expect(decoded.lifecycle.connections.contains { $0.cbError?.value != nil })
        // Addresses and UUIDs are written as people read them.
        let text = String(
            decoding: try JSONEncoder().encode(analysis.lifecycle.connections.first { $0.peer != nil }), as: UTF8.self)
        #expect(text.contains(#""peer":""#) && text.contains(":"))
    }
}
