/// Compares an expected flow with an actual one, event by event, ignoring times and comments.
public struct FlowDiff: Hashable, Sendable {
    /// One line of the comparison, in order.
    public enum Line: Hashable, Sendable {
        case same(FlowEvent)
        case missing(FlowEvent)
        case unexpected(FlowEvent)
    }

    public var lines: [Line]

    public var isEqual: Bool {
        lines.allSatisfy { if case .same = $0 { true } else { false } }
    }

    /// Index (0-based, in the expected flow) of the first event where the flows part.
    public var firstDivergence: Int? {
        var expectedIndex = 0
        for line in lines {
            switch line {
            case .same: expectedIndex += 1
            case .missing, .unexpected: return expectedIndex
            }
        }
        return nil
    }

    public init(expected: Flow, actual: Flow) {
        let old = expected.events.map(\.signature)
        let new = actual.events.map(\.signature)
        let difference = new.difference(from: old)
        var removed = Set<Int>()
        var inserted = Set<Int>()
        for change in difference {
            switch change {
            case .remove(let offset, _, _): removed.insert(offset)
            case .insert(let offset, _, _): inserted.insert(offset)
            }
        }
        var lines: [Line] = []
        var oldIndex = 0
        var newIndex = 0
        while oldIndex < old.count || newIndex < new.count {
            if oldIndex < old.count, removed.contains(oldIndex) {
                lines.append(.missing(expected.events[oldIndex]))
                oldIndex += 1
            } else if newIndex < new.count, inserted.contains(newIndex) {
                lines.append(.unexpected(actual.events[newIndex]))
                newIndex += 1
            } else {
                lines.append(.same(actual.events[newIndex]))
                oldIndex += 1
                newIndex += 1
            }
        }
        self.lines = lines
    }

    /// A readable report: the first divergence, then each differing stretch with `context`
    /// unchanged events around it. `-` lines are expected but missing, `+` lines unexpected.
    public func report(expectedName: String, actualName: String, context: Int = 2) -> String {
        guard let first = firstDivergence else {
            return "flows are equal (\(lines.count) events)\n"
        }
        var text = "flows differ: first difference at expected event \(first + 1)\n"
        text += "--- \(expectedName) (expected)\n+++ \(actualName) (actual)\n"
        let changed = lines.indices.filter { if case .same = lines[$0] { false } else { true } }
        var shown = Set<Int>()
        for index in changed {
            for nearby in max(0, index - context)...min(lines.count - 1, index + context) {
                shown.insert(nearby)
            }
        }
        var previous: Int?
        for index in shown.sorted() {
            if let previous, index != previous + 1 { text += "  …\n" }
            switch lines[index] {
            case .same(let event): text += "  " + event.line + "\n"
            case .missing(let event): text += "- " + event.line + "\n"
            case .unexpected(let event): text += "+ " + event.line + "\n"
            }
            previous = index
        }
        let missing = lines.filter { if case .missing = $0 { true } else { false } }.count
        let unexpected = lines.filter { if case .unexpected = $0 { true } else { false } }.count
        text += "\(missing) missing, \(unexpected) unexpected\n"
        return text
    }
}
