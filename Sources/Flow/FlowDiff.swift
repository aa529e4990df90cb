/// Compares an expected flow with an actual one, event by event, ignoring times and comments.
///
/// The alignment is a shortest edit script (Myers' algorithm, O((N+M)·D) time for D
/// differences), after the common prefix and suffix are set aside. Memory is bounded by what a
/// comparison must keep: ``compare(expected:actual:context:limit:)`` reads two files as streams,
/// keeps 16 bytes per event after the first divergence and reads back only the events it shows.
/// Past `limit` differences the alignment stops: the report shows the first divergence and says
/// so (``exceededLimit``), rather than working for minutes on two flows that have nothing in
/// common.
public struct FlowDiff: Hashable, Sendable {
    /// One line of the comparison, in order.
    public enum Line: Hashable, Sendable {
        case same(FlowEvent)
        case missing(FlowEvent)
        case unexpected(FlowEvent)
    }

    /// The stretches that differ, each with up to `context` unchanged events either side, in
    /// order.
    public var hunks: [[Line]]
    /// Events in each flow.
    public var expectedCount: Int
    public var actualCount: Int
    /// Events of the expected flow that are missing from the actual one, and the reverse.
    public var missing: Int
    public var unexpected: Int
    /// Index (0-based, in the expected flow) of the first event where the flows part.
    public var firstDivergence: Int?
    /// True when the flows differ in more than `limit` events: only the first divergence is
    /// shown, and the counts are not known.
    public var exceededLimit: Bool
    /// The most differences aligned.
    public var limit: Int

    public var isEqual: Bool { firstDivergence == nil }

    /// Every line of every hunk, in order.
    public var lines: [Line] { hunks.flatMap { $0 } }

    /// The most differences aligned by default.
    public static let defaultLimit = 1_000

