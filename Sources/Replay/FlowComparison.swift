/// The comparison of an expected flow with an actual one, as `bletrace diff` makes it: exact, or
/// as a pattern (``FlowExpectation``), as a whole or peripheral by peripheral when events of
/// different peripherals may interleave.
///
/// Each ``Section`` is a ``FlowDiff`` (one for the whole flow, or one per peripheral), with the
/// timing assertions that failed there.
public struct FlowComparison: Hashable, Sendable {
    /// How events of different peripherals are ordered.
    public enum Interleave: String, Hashable, Sendable, CaseIterable {
        /// The order of all events counts.
        case none
        /// Events of different peripherals (their `peripheral=` argument) may come in any order
        /// relative to each other; each peripheral's events, and events of no peripheral, keep
        /// their order.
        case peripheral
    }

    /// An expected event whose timing assertion failed.
    public struct TimingFailure: Hashable, Sendable {
        /// The expected event (its line number says where it is written).
        public var expected: FlowEvent
        /// The actual event it matched.
        public var actual: FlowEvent
        /// Seconds from the previous matched event (or the start) to this one; nil when either has
        /// no time.
        public var interval: Double?
        /// `@<=` bound, or nil.
        public var within: Double?
        /// `@>=` bound, or nil.
        public var after: Double?
        /// The index of the expected event among all expected events (0-based).
        public var expectedIndex: Int

        /// `expected.flow:7: app connect … @<=1.0: came 1.914 s after the previous event`.
        public var message: String {
            let bound = [within.map { "@<=\($0)" }, after.map { "@>=\($0)" }].compactMap { $0 }.joined(separator: " ")
            let when = interval.map { "came \(formatSeconds($0)) s after the previous expected event" } ?? "has no time to check"
            return "\(expected.signature) \(bound): \(when)"
        }
    }

    /// The comparison of one peripheral's events (or of the whole flow).
    public struct Section: Hashable, Sendable {
        /// The peripheral compared, when the flows were compared peripheral by peripheral.
        public var peripheral: String?
        public var diff: FlowDiff
        public var timing: [TimingFailure]

        public var isEqual: Bool { diff.isEqual && timing.isEmpty }
    }

    public var sections: [Section]
    /// Whether the expectation was a pattern (``FlowExpectation/isPattern``).
    public var isPattern: Bool
    public var interleave: Interleave

    public var isEqual: Bool { sections.allSatisfy(\.isEqual) }
    /// Events of the expected and the actual flow.
    public var expectedCount: Int
    public var actualCount: Int

    /// The most expected × actual events a pattern is aligned over (a table of a byte each); past
    /// it the pattern is matched greedily and only the first expected event not found is shown.
    public static let largestAlignment = 64 << 20

    /// A comparison of one exact ``FlowDiff`` (the streaming comparison of two files).
    public init(_ diff: FlowDiff) {
        sections = [Section(peripheral: nil, diff: diff, timing: [])]
        isPattern = false
        interleave = .none
        expectedCount = diff.expectedCount
        actualCount = diff.actualCount
    }

    /// Compares `actual` with `expected`. `interleave` nil chooses: `.peripheral` when the
    /// expected flow names several peripherals, else `.none`.
    public init(expected: FlowExpectation, actual: Flow, interleave: Interleave? = nil, context: Int = 2, limit: Int = FlowDiff.defaultLimit) {
        let keys = Set(expected.events.compactMap(Self.peripheral))
        let mode = interleave ?? (keys.count >= 2 ? .peripheral : .none)
        self.interleave = mode
        isPattern = expected.isPattern
        expectedCount = expected.patterns.count
        actualCount = actual.events.count
        let all = (keys.union(actual.events.compactMap(Self.peripheral))).sorted()
        if mode == .none || all.count < 2 {
            sections = [Self.section(nil, expected, Array(actual.events.enumerated()), context: context, limit: limit)]
            return
        }
        sections = all.map { key in
            // This peripheral's events and those of none; a `...` among the events left out
            // still stands between the events kept around it.
            var patterns: [FlowExpectation.Pattern] = []
            var gap = false
            for pattern in expected.patterns {
                gap = gap || pattern.gapBefore
                let owner = Self.peripheral(pattern.event)
                guard owner == nil || owner == key else { continue }
                var kept = pattern
                kept.gapBefore = gap
                patterns.append(kept)
                gap = false
            }
            var part = expected
            part.patterns = patterns
            part.gapAfter = expected.gapAfter || gap
            let events = actual.events.enumerated().filter { Self.peripheral($0.element).map { $0 == key } ?? true }
            return Self.section(key, part, events, context: context, limit: limit)
        }
    }

