/// An expected flow as people write it (Formats/flow.md, "Expected flows written by people"):
/// events, `...` lines that match any run of events, argument values with wildcards (`error=*`,
/// `value=0a*`), timing assertions (`@<=1.0`), and `# match: in-order`.
///
/// An expectation is a **pattern** when it uses any of these; a pattern passes when the actual
/// flow can be lined up with it: each expected event matches an actual one, in order, and actual
/// events are allowed between two expected events only where a `...` stands (anywhere with
/// `# match: in-order`). An expectation with none of them is compared exactly, as before.
public struct FlowExpectation: Hashable, Sendable {
    /// One expected event.
    public struct Pattern: Hashable, Sendable {
        /// The event as written, without its timing assertion.
        public var event: FlowEvent
        /// Actual events may come before this one (after the previous expected event): a `...`
        /// stands between them, or the match is in order.
        public var gapBefore: Bool
        /// `@<=S`: at most `S` seconds after the event matched by the previous expected event (the
        /// start of the replay for the first).
        public var within: Double?
        /// `@>=S`: at least `S` seconds after it.
        public var after: Double?
        /// The index of the event among the expected events (0-based).
        public var index: Int
    }

    /// The expected events, in order.
    public var patterns: [Pattern]
    /// Actual events may follow the last expected event.
    public var gapAfter: Bool
    /// `# match: in-order`.
    public var inOrder: Bool
    /// The number of `...` lines.
    public var gaps: Int

    /// True when anything but exact comparison is asked for: a `...`, a wildcard, a timing
    /// assertion, or `# match: in-order`.
    public var isPattern: Bool {
        inOrder || gaps > 0
            || patterns.contains {
                $0.within != nil || $0.after != nil || $0.event.arguments.contains { $0.value.contains("*") }
            }
    }

    /// The expected events, as written (without timing assertions).
    public var events: [FlowEvent] { patterns.map(\.event) }

    /// Reads an expectation from `reader` (as a whole: expected flows written by people are
    /// short). A timing assertion that is not `@<=SECONDS` or `@>=SECONDS` is bad input.
    public init(reading reader: FlowReader) throws(FlowError) {
        var items: [FlowReader.ItemKind] = []
        while let item = try reader.nextItem() {
            switch item {
            case .gap: items.append(.gap)
            case .event(let located): items.append(.event(located.event))
            }
        }
        try self.init(items: items, inOrder: reader.matchesInOrder, source: reader.source)
    }

    /// Parses an expectation from its text (lines end with LF, CRLF or CR), checking every
    /// event against ``FlowVocabulary`` unless `checksVocabulary` is false.
    public init(parsing text: String, source: String = "expected", checksVocabulary: Bool = true) throws(FlowError) {
        var items: [FlowReader.ItemKind] = []
        var inOrder = false
        var number = 0
        var rest = Substring(text)
        while !rest.isEmpty {
            number += 1
            let end = rest.firstIndex { $0 == "\n" || $0 == "\r" || $0 == "\r\n" } ?? rest.endIndex
            if let item = try FlowReader.interpretItem(
                String(rest[..<end]), source: source, lineNumber: number, checksVocabulary: checksVocabulary,
                inOrder: &inOrder)
            {
                items.append(item)
            }
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
        }
        try self.init(items: items, inOrder: inOrder, source: source)
    }

    init(items: [FlowReader.ItemKind], inOrder: Bool, source: String) throws(FlowError) {
        var patterns: [Pattern] = []
        var gap = false
        var gaps = 0
        for item in items {
            switch item {
            case .gap:
                gap = true
                gaps += 1
            case .event(var event):
                var within: Double?
                var after: Double?
                for argument in event.arguments where argument.key.hasPrefix("@") {
                    guard let seconds = Double(argument.value), seconds.isFinite, seconds >= 0,
                        argument.key == "@<" || argument.key == "@>"
                    else {
                        throw FlowError(
                            source: source, line: event.lineNumber ?? 0,
                            expected:
                                "a timing assertion `@<=SECONDS` or `@>=SECONDS` such as `@<=1.0`, not `\(argument.key)=\(argument.value)`"
                        )
                    }
                    if argument.key == "@<" { within = seconds } else { after = seconds }
                }
                event.arguments.removeAll { $0.key.hasPrefix("@") }
                patterns.append(
                    Pattern(event: event, gapBefore: gap, within: within, after: after, index: patterns.count))
                gap = false
            }
        }
        self.patterns = patterns
        gapAfter = gap
        self.inOrder = inOrder
        self.gaps = gaps
        if inOrder {
            for index in patterns.indices { self.patterns[index].gapBefore = true }
            gapAfter = true
        }
    }

    /// An expectation of exactly `flow`'s events.
    public init(_ flow: Flow) {
        patterns = flow.events.enumerated().map { Pattern(event: $1, gapBefore: false, index: $0) }
        gapAfter = false
        inOrder = false
        gaps = 0
    }

    /// Whether `actual` is an event that `pattern` allows: the same actor, name and argument
    /// keys in order, and each value equal, or `*` (any value), or `PREFIX*` (a value that starts
    /// with PREFIX).
    public static func matches(_ pattern: FlowEvent, _ actual: FlowEvent) -> Bool {
        guard pattern.actor == actual.actor, pattern.name == actual.name,
            pattern.arguments.count == actual.arguments.count
        else { return false }
        for (wanted, got) in zip(pattern.arguments, actual.arguments) {
            guard wanted.key == got.key else { return false }
            if wanted.value.hasSuffix("*") {
                guard got.value.hasPrefix(wanted.value.dropLast()) else { return false }
            } else if wanted.value != got.value {
                return false
            }
        }
        return true
    }
}
