import Wire

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

        /// `expected.flow:7: app connect … @<=1.0: came 1.914000 s after the previous expected event`.
        public var message: String {
            let bound = [within.map { "@<=\($0)" }, after.map { "@>=\($0)" }].compactMap { $0 }.joined(separator: " ")
            let when =
                // To the microsecond, not as a report's duration: it is checked against a bound
                // written to the microsecond.
                interval.map { "came \(Wording.sixDecimals($0)) s after the previous expected event" }
                ?? "has no time to check"
            return "\(expected.signature) \(bound): \(when)"
        }
    }

    /// The comparison of one peripheral's events (or of the whole flow).
    public struct Section: Hashable, Sendable {
        /// The peripheral compared, when the flows were compared peripheral by peripheral.
        public var peripheral: String?
        /// The line-up of the section's expected and actual events.
        public var diff: FlowDiff
        /// The timing assertions (`@<=`, `@>=`) its matched events break, in order.
        public var timing: [TimingFailure]
        /// True when the section was too large to line up (more than ``FlowComparison/largestAlignment``
        /// cells): the verdict holds, no difference is shown.
        public var unaligned = false

        /// True when the section's events line up and its timing assertions hold.
        public var isEqual: Bool { diff.isEqual && timing.isEmpty }
    }

    /// One section for the whole flow, or one per peripheral (sorted by address) when compared
    /// peripheral by peripheral.
    public var sections: [Section]
    /// Whether the expectation was a pattern (``FlowExpectation/isPattern``).
    public var isPattern: Bool
    /// How the comparison was made (``Interleave/peripheral`` when it has a section per peripheral).
    public var interleave: Interleave

    /// True when every section matches and every timing assertion holds.
    public var isEqual: Bool { sections.allSatisfy(\.isEqual) }
    /// Events of the expected and the actual flow.
    public var expectedCount: Int
    /// Events of the actual flow.
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

    /// Compares `actual` with `expected` in memory. `interleave` nil chooses: `.peripheral`
    /// when the expected flow names several peripherals, else `.none`.
    public init(
        expected: FlowExpectation, actual: Flow, interleave: Interleave? = nil, context: Int = 2,
        limit: Int = FlowDiff.defaultLimit,
        cells: Int = largestAlignment
    ) {
        if !expected.isPattern {
            self = Self.exact(
                expected: expected, actual: actual, interleave: interleave, context: context, limit: limit)
            return
        }
        var index = 0
        self = Self.compare(
            expected: expected, interleave: interleave, context: context, limit: limit, cells: cells,
            actualKeys: { Set(actual.events.compactMap(Self.peripheral)) },
            events: {
                defer { index += 1 }
                return index < actual.events.count ? (actual.events[index], index) : nil
            },
            rewind: { index = 0 }, event: { actual.events[$0] })
    }

    /// Compares the flow `actual` reads with `expected`, reading it as a stream (twice when
    /// compared peripheral by peripheral: once for its peripherals).
    public static func compare(
        expected: FlowExpectation, actual: FlowReader, interleave: Interleave? = nil, context: Int = 2,
        limit: Int = FlowDiff.defaultLimit, cells: Int = largestAlignment
    ) throws(FlowError) -> FlowComparison {
        var fault: FlowError?
        let unreadable = FlowEvent(time: nil, actor: "?", name: "(the line could not be read again)")
        func next() -> (FlowEvent, Int)? {
            guard fault == nil else { return nil }
            do throws(FlowError) {
                guard let located = try actual.next() else { return nil }
                return (located.event, Int(located.offset))
            } catch {
                fault = error
                return nil
            }
        }
        let comparison = Self.compare(
            expected: expected, interleave: interleave, context: context, limit: limit, cells: cells,
            actualKeys: {
                var keys = Set<String>()
                while let (event, _) = next() { if let key = peripheral(event) { keys.insert(key) } }
                return keys
            },
            events: next,
            rewind: {
                do throws(FlowError) { try actual.rewind() } catch { fault = error }
            },
            event: { actual.event(at: Int64($0)) ?? unreadable })
        if let fault { throw fault }
        return comparison
    }

    /// The comparison over a stream of actual events (each with a reference to read it again).
    static func compare(
        expected: FlowExpectation, interleave: Interleave?, context: Int, limit: Int, cells: Int,
        actualKeys: () -> Set<String>, events: () -> (FlowEvent, Int)?, rewind: () -> Void, event: (Int) -> FlowEvent
    ) -> FlowComparison {
        let keys = Set(expected.events.compactMap(Self.peripheral))
        var mode = interleave ?? (keys.count >= 2 ? .peripheral : .none)
        var all: [String] = []
        if mode == .peripheral {
            all = keys.union(actualKeys()).sorted()
            rewind()
            if all.count < 2 { mode = .none }
        }
        var matchers: [FlowPatternMatcher]
        var byKey: [String: Int] = [:]
        if mode == .none || all.count < 2 {
            matchers = [
                FlowPatternMatcher(
                    peripheral: nil, patterns: expected.patterns, gapAfter: expected.gapAfter, cells: cells)
            ]
        } else {
            matchers = all.map { key in
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
                return FlowPatternMatcher(
                    peripheral: key, patterns: patterns, gapAfter: expected.gapAfter || gap, cells: cells)
            }
            for (index, key) in all.enumerated() { byKey[key] = index }
        }
        var total = 0
        while let (actual, reference) = events() {
            total += 1
            if matchers.count == 1 {
                matchers[0].add(actual, reference: reference)
            } else if let key = Self.peripheral(actual), let index = byKey[key] {
                matchers[index].add(actual, reference: reference)
            } else {
                for index in matchers.indices { matchers[index].add(actual, reference: reference) }
            }
        }
        return FlowComparison(
            sections: matchers.map { $0.section(actualEvent: event, context: context, limit: limit) },
            isPattern: expected.isPattern,
            interleave: matchers.count > 1 ? .peripheral : .none, expectedCount: expected.patterns.count,
            actualCount: total)
    }

    /// An exact expectation, aligned with Myers' algorithm as a whole or peripheral by peripheral.
    static func exact(expected: FlowExpectation, actual: Flow, interleave: Interleave?, context: Int, limit: Int)
        -> FlowComparison
    {
        let keys = Set(expected.events.compactMap(Self.peripheral))
        let all = keys.union(actual.events.compactMap(Self.peripheral)).sorted()
        let mode = interleave ?? (keys.count >= 2 ? .peripheral : .none)
        func section(_ key: String?, _ patterns: [FlowExpectation.Pattern], _ events: [FlowEvent]) -> Section {
            var diff = FlowDiff(
                expected: Flow(events: patterns.map(\.event)), actual: Flow(events: events), context: context,
                limit: limit)
            if let first = diff.firstDivergence {
                diff.firstDivergence =
                    first < patterns.count ? patterns[first].index : (patterns.last.map { $0.index + 1 } ?? 0)
            }
            return Section(peripheral: key, diff: diff, timing: [])
        }
        let sections: [Section]
        if mode == .none || all.count < 2 {
            sections = [section(nil, expected.patterns, actual.events)]
        } else {
            // Each peripheral's events and those of none, in one pass over each flow (a filter per
            // peripheral made a flow of 400 peripherals cost 400 passes).
            let byKey = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($0.element, $0.offset) })
            func split<Item>(_ items: [Item], _ event: (Item) -> FlowEvent) -> [[Item]] {
                var parts = [[Item]](repeating: [], count: all.count)
                for item in items {
                    if let key = Self.peripheral(event(item)), let index = byKey[key] {
                        parts[index].append(item)
                    } else {
                        for index in parts.indices { parts[index].append(item) }
                    }
                }
                return parts
            }
            let patterns = split(expected.patterns, \.event)
            let events = split(actual.events) { $0 }
            sections = all.indices.map { section(all[$0], patterns[$0], events[$0]) }
        }
        return FlowComparison(
            sections: sections, isPattern: false, interleave: sections.count > 1 ? .peripheral : .none,
            expectedCount: expected.patterns.count, actualCount: actual.events.count)
    }

    init(sections: [Section], isPattern: Bool, interleave: Interleave, expectedCount: Int, actualCount: Int) {
        self.sections = sections
        self.isPattern = isPattern
        self.interleave = interleave
        self.expectedCount = expectedCount
        self.actualCount = actualCount
    }

    /// The peripheral an event belongs to: its `peripheral=` argument, unless that is a wildcard.
    static func peripheral(_ event: FlowEvent) -> String? {
        guard let value = event.argument("peripheral"), !value.utf8.contains(UInt8(ascii: "*")) else { return nil }
        return value
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
                text +=
                    "every expected event is in the actual flow, in order: to accept the others, add `# match: in-order` to \(expectedName), or `...` lines where they may come\n"
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
            if section.unaligned {
                text +=
                    "flows differ: \(section.diff.expectedCount) expected × \(section.diff.actualCount) actual events are too many to line up, so no difference is shown\n"
            } else if !section.diff.isEqual {
                text += section.diff.report(expectedName: expectedName, actualName: actualName)
            }
            for failure in section.timing {
                text +=
                    "timing: \(expectedName)\(failure.expected.lineNumber.map { ":\($0)" } ?? ""): \(failure.message)\n"
            }
        }
        return text
    }
}