    /// The peripheral an event belongs to: its `peripheral=` argument, unless that is a wildcard.
    static func peripheral(_ event: FlowEvent) -> String? {
        guard let value = event.argument("peripheral"), !value.contains("*") else { return nil }
        return value
    }

    /// Compares the events of one section.
    static func section(
        _ key: String?, _ expected: FlowExpectation, _ actual: [(offset: Int, element: FlowEvent)], context: Int, limit: Int
    ) -> Section {
        if !expected.isPattern {
            let diff = FlowDiff(expected: Flow(events: expected.events), actual: Flow(events: actual.map(\.element)), context: context, limit: limit)
            return Section(peripheral: key, diff: renumbered(diff, expected), timing: [])
        }
        let patterns = expected.patterns
        let events = actual.map(\.element)
        guard patterns.count * events.count <= largestAlignment else {
            return greedy(key, expected, events, context: context)
        }
        // D[i][j]: the fewest differences lining up the expected events from i on with the actual
        // ones from j on; an actual event costs nothing where a gap stands. Filled from the end,
        // so that the walk from the start takes the earliest match where several are as good
        // (the order of a glob: a `...` matches as little as it can).
        let n = patterns.count
        let m = events.count
        let width = m + 1
        var moves = [UInt8](repeating: 0, count: (n + 1) * width)  // 1 match, 2 missing, 3 skip
        var next = [Int](repeating: 0, count: width)  // row i + 1
        var row = next
        func free(_ i: Int) -> Bool { i < n ? patterns[i].gapBefore : expected.gapAfter }
        for j in stride(from: m - 1, through: 0, by: -1) {
            next[j] = next[j + 1] + (free(n) ? 0 : 1)
            moves[n * width + j] = 3
        }
        for i in stride(from: n - 1, through: 0, by: -1) {
            row[m] = next[m] + 1
            moves[i * width + m] = 2
            let cost = free(i) ? 0 : 1
            for j in stride(from: m - 1, through: 0, by: -1) {
                var best = row[j + 1] + cost
                var move: UInt8 = 3
                if next[j] + 1 <= best { (best, move) = (next[j] + 1, 2) }
                if next[j + 1] <= best, FlowExpectation.matches(patterns[i].event, events[j]) { (best, move) = (next[j + 1], 1) }
                row[j] = best
                moves[i * width + j] = move
            }
            swap(&next, &row)
        }
        // The walk from the start: the alignment in order.
        var lines: [FlowDiff.Line] = []
        var matched: [(Int, Int)] = []
        var i = 0
        var j = 0
        while i < n || j < m {
            switch moves[i * width + j] {
            case 1:
                lines.append(.same(events[j]))
                matched.append((i, j))
                i += 1
                j += 1
            case 2:
                lines.append(.missing(patterns[i].event))
                i += 1
            default:
                if !free(i) { lines.append(.unexpected(events[j])) }
                j += 1
            }
        }
        // The first divergence, as an index among all expected events.
        var first: Int?
        var expectedIndex = 0
        for line in lines {
            switch line {
            case .same: expectedIndex += 1
            case .missing, .unexpected:
                first = expectedIndex < n ? patterns[expectedIndex].index : (patterns.last.map { $0.index + 1 } ?? 0)
            }
            if first != nil { break }
        }
        let timing = timingFailures(patterns, events, matched)
        let diff = FlowDiff(lines: lines, expectedCount: n, actualCount: m, firstDivergence: first, context: context)
        return Section(peripheral: key, diff: diff, timing: timing)
    }

    /// The timing assertions of matched expected events that the actual times break.
    static func timingFailures(_ patterns: [FlowExpectation.Pattern], _ events: [FlowEvent], _ matched: [(Int, Int)]) -> [TimingFailure] {
        var failures: [TimingFailure] = []
        var previousTime: Double? = 0
        for (p, a) in matched {
            let pattern = patterns[p]
            let time = events[a].time
            if pattern.within != nil || pattern.after != nil {
                let interval = time.flatMap { t in previousTime.map { t - $0 } }
                let fails = interval.map { value in
                    (pattern.within.map { value > $0 + 1e-9 } ?? false) || (pattern.after.map { value < $0 - 1e-9 } ?? false)
                } ?? true
                if fails {
                    failures.append(
                        TimingFailure(
                            expected: pattern.event, actual: events[a], interval: interval.map { ($0 * 1e6).rounded() / 1e6 },
                            within: pattern.within, after: pattern.after, expectedIndex: pattern.index))
                }
            }
            previousTime = time
        }
        return failures
    }

