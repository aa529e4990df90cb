import Flow

/// The JSON document of `bletrace diff --format json` (its contract: Formats/json.md): whether the
/// flows match, the first divergence first, then each differing stretch and each failed timing
/// assertion, section by section (one section per peripheral when compared peripheral by
/// peripheral).
public struct FlowComparisonJSON: Encodable {
    /// One line of a differing stretch.
    public struct LineJSON: Encodable {
        /// `same`, `missing` (expected, not in the actual flow) or `unexpected`.
        var kind: String
        var event: String
        /// Its time in the flow, in seconds (to the microsecond).
        var ts_s: Double?
        /// The line of the file it was read from.
        var line: Int?
    }
    /// One failed timing assertion.
    public struct TimingJSON: Encodable {
        var expected: String
        var line: Int?
        var actual: String
        var interval_s: Double?
        var within_s: Double?
        var after_s: Double?
        var message: String
    }
    /// The comparison of one peripheral's events, or of the whole flow.
    public struct SectionJSON: Encodable {
        var peripheral: String?
        var equal: Bool
        /// The expected event (1-based) where the section first differs.
        var first_divergence: Int?
        var missing: Int
        var unexpected: Int
        var exceeded_limit: Bool
        var hunks: [[LineJSON]]
        var timing: [TimingJSON]
    }
    /// The first difference of the first section that differs.
    public struct DivergenceJSON: Encodable {
        var peripheral: String?
        /// The expected event (1-based, as the text and JUnit number it) where the flows part.
        var expected_event: Int?
        var missing: LineJSON?
        var unexpected: LineJSON?
        var timing: TimingJSON?
    }

    var version = jsonVersion
    var expected: String
    var actual: String
    var equal: Bool
    var pattern: Bool
    var interleave: String
    var expected_events: Int
    var actual_events: Int
    var first_divergence: DivergenceJSON?
    var sections: [SectionJSON]

    /// The document of `comparison`, naming the two files as given.
    public init(_ comparison: FlowComparison, expected: String, actual: String) {
        self.expected = expected
        self.actual = actual
        equal = comparison.isEqual
        pattern = comparison.isPattern
        interleave = comparison.interleave.rawValue
        expected_events = comparison.expectedCount
        actual_events = comparison.actualCount
        func line(_ line: FlowDiff.Line) -> LineJSON {
            switch line {
            case .same(let e):
                LineJSON(kind: "same", event: e.signature, ts_s: e.time.map(ReportJSON.seconds), line: e.lineNumber)
            case .missing(let e):
                LineJSON(kind: "missing", event: e.signature, ts_s: e.time.map(ReportJSON.seconds), line: e.lineNumber)
            case .unexpected(let e):
                LineJSON(
                    kind: "unexpected", event: e.signature, ts_s: e.time.map(ReportJSON.seconds), line: e.lineNumber)
            }
        }
        func timing(_ failure: FlowComparison.TimingFailure) -> TimingJSON {
            TimingJSON(
                expected: failure.expected.signature, line: failure.expected.lineNumber,
                actual: failure.actual.signature,
                interval_s: failure.interval.map(ReportJSON.seconds), within_s: failure.within.map(ReportJSON.seconds),
                after_s: failure.after.map(ReportJSON.seconds), message: failure.message)
        }
        sections = comparison.sections.map { section in
            SectionJSON(
                peripheral: section.peripheral, equal: section.isEqual,
                first_divergence: section.diff.firstDivergence.map { $0 + 1 },
                missing: section.diff.missing, unexpected: section.diff.unexpected,
                exceeded_limit: section.diff.exceededLimit,
                hunks: section.diff.hunks.map { $0.map(line) }, timing: section.timing.map(timing))
        }
        if let section = comparison.sections.first(where: { !$0.isEqual }) {
            let changes = section.diff.lines.filter { if case .same = $0 { false } else { true } }
            let missing = changes.first { if case .missing = $0 { true } else { false } }
            let unexpected = changes.first { if case .unexpected = $0 { true } else { false } }
            first_divergence = DivergenceJSON(
                peripheral: section.peripheral,
                expected_event: (section.diff.firstDivergence ?? section.timing.first?.expectedIndex).map { $0 + 1 },
                missing: section.diff.isEqual ? nil : missing.map(line),
                unexpected: section.diff.isEqual ? nil : unexpected.map(line),
                timing: section.diff.isEqual ? section.timing.first.map(timing) : nil)
        }
    }
}
