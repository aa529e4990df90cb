import Flow

/// `bletrace diff --format junit`: the comparison as a JUnit XML report, which CI systems show as
/// test results (validated against the Jenkins xUnit plugin's `junit-10.xsd`).
///
/// One test suite, `bletrace diff`, with one test case per section: the whole flow, or each
/// peripheral when compared peripheral by peripheral. A case that differs has a `failure` whose
/// message is the first divergence and whose text is the report.
public struct FlowComparisonJUnit {
    /// The comparison reported.
    public var comparison: FlowComparison
    /// The expected file's name, as given (it names the test cases).
    public var expected: String
    /// The actual file's name, as given.
    public var actual: String

    /// The report of `comparison` between the files `expected` and `actual`.
    public init(_ comparison: FlowComparison, expected: String, actual: String) {
        self.comparison = comparison
        self.expected = expected
        self.actual = actual
    }

    /// The XML document.
    public var xml: String {
        var text = Self.opening(
            tests: comparison.sections.count, failures: comparison.sections.count { !$0.isEqual }, errors: 0,
            expected: expected, actual: actual,
            interleave: comparison.interleave.rawValue)
        for section in comparison.sections {
            let name = expected + (section.peripheral.map { " peripheral \($0)" } ?? "")
            text += "    <testcase name=\"\(escaped(name))\" classname=\"bletrace.diff\">"
            if section.isEqual {
                text += "</testcase>\n"
                continue
            }
            var one = comparison
            one.sections = [section]
            one.sections[0].peripheral = nil
            let report = one.report(expectedName: expected, actualName: actual)
            text += "\n      <failure type=\"FlowDiff\" message=\"\(escaped(Self.firstDivergence(section)))\">"
            text += escaped(report)
            text += "</failure>\n    </testcase>\n"
        }
        text += "  </testsuite>\n</testsuites>"
        return text
    }

    /// One line: where the section first differs, and how.
    static func firstDivergence(_ section: FlowComparison.Section) -> String {
        let diff = section.diff
        guard !diff.isEqual else {
            return section.timing.first.map { "timing of expected event \($0.expectedIndex + 1): " + $0.message }
                ?? "flows differ"
        }
        var text = "first difference at expected event \((diff.firstDivergence ?? 0) + 1)"
        for line in diff.lines {
            switch line {
            case .same: continue
            case .missing(let event): text += ": missing `\(event.signature)`"
            case .unexpected(let event): text += ": unexpected `\(event.signature)`"
            }
            break
        }
        if diff.exceededLimit { return text + " (more than \(diff.limit) differences)" }
        return text + " (\(diff.missing) missing, \(diff.unexpected) unexpected)"
    }

    /// The XML document of a comparison that could not be made (a flow unreadable, a line not in
    /// the flow format): one test case in error, so that CI shows why instead of finding no report.
    public static func error(_ message: String, expected: String, actual: String) -> String {
        let escaped = Reports.xml
        var text = opening(tests: 1, failures: 0, errors: 1, expected: expected, actual: actual, interleave: nil)
        text += "    <testcase name=\"\(escaped(expected))\" classname=\"bletrace.diff\">\n"
        text += "      <error type=\"BadInput\" message=\"\(escaped(message))\">\(escaped(message))</error>\n"
        text += "    </testcase>\n  </testsuite>\n</testsuites>"
        return text
    }

    /// The document up to its test cases: the suites with their counts, the files compared.
    private static func opening(
        tests: Int, failures: Int, errors: Int, expected: String, actual: String, interleave: String?
    ) -> String {
        let escaped = Reports.xml
        let counts = "tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\""
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<testsuites name=\"bletrace diff\" \(counts)>\n"
        text += "  <testsuite name=\"bletrace diff\" \(counts) skipped=\"0\" file=\"\(escaped(expected))\">\n"
        text += "    <properties>\n"
        text += "      <property name=\"expected\" value=\"\(escaped(expected))\"/>\n"
        text += "      <property name=\"actual\" value=\"\(escaped(actual))\"/>\n"
        if let interleave { text += "      <property name=\"interleave\" value=\"\(interleave)\"/>\n" }
        text += "    </properties>\n"
        return text
    }

    private func escaped(_ text: String) -> String { Reports.xml(text) }
}
