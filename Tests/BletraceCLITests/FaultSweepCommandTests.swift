import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `bletrace replay --inject` and `--sweep faults` (issue 42): the one line a team puts in CI,
/// its reports, its exit status, and its reproducers.
@Suite struct FaultSweepCommandTests {
    static let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")

    @Test func theSweepFailsTheBuggyAppAndPassesTheFixedOne() throws {
        let fragile = try bletrace("replay", Self.capture, "--app", "fragile-setup", "--sweep", "faults", "--quiet")
        #expect(fragile.status == 1, "\(fragile.stderr)")
        #expect(fragile.stdout.contains("most serious first:"))
        #expect(fragile.stdout.contains("reproduce: bletrace replay \(Self.capture) --app fragile-setup --inject "))
        let steadfast = try bletrace("replay", Self.capture, "--app", "steadfast", "--sweep", "faults", "--quiet")
        #expect(steadfast.status == 0, "\(steadfast.stdout)")
        #expect(steadfast.stdout.hasSuffix("the app survives every fault\n"))
    }

    @Test func eachReproducerReplaysItsFaultAlone() throws {
        let sweep = try bletrace(
            "replay", Self.capture, "--app", "fragile-setup", "--sweep", "link-loss,timeout", "--format", "json")
        #expect(sweep.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(sweep.stdout.utf8)) as? [String: Any])
        let runs = try #require(document["runs"] as? [[String: Any]])
        #expect(document["families"] as? [String] == ["link-loss", "timeout"])
        let failing = runs.filter { $0["survived"] as? Bool == false }
        #expect(document["failing"] as? Int == failing.count)
        let first = try #require(failing.first)
        let reproduce = try #require(first["reproduce"] as? String)
        let fault = try #require(first["fault"] as? String)
        #expect(reproduce.hasSuffix("--inject \(fault)"))
        // The command line, run: the flow says the fault happened, and diverges where the
        // sweep said.
        let arguments = Array(reproduce.split(separator: " ").dropFirst().map(String.init))
        let replay = try bletrace(arguments)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.contains("# fault \(fault)"))
        #expect(replay.stdout.contains("--inject \(fault)"), "the header names the fault")
        let divergence = try #require(first["divergence"] as? [String: Any])
        let lines = try #require(divergence["lines"] as? [String])
        #expect(lines.contains { $0.hasPrefix("+ ") || $0.hasPrefix("- ") })
        for line in lines where !line.hasPrefix("- ") {
            #expect(replay.stdout.contains(String(line.dropFirst(2))), "\(line)")
        }
    }

    @Test func junitHasOneTestCasePerFaultAndPoint() throws {
        let result = try bletrace(
            "replay", Self.capture, "--app", "fragile-setup", "--sweep", "link-loss,att-error", "--format", "junit")
        #expect(result.status == 1)
        let json = try bletrace(
            "replay", Self.capture, "--app", "fragile-setup", "--sweep", "link-loss,att-error", "--format", "json")
        let runs = try #require(
            (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["runs"]
                as? [[String: Any]])
        final class Counter: NSObject, XMLParserDelegate {
            var cases: [String] = []
            var failures = 0
            var suites = 0
            func parser(
                _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String]
            ) {
                if name == "testcase" { cases.append(attributes["name"] ?? "") }
                if name == "failure" { failures += 1 }
                if name == "testsuite" { suites += 1 }
            }
        }
        let parser = XMLParser(data: Data(result.stdout.utf8))
        let counter = Counter()
        parser.delegate = counter
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(counter.suites == 2)
        #expect(counter.cases == runs.map { $0["fault"] as! String })
        #expect(counter.failures == runs.count { $0["survived"] as? Bool == false })
    }

    @Test func aPatternEveryRunMustMatch() throws {
        let pattern = FileManager.default.temporaryDirectory.appendingPathComponent("subscribed-\(UUID()).flow")
        try
            "...\nperipheral didUpdateNotificationStateFor peripheral=F0:F1:F2:F3:F4:05 characteristic=2A37 isNotifying=true error=nil\n...\n"
            .write(to: pattern, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: pattern) }
        let fragile = try bletrace(
            "replay", Self.capture, "--app", "fragile-setup", "--sweep", "link-loss", "--expect", pattern.path)
        #expect(fragile.status == 1)
        #expect(fragile.stdout.contains("(no-reconnect, expect)"), "\(fragile.stdout)")
    }

    @Test func anInjectedFaultShowsInTheFlow() throws {
        let result = try bletrace(
            "replay", Self.capture, "--app", "steadfast", "--inject", "link-loss:0x13@2.5", "--inject", "reset@5")
        #expect(result.status == 0)
        #expect(
            result.stdout.contains(
                "+2.500000 central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBError.peripheralDisconnected"
            ))
        #expect(result.stdout.contains("+5.000000 system reset"))
        let frame = try bletrace("replay", Self.capture, "--app", "steadfast", "--inject", "link-loss@frame:999999")
        #expect(frame.status == 2)
        #expect(frame.stderr.contains("frames, not 999999"))
    }

    @Test(arguments: [
        (["--inject", "nonsense@1"], "no fault named"), (["--inject", "reset"], "KIND@POINT"),
        (["--sweep", "link-loss,nonsense"], "sweep"),
        (["--sweep", "faults", "--inject", "reset@1"], "--inject replays one fault"),
        (["--sweep", "terminate", "--points", "3"], "--points chooses a fault sweep's points"),
        (["--sweep", "terminate", "--format", "junit"], "--format junit is a fault sweep's"),
        (["--expect", "x.flow"], "--expect is the pattern"),
        (["--sweep", "faults", "--points", "0"], "--points takes 1 or more"),
    ])
    func badCombinationsAreRefused(_ arguments: [String], _ message: String) throws {
        let result = try bletrace(["replay", Self.capture, "--app", "steadfast"] + arguments)
        #expect(result.status == 64 || result.status == 2, "\(result.status)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
