/// The JSON document of `bletrace replay FILE --sweep FAULTS --format json` (its contract:
/// Formats/json.md): what the app holds at the end without a fault, what that run already
/// breaks, then every fault at every point with the invariants it broke, the `--inject` that
/// replays it alone and where its flow first parts from the run without it.
package struct JSONFaultSweep: Encodable, Sendable {
    /// One broken invariant.
    package struct Failure: Encodable, Sendable {
        var invariant: String
        var message: String
        package init(invariant: String, message: String) { (self.invariant, self.message) = (invariant, message) }
    }
    /// Where a run's flow first parts from the run without a fault.
    package struct Divergence: Encodable, Sendable {
        /// 1-based, in the run without a fault.
        var event: Int
        var lines: [String]
        package init(event: Int, lines: [String]) { (self.event, self.lines) = (event, lines) }
    }
    /// One fault at one point.
    package struct Run: Encodable, Sendable {
        /// `KIND[:PARAMETER]@POINT`, as `--inject` takes it; a combination's faults with ` + `
        /// between them.
        var fault: String
        /// Each fault, as `--inject` takes it.
        var inject: [String]
        var family: String
        /// The point's time in the run without a fault, seconds after the capture's start.
        var at_s: Double
        var after: String
        var survived: Bool
        var failures: [Failure]
        /// The earlier fault whose app state this one's is identical to: not replayed.
        var same_as: String?
        /// The command line that replays this fault alone.
        var reproduce: String
        var divergence: Divergence?
        /// The fault never happened in the run (no request took it).
        var not_injected: Bool

        package init(
            fault: String, inject: [String], family: String, seconds: Double, after: String, failures: [Failure],
            sameAs: String?, reproduce: String,
            divergence: Divergence?, notInjected: Bool
        ) {
            (self.fault, self.inject, self.family, at_s, self.after) = (
                fault, inject, family, ReportJSON.seconds(seconds), after
            )
            (survived, self.failures, same_as, self.reproduce) = (failures.isEmpty, failures, sameAs, reproduce)
            (self.divergence, not_injected) = (divergence, notInjected)
        }
    }
    var version = jsonVersion
    var capture: String
    var app: String
    var families: [String]
    var reference: JSONSweep.State
    /// The invariants the run without a fault already breaks (not counted against a fault).
    var reference_failures: [Failure]
    var runs: [Run]
    /// How many runs broke an invariant.
    var failing: Int
    /// How many runs were replayed.
    var replayed: Int

    package init(
        capture: String, app: String, families: [String], reference: JSONSweep.State, referenceFailures: [Failure],
        runs: [Run], replayed: Int
    ) {
        (self.capture, self.app, self.families, self.reference) = (capture, app, families, reference)
        (reference_failures, self.runs, self.replayed) = (referenceFailures, runs, replayed)
        failing = runs.count { !$0.survived }
    }

    /// The sweep as a JUnit XML report, for CI: one test suite per family, one test case per
    /// fault and point (named by its `--inject`), a failure for each run that broke an invariant,
    /// with the invariants as its message and the reproducer and divergence as its text.
    package var junit: String {
        let escaped = Reports.xml
        let failures = runs.count { !$0.survived }
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text +=
            "<testsuites name=\"bletrace fault sweep\" tests=\"\(runs.count)\" failures=\"\(failures)\" errors=\"0\">\n"
        for family in families {
            let cases = runs.filter { $0.family == family }
            let counts =
                "tests=\"\(cases.count)\" failures=\"\(cases.count { !$0.survived })\" errors=\"0\" skipped=\"0\""
            text += "  <testsuite name=\"\(escaped(family))\" \(counts) file=\"\(escaped(capture))\">\n"
            text += "    <properties>\n"
            text += "      <property name=\"capture\" value=\"\(escaped(capture))\"/>\n"
            text += "      <property name=\"app\" value=\"\(escaped(app))\"/>\n"
            text += "    </properties>\n"
            for run in cases {
                text += "    <testcase name=\"\(escaped(run.fault))\" classname=\"bletrace.faults.\(escaped(family))\""
                guard !run.survived else {
                    text += "/>\n"
                    continue
                }
                let message = run.failures.map { "\($0.invariant): \($0.message)" }.joined(separator: "; ")
                var body =
                    "at `\(run.after)`\n" + run.failures.map(\.message).joined(separator: "\n")
                    + "\nreproduce: \(run.reproduce)"
                if let divergence = run.divergence {
                    body +=
                        "\nfirst divergence, at event \(divergence.event) of the run without the fault:\n"
                        + divergence.lines.joined(separator: "\n")
                }
                text +=
                    ">\n      <failure type=\"\(escaped(run.failures.first?.invariant ?? "failure"))\" message=\"\(escaped(message))\">"
                text += escaped(body)
                text += "</failure>\n    </testcase>\n"
            }
            text += "  </testsuite>\n"
        }
        text += "</testsuites>"
        return text
    }
}
