import Lifecycle
import Reports
import TestSupport
import Testing
import Wire

/// The order of `bletrace diagnose`'s findings: ``Finding/inOrder(_:)`` sorts by keys, and must
/// give what sorting the findings with ``Finding/ordered(_:_:)`` gives, ties included.
@Suite struct FindingOrderTests {
    /// A finding of `rule` at `record`, told apart from others of the same rule and record by
    /// `tag` (its facts).
    static func finding(_ rule: DiagnosisRule, _ record: Int, _ tag: Int = 0, evidence: [Int] = []) -> Finding {
        Finding(
            rule: rule, record: record, time: Timestamp(microseconds: Int64(record)), evidence: evidence,
            facts: .bondNotKept(connection: tag, before: 0, bonded: nil))
    }

    /// Findings with every kind of tie: the same severity and record under different rules, and
    /// the same rule and record told apart only by their facts (kept in their order).
    static let findings: [Finding] = (0..<60).map { index in
        let rules: [DiagnosisRule] = [
            .traffic, .supervisionTimeout, .outsideDatabase, .writeRefused, .discoveryRepeated, .linkParameters,
        ]
        return finding(rules[index % rules.count], index % 7, index)
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func keysSortAsTheFindingsThemselves(_ seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let shuffled = Self.findings.shuffled(using: &generator)
        let sorted = Finding.inOrder(shuffled)
        #expect(sorted == shuffled.sorted(by: Finding.ordered))
        #expect(sorted.map(\.facts) == shuffled.sorted(by: Finding.ordered).map(\.facts))
        #expect(sorted.first?.severity == .error)
        #expect(sorted.last?.severity == .info)
    }

    @Test func findingsAlreadyInOrderAreKept() {
        let sorted = Self.findings.sorted(by: Finding.ordered)
        #expect(Finding.inOrder(sorted) == sorted)
        #expect(Finding.inOrder([]) == [])
        let one = [Self.finding(.traffic, 3)]
        #expect(Finding.inOrder(one) == one)
    }

    @Test func evidenceIsSortedWithEachRecordOnce() {
        #expect(Self.finding(.traffic, 3, evidence: [9, 3, 5, 9, 1]).evidence == [1, 3, 5, 9])
        #expect(Self.finding(.traffic, 3).evidence == [3])
        #expect(Self.finding(.traffic, 7, evidence: [7, 7]).evidence == [7])
    }
}
