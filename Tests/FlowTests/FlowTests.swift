import Testing
import Wire

@testable import Flow

@Suite struct FlowTests {
    static let text = """
        # bletrace flow 1
        # a comment
        +0.000000 system launch app=reconnecting
        +0.250000 central didConnect peripheral=F0:F1:F2:F3:F4:05

        central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBError.connectionTimeout
        """

    @Test func parsesEventsWithAndWithoutTimesAndKeepsComments() throws {
        let flow = try Flow(parsing: Self.text)
        #expect(flow.events.count == 3)
        #expect(flow.comments == ["a comment"])
        #expect(flow.events[1].time == 0.25)
        #expect(flow.events[2].time == nil)
        #expect(flow.events[2].actor == "central")
        #expect(flow.events[2].name == "didDisconnectPeripheral")
        #expect(flow.events[2].argument("error") == "CBError.connectionTimeout")
        #expect(flow.events[2].lineNumber == 6)
    }

    @Test func rendersWhatItParses() throws {
        let flow = try Flow(parsing: Self.text)
        #expect(try Flow(parsing: flow.text).events.map(\.signature) == flow.events.map(\.signature))
        #expect(flow.events[1].line == "+0.250000 central didConnect peripheral=F0:F1:F2:F3:F4:05")
    }

    @Test(arguments: [
        ("central", 1, 1, "an event name after the actor `central`, as in `central didConnect peripheral=…`"),
        ("+x central didConnect", 1, 1, "a time in seconds such as +1.250000 or -0.500000, not `+x`"),
        (
            "# c\ncentral didConnect peripheral", 2, 20,
            "an argument KEY=VALUE after the event name `didConnect`, not `peripheral`"
        ),
        ("central didConnect =v", 1, 20, "an argument KEY=VALUE after the event name `didConnect`, not `=v`"),
    ])
    func reportsTheLineColumnAndWhatWasExpected(text: String, line: Int, column: Int, expected: String) {
        #expect(throws: FlowError(source: "t.flow", line: line, column: column, expected: expected)) {
            try Flow(parsing: text, source: "t.flow")
        }
    }

    @Test func formatsSecondsWithSixDecimals() {
        #expect(Wording.sixDecimals(0) == "0.000000")
        #expect(Wording.sixDecimals(1.5) == "1.500000")
        #expect(Wording.sixDecimals(12.0000004) == "12.000000")
        #expect(Wording.sixDecimals(0.680858) == "0.680858")
    }
}

@Suite struct FlowDiffTests {
    func flow(_ lines: String...) throws -> Flow { try Flow(parsing: lines.joined(separator: "\n")) }

    @Test func equalFlowsIgnoreTimesAndComments() throws {
        let expected = try flow("# hand-written", "app connect peripheral=A", "central didConnect peripheral=A")
        let actual = try flow("+0.000000 app connect peripheral=A", "+1.000000 central didConnect peripheral=A")
        let diff = FlowDiff(expected: expected, actual: actual)
        #expect(diff.isEqual)
        #expect(diff.firstDivergence == nil)
        #expect(diff.report(expectedName: "e", actualName: "a") == "flows are equal (2 events)\n")
    }

    @Test func aChangedArgumentIsOneMissingAndOneUnexpectedLineAtTheDivergence() throws {
        let expected = try flow(
            "app connect peripheral=A", "central didConnect peripheral=A",
            "central didDisconnectPeripheral peripheral=A error=CBError.connectionTimeout", "app connect peripheral=A")
        let actual = try flow(
            "app connect peripheral=A", "central didConnect peripheral=A",
            "central didDisconnectPeripheral peripheral=A error=nil")
        let diff = FlowDiff(expected: expected, actual: actual)
        #expect(!diff.isEqual)
        #expect(diff.firstDivergence == 2)
        let report = diff.report(expectedName: "expected.flow", actualName: "actual.flow")
        #expect(report.contains("first difference at expected event 3"))
        #expect(report.contains("- central didDisconnectPeripheral peripheral=A error=CBError.connectionTimeout\n"))
        #expect(report.contains("+ central didDisconnectPeripheral peripheral=A error=nil\n"))
        #expect(report.contains("- app connect peripheral=A\n"))
        #expect(report.contains("  central didConnect peripheral=A\n"))
        #expect(report.hasSuffix("2 missing, 1 unexpected\n"))
    }

    @Test func anExtraEventAtTheEndIsUnexpected() throws {
        let diff = FlowDiff(
            expected: try flow("app connect peripheral=A"),
            actual: try flow("app connect peripheral=A", "app connect peripheral=B"))
        guard diff.lines.count == 2, case .same(let kept) = diff.lines[0], case .unexpected(let extra) = diff.lines[1]
        else {
            Issue.record("expected one unchanged and one unexpected line, got \(diff.lines)")
            return
        }
        #expect(kept.argument("peripheral") == "A")
        #expect(extra.argument("peripheral") == "B")
        #expect(diff.firstDivergence == 1)
    }
}