    /// A pattern too large to align: each run of expected events between gaps is looked for at
    /// the earliest place it fits; the first one not found is the divergence.
    static func greedy(_ key: String?, _ expected: FlowExpectation, _ events: [FlowEvent], context: Int) -> Section {
        let patterns = expected.patterns
        var j = 0
        var i = 0
        var matched: [(Int, Int)] = []
        while i < patterns.count {
            // The run of patterns from i to the next gap.
            var end = i + 1
            while end < patterns.count, !patterns[end].gapBefore { end += 1 }
            let run = patterns[i..<end]
            let anchored = !patterns[i].gapBefore
            var found: Int?
            var start = j
            while start + run.count <= events.count {
                if zip(run, events[start..<(start + run.count)]).allSatisfy({ FlowExpectation.matches($0.event, $1) }) {
                    found = start
                    break
                }
                if anchored { break }
                start += 1
            }
            guard let at = found else {
                let shown = events[j..<min(events.count, j + context + 1)].map { FlowDiff.Line.unexpected($0) }
                let lines = run.map { FlowDiff.Line.missing($0.event) } + (anchored ? shown : [])
                let diff = FlowDiff(lines: lines, expectedCount: patterns.count, actualCount: events.count, firstDivergence: patterns[i].index, context: context)
                return Section(peripheral: key, diff: diff, timing: [])
            }
            for offset in 0..<run.count { matched.append((i + offset, at + offset)) }
            j = at + run.count
            i = end
        }
        if j < events.count, !expected.gapAfter {
            let lines = events[j..<min(events.count, j + context + 1)].map { FlowDiff.Line.unexpected($0) }
            let diff = FlowDiff(lines: lines, expectedCount: patterns.count, actualCount: events.count, firstDivergence: patterns.count, context: context)
            return Section(peripheral: key, diff: diff, timing: [])
        }
        let timing = timingFailures(patterns, events, matched)
        let diff = FlowDiff(lines: [], expectedCount: patterns.count, actualCount: events.count, firstDivergence: nil, context: context)
        return Section(peripheral: key, diff: diff, timing: timing)
    }

    /// An exact diff of a section, its first divergence counted among all expected events.
    static func renumbered(_ diff: FlowDiff, _ expected: FlowExpectation) -> FlowDiff {
        var diff = diff
        if let first = diff.firstDivergence {
            diff.firstDivergence = first < expected.patterns.count ? expected.patterns[first].index : (expected.patterns.last.map { $0.index + 1 } ?? 0)
        }
        return diff
    }

    /// The text report: for each section that differs, its ``FlowDiff`` report (under the
    /// peripheral's name when compared peripheral by peripheral), then the timing assertions that
    /// failed.
    public func report(expectedName: String, actualName: String) -> String {
        if !isPattern, sections.count == 1, sections[0].peripheral == nil {
            let diff = sections[0].diff
            var text = diff.report(expectedName: expectedName, actualName: actualName)
            if !diff.isEqual, diff.missing == 0, !diff.exceededLimit {
                // Every expected event is there, in order: the expectation may have meant that.
                text += "every expected event is in the actual flow, in order: to accept the others, add `# match: in-order` to \(expectedName), or `...` lines where they may come\n"
            }
            return text
        }
        if isEqual {
            return "flows match (\(expectedCount) events expected, \(actualCount) actual"
                + (isPattern ? ", as a pattern" : "")
                + (interleave == .peripheral ? ", peripheral by peripheral" : "") + ")\n"
        }
        var text = ""
        if sections.allSatisfy(\.diff.isEqual) {
            text += "flows match (\(expectedCount) events expected, \(actualCount) actual), but not their timing:\n"
        }
        for section in sections where !section.isEqual {
            if let peripheral = section.peripheral { text += "peripheral \(peripheral):\n" }
            if !section.diff.isEqual {
                text += section.diff.report(expectedName: expectedName, actualName: actualName)
            }
            for failure in section.timing {
                text += "timing: \(expectedName)\(failure.expected.lineNumber.map { ":\($0)" } ?? ""): \(failure.message)\n"
            }
        }
        return text
    }
}