    /// Compares two flows in memory.
    public init(expected: Flow, actual: Flow, context: Int = 2, limit: Int = defaultLimit) {
        let old = expected.events.map { Self.key($0) }
        let new = actual.events.map { Self.key($0) }
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix],
            expected.events[prefix].hasSameSignature(as: actual.events[prefix])
        {
            prefix += 1
        }
        self.init(
            prefix: prefix, old: old[prefix...], new: new[prefix...], context: context, limit: limit,
            expectedEvent: { expected.events[$0] }, actualEvent: { actual.events[$0] })
    }

    /// A comparison told by its whole line-up, `steps` in order (kind 1 the same event, 2 a
    /// missing one, 3 an unexpected one, with its index in its flow), as a pattern match gives
    /// it: hunks of the differing stretches with `context` events either side, the events read
    /// through `expectedEvent` and `actualEvent` only for the lines shown. Past `limit`
    /// differences the rest is counted, not shown (``exceededLimit``).
    init(
        steps: [(UInt8, Int)], expectedEvent: (Int) -> FlowEvent, actualEvent: (Int) -> FlowEvent, expectedCount: Int,
        actualCount: Int, firstDivergence: Int?, context: Int, limit: Int
    ) {
        self.expectedCount = expectedCount
        self.actualCount = actualCount
        self.firstDivergence = firstDivergence
        self.limit = limit
        exceededLimit = false
        missing = 0
        unexpected = 0
        hunks = []
        var changed: [Int] = []
        for (index, step) in steps.enumerated() where step.0 != 1 {
            if step.0 == 2 { missing += 1 } else { unexpected += 1 }
            changed.append(index)
        }
        if changed.count > limit {
            exceededLimit = true
            changed.removeSubrange(limit...)
        }
        func line(_ step: (UInt8, Int)) -> Line {
            switch step.0 {
            case 1: .same(actualEvent(step.1))
            case 2: .missing(expectedEvent(step.1))
            default: .unexpected(actualEvent(step.1))
            }
        }
        // Each change with `context` lines around it; changes closer than twice that share a hunk.
        var hunk: [Line] = []
        var end = -1
        for index in changed {
            let start = max(0, index - context)
            if !hunk.isEmpty, start > end + 1 {
                hunks.append(hunk)
                hunk = []
            }
            let from = hunk.isEmpty ? start : end + 1
            let to = min(steps.count - 1, index + context)
            if from <= to { hunk += steps[from...to].map(line) }
            end = max(end, to)
        }
        if !hunk.isEmpty { hunks.append(hunk) }
    }

    /// Compares two flow files as streams: the common prefix is read and let go, then each
    /// remaining event is kept as a hash and the offset of its line, and the events shown are
    /// read again.
    public static func compare(expected: FlowReader, actual: FlowReader, context: Int = 2, limit: Int = defaultLimit)
        throws(FlowError) -> FlowDiff
    {
        var prefix = 0
        var old: [UInt64] = []
        var new: [UInt64] = []
        var oldOffsets: [Int64] = []
        var newOffsets: [Int64] = []
        // The last `context` events of the common prefix, for the report.
        var recent: [FlowEvent] = []
        while true {
            let e = try expected.next()
            let a = try actual.next()
            guard let e, let a, e.event.hasSameSignature(as: a.event) else {
                if let e {
                    old.append(key(e.event))
                    oldOffsets.append(e.offset)
                }
                if let a {
                    new.append(key(a.event))
                    newOffsets.append(a.offset)
                }
                break
            }
            prefix += 1
            if context > 0 {
                if recent.count == context { recent.removeFirst() }
                recent.append(a.event)
            }
        }
        while let e = try expected.next() {
            old.append(key(e.event))
            oldOffsets.append(e.offset)
        }
        while let a = try actual.next() {
            new.append(key(a.event))
            newOffsets.append(a.offset)
        }
        let unreadable = FlowEvent(time: nil, actor: "?", name: "(the line could not be read again)")
        return FlowDiff(
            prefix: prefix, old: old[...], new: new[...], context: context, limit: limit,
            expectedEvent: { index in
                index < prefix
                    ? recent[index - (prefix - recent.count)]
                    : expected.event(at: oldOffsets[index - prefix]) ?? unreadable
            },
            actualEvent: { index in
                index < prefix
                    ? recent[index - (prefix - recent.count)]
                    : actual.event(at: newOffsets[index - prefix]) ?? unreadable
            })
    }

    /// What events are compared by: a hash of the signature (seeded per process, so two
    /// different events collide with probability 2^-64 and no input can arrange it).
    static func key(_ event: FlowEvent) -> UInt64 {
        // The same as hashing the signature text: words hold no spaces, so the parts and their
        // order say as much.
        var hasher = Hasher()
        hasher.combine(event.actor)
        hasher.combine(event.name)
        hasher.combine(event.arguments.count)
        for argument in event.arguments {
            hasher.combine(argument.key)
            hasher.combine(argument.value)
        }
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// Runs of the alignment.
    enum Run: Equatable {
        case same(Int)
        case missing(Int)
        case unexpected(Int)
    }

    /// The alignment of `old` and `new` (the events after a common prefix of `prefix`), told as
    /// hunks; `expectedEvent` and `actualEvent` give an event by its index in its whole flow.
    private init(
        prefix: Int, old: ArraySlice<UInt64>, new: ArraySlice<UInt64>, context: Int, limit: Int,
        expectedEvent: (Int) -> FlowEvent, actualEvent: (Int) -> FlowEvent
    ) {
        let old = Array(old)
        let new = Array(new)
        expectedCount = prefix + old.count
        actualCount = prefix + new.count
        hunks = []
        self.limit = limit
        missing = 0
        unexpected = 0
        exceededLimit = false
        guard !old.isEmpty || !new.isEmpty else {
            firstDivergence = nil
            return
        }
        firstDivergence = prefix
        var suffix = 0
        while suffix < old.count, suffix < new.count, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] {
            suffix += 1
        }
        guard var runs = Self.align(old[..<(old.count - suffix)], new[..<(new.count - suffix)], limit: limit) else {
            // Too many differences to align: the first divergence, with its context.
            exceededLimit = true
            var hunk: [Line] = (max(0, prefix - context)..<prefix).map { .same(actualEvent($0)) }
            for index in 0..<min(old.count, context + 1) { hunk.append(.missing(expectedEvent(prefix + index))) }
            for index in 0..<min(new.count, context + 1) { hunk.append(.unexpected(actualEvent(prefix + index))) }
            hunks = [hunk]
            return
        }
        runs.insert(.same(prefix), at: 0)
        runs.append(.same(suffix))
        // Walk the runs: each change with `context` same events around it; runs of same events
        // longer than twice the context split hunks.
        var expectedIndex = 0
        var actualIndex = 0
        var hunk: [Line] = []
        for (position, run) in runs.enumerated() {
            switch run {
            case .same(let count):
                let isFirst = position == 0
                let isLast = position == runs.count - 1
                let after = isFirst ? 0 : min(count, context)
                let before = isLast ? 0 : min(count - after, context)
                for offset in 0..<after { hunk.append(.same(actualEvent(actualIndex + offset))) }
                if count > after + before || isLast, !hunk.isEmpty {
                    hunks.append(hunk)
                    hunk = []
                }
                for offset in (count - before)..<count where before > 0 {
                    hunk.append(.same(actualEvent(actualIndex + offset)))
                }
                expectedIndex += count
                actualIndex += count
            case .missing(let count):
                for offset in 0..<count { hunk.append(.missing(expectedEvent(expectedIndex + offset))) }
                missing += count
                expectedIndex += count
            case .unexpected(let count):
                for offset in 0..<count { hunk.append(.unexpected(actualEvent(actualIndex + offset))) }
                unexpected += count
                actualIndex += count
            }
        }
        if !hunk.isEmpty { hunks.append(hunk) }
    }

    /// A shortest edit script from `a` to `b` (Myers 1986, "An O(ND) Difference Algorithm and
    /// Its Variations", the greedy forward search with the furthest point kept per diagonal), as
    /// runs; nil when it needs more than `limit` insertions and deletions. Memory is O(D²) for
    /// the path back, at most about 8 MB at the default limit.
    static func align(_ a: ArraySlice<UInt64>, _ b: ArraySlice<UInt64>, limit: Int) -> [Run]? {
        let a = Array(a)
        let b = Array(b)
        let n = a.count
        let m = b.count
        if n == 0 && m == 0 { return [] }
        // At least |n − m| differences: no search can do with fewer.
        guard (n - m).magnitude <= limit else { return nil }
        let most = min(limit, n + m)
        let offset = most + 1
        var furthest = [Int](repeating: 0, count: 2 * most + 3)
        // Per step d, the furthest points of the diagonals −d…d before it.
        var trace: [[Int]] = []
        for d in 0...most {
            trace.append(Array(furthest[(offset - d)...(offset + d)]))
            for k in stride(from: -d, through: d, by: 2) {
                var x =
                    k == -d || (k != d && furthest[offset + k - 1] < furthest[offset + k + 1])
                    ? furthest[offset + k + 1] : furthest[offset + k - 1] + 1
                var y = x - k
                while x < n, y < m, a[x] == b[y] {
                    x += 1
                    y += 1
                }
                furthest[offset + k] = x
                if x >= n, y >= m {
                    return backtrack(trace, n: n, m: m, d: d)
                }
            }
        }
        return nil
    }

    /// Follows the search back from (n, m) and returns the runs in order.
    private static func backtrack(_ trace: [[Int]], n: Int, m: Int, d: Int) -> [Run] {
        var reversed: [Run] = []
        func add(_ run: Run) {
            switch (reversed.last, run) {
            case (.same(let a)?, .same(let b)): reversed[reversed.count - 1] = .same(a + b)
            case (.missing(let a)?, .missing(let b)): reversed[reversed.count - 1] = .missing(a + b)
            case (.unexpected(let a)?, .unexpected(let b)): reversed[reversed.count - 1] = .unexpected(a + b)
            default: reversed.append(run)
            }
        }
        var x = n
        var y = m
        for step in stride(from: d, to: 0, by: -1) {
            // `trace[step]` holds the diagonals −step…step as they were after step − 1.
            let before = trace[step]
            func at(_ k: Int) -> Int { before[k + step] }
            let k = x - y
            let previousK = k == -step || (k != step && at(k - 1) < at(k + 1)) ? k + 1 : k - 1
            let previousX = at(previousK)
            let previousY = previousX - previousK
            let snake = min(x - previousX - (previousK == k - 1 ? 1 : 0), y - previousY - (previousK == k + 1 ? 1 : 0))
            if snake > 0 { add(.same(snake)) }
            x -= snake
            y -= snake
            if previousK == k + 1 {
                add(.unexpected(1))
                y -= 1
            } else {
                add(.missing(1))
                x -= 1
            }
        }
        if x > 0 { add(.same(x)) }
        return reversed.reversed()
    }

    /// A readable report: the first divergence, then each differing stretch with its context.
    /// `-` lines are expected but missing, `+` lines unexpected.
    public func report(expectedName: String, actualName: String) -> String {
        guard let first = firstDivergence else {
            return "flows are equal (\(expectedCount) events)\n"
        }
        var text = "flows differ: first difference at expected event \(first + 1)\n"
        text += "--- \(expectedName) (expected)\n+++ \(actualName) (actual)\n"
        for (index, hunk) in hunks.enumerated() {
            if index > 0 { text += "  …\n" }
            for line in hunk {
                switch line {
                case .same(let event): text += "  " + event.line + "\n"
                case .missing(let event): text += "- " + event.line + "\n"
                case .unexpected(let event): text += "+ " + event.line + "\n"
                }
            }
        }
        if exceededLimit, missing + unexpected > limit {
            text += "\(missing) missing, \(unexpected) unexpected (the first \(limit) shown)\n"
        } else if exceededLimit {
            text +=
                "more than \(limit) differences after it, so the rest is not aligned (\(expectedCount) events expected, \(actualCount) actual)\n"
        } else {
            text += "\(missing) missing, \(unexpected) unexpected\n"
        }
        return text
    }
}
