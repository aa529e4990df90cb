/// Lines up the actual events of one section with an expectation's patterns, an event at a time
/// (the actual flow is read as a stream: each event costs the column of the alignment table, a
/// byte per expected event, plus its time and where its line starts, and the events shown are
/// read again).
///
/// D[i][j] is the fewest differences lining up the first i expected events with the first j
/// actual ones; an actual event costs nothing where a gap (`...`, or in-order matching) stands.
/// Walking back from the end, a tie takes the actual event as left over rather than matched, so
/// that each expected event matches its earliest candidate (a `...` takes as little as it can),
/// and a missing event is shown before the unexpected one in its place.
struct FlowPatternMatcher {
    let peripheral: String?
    let patterns: [FlowExpectation.Pattern]
    let gapAfter: Bool
    /// The most table cells kept for showing the differences; past it only the verdict is known.
    let cells: Int
    private var column: [Int]
    private var next: [Int]
    /// The moves, a column of n + 1 per actual event (and one for none): 1 match, 2 missing, 3 left over.
    private var moves: [UInt8]
    private(set) var count = 0
    private var times: [Double] = []
    private var where_: [Int] = []
    /// True when the table grew past `cells`: the verdict holds, the line-up is not kept.
    private(set) var overflowed = false

    init(peripheral: String?, patterns: [FlowExpectation.Pattern], gapAfter: Bool, cells: Int) {
        self.peripheral = peripheral
        self.patterns = patterns
        self.gapAfter = gapAfter
        self.cells = cells
        let n = patterns.count
        column = Array(0...n)
        next = column
        moves = [0] + [UInt8](repeating: 2, count: n)
    }

    private func free(_ i: Int) -> Bool { i < patterns.count ? patterns[i].gapBefore : gapAfter }

    /// Adds the next actual event of this section; `reference` says where to find it again.
    mutating func add(_ event: FlowEvent, reference: Int) {
        let n = patterns.count
        next[0] = column[0] + (free(0) ? 0 : 1)
        var columnMoves = [UInt8](repeating: 3, count: n + 1)
        for i in stride(from: 1, through: n, by: 1) {
            var best = column[i] + (free(i) ? 0 : 1)
            var move: UInt8 = 3
            if column[i - 1] < best, FlowExpectation.matches(patterns[i - 1].event, event) {
                (best, move) = (column[i - 1], 1)
            }
            if next[i - 1] + 1 < best { (best, move) = (next[i - 1] + 1, 2) }
            next[i] = best
            columnMoves[i] = move
        }
        swap(&column, &next)
        count += 1
        if !overflowed, moves.count + n + 1 > cells {
            overflowed = true
            moves = []
            times = []
            where_ = []
        }
        if !overflowed {
            moves += columnMoves
            times.append(event.time ?? .nan)
            where_.append(reference)
        }
    }

    /// The fewest differences.
    var cost: Int { column[patterns.count] }

    /// The comparison of the section: its line-up told as a ``FlowDiff``, and the timing
    /// assertions it breaks. `actualEvent` reads an event again by its reference; `expectedCount`
    /// is the number of all expected events (for the first divergence of an empty section).
    func section(actualEvent: (Int) -> FlowEvent, context: Int, limit: Int) -> FlowComparison.Section {
        let n = patterns.count
        if overflowed {
            let diff = FlowDiff(
                steps: [], expectedEvent: { patterns[$0].event }, actualEvent: actualEvent, expectedCount: n,
                actualCount: count,
                firstDivergence: cost == 0 ? nil : 0, context: context, limit: limit)
            var section = FlowComparison.Section(peripheral: peripheral, diff: diff, timing: [])
            section.unaligned = cost > 0
            return section
        }
        // Back from (n, count): the line-up, as kinds and indices, in order.
        var steps: [(UInt8, Int)] = []
        var matched: [(Int, Int)] = []
        var i = n
        var j = count
        while i > 0 || j > 0 {
            switch moves[j * (n + 1) + i] {
            case 1:
                steps.append((1, j - 1))
                matched.append((i - 1, j - 1))
                i -= 1
                j -= 1
            case 2:
                steps.append((2, i - 1))
                i -= 1
            default:
                if !free(i) { steps.append((3, j - 1)) }
                j -= 1
            }
        }
        steps.reverse()
        matched.reverse()
        // The first divergence, as an index among all expected events.
        var first: Int?
        var expectedIndex = 0
        for (kind, _) in steps {
            if kind == 1 {
                expectedIndex += 1
                continue
            }
            first = expectedIndex < n ? patterns[expectedIndex].index : (patterns.last.map { $0.index + 1 } ?? 0)
            break
        }
        let timing = timingFailures(matched, actualEvent: { actualEvent(where_[$0]) })
        let diff = FlowDiff(
            steps: steps, expectedEvent: { patterns[$0].event }, actualEvent: { actualEvent(where_[$0]) },
            expectedCount: n, actualCount: count, firstDivergence: first, context: context, limit: limit)
        return FlowComparison.Section(peripheral: peripheral, diff: diff, timing: timing)
    }

    /// The timing assertions of matched expected events that the actual times break.
    private func timingFailures(_ matched: [(Int, Int)], actualEvent: (Int) -> FlowEvent) -> [FlowComparison
        .TimingFailure]
    {
        var failures: [FlowComparison.TimingFailure] = []
        var previousTime: Double? = 0
        for (p, a) in matched {
            let pattern = patterns[p]
            let time: Double? = times[a].isNaN ? nil : times[a]
            if pattern.within != nil || pattern.after != nil {
                let interval = time.flatMap { t in previousTime.map { t - $0 } }
                let fails =
                    interval.map { value in
                        (pattern.within.map { value > $0 + 1e-9 } ?? false)
                            || (pattern.after.map { value < $0 - 1e-9 } ?? false)
                    } ?? true
                if fails {
                    failures.append(
                        FlowComparison.TimingFailure(
                            expected: pattern.event, actual: actualEvent(a),
                            interval: interval.map { ($0 * 1e6).rounded() / 1e6 },
                            within: pattern.within, after: pattern.after, expectedIndex: pattern.index))
                }
            }
            previousTime = time
        }
        return failures
    }
}
