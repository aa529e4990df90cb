import Testing
import Wire

@testable import Lifecycle

/// The traffic rule's latency figures, found by selection rather than by sorting: the same values
/// as the sorted list gives at the same positions.
@Suite struct DiagnosisQuantilesTests {
    /// The figures as the rule read them before, from the sorted latencies.
    static func sortedQuantiles(_ values: [Double]) -> [Double] {
        let sorted = values.sorted()
        func at(_ q: Double) -> Double {
            sorted[min(sorted.count - 1, Int((q * Double(sorted.count - 1)).rounded(.up)))]
        }
        return [sorted[0], at(0.5), at(0.95), sorted[sorted.count - 1]]
    }

    static func quantiles(_ values: [Double]) -> [Double]? {
        DiagnosisCollector.quantiles(values).map { [$0.0, $0.1, $0.2, $0.3] }
    }

    @Test func noLatenciesHaveNoFigures() {
        #expect(DiagnosisCollector.quantiles([]) == nil)
    }

    @Test(arguments: [
        [0.030],
        [0.050, 0.010],
        [0.010, 0.010, 0.010, 0.010],  // a steady link: every answer in the same time
        [0.3, 0.1, 0.2, 0.1, 0.3, 0.2, 0.1, 0.3],
        [-0.001, 0.002, 0.001],  // out-of-order timestamps in a damaged capture
        Array(stride(from: 1.0, through: 100.0, by: 1.0)),
        Array(stride(from: 100.0, through: 1.0, by: -1.0)),
    ])
    func giveTheSortedListsValuesAtTheSamePositions(_ values: [Double]) {
        #expect(Self.quantiles(values) == Self.sortedQuantiles(values))
    }

    @Test func giveTheSortedListsValuesOnManyGeneratedLists() {
        // A fixed generator: the same lists on every run.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for _ in 0..<500 {
            let count = Int(next() % 300) + 1
            // Few distinct values in some lists (duplicates), many in others.
            let spread = [3, 50, 1_000_000][Int(next() % 3)]
            let values = (0..<count).map { _ in Double(Int(next() % UInt64(spread))) / 1000 }
            #expect(Self.quantiles(values) == Self.sortedQuantiles(values), "\(values)")
        }
    }
}

/// The latencies kept in 4 bytes each: every one read back as the `Double` that
/// `Timestamp.seconds(since:)` gives, on both sides of the 32-bit range and of zero.
@Suite struct DiagnosisLatenciesTests {
    static let start = Timestamp(microseconds: 0x00DC_DDB3_0F2F_8000)

    @Test func readsBackWhatTheTimestampsGive() {
        let offsets: [Int64] = [
            0, 1, 999_999, 1_000_000, 1_500_001, 30_000_000, -1, -1_500_001,
            Int64(Int32.max), Int64(Int32.max) + 1, Int64(Int32.min), Int64(Int32.min) - 1,
            7_200_000_000, -7_200_000_000,  // two hours either way: a damaged capture's clock
        ]
        var latencies = DiagnosisCollector.Latencies()
        #expect(latencies.isEmpty)
        var expected: [Double] = []
        for offset in offsets {
            let answer = Self.start.adding(microseconds: offset)
            latencies.append(answer, since: Self.start)
            expected.append(answer.seconds(since: Self.start))
        }
        #expect(latencies.count == offsets.count)
        #expect(!latencies.isEmpty)
        // The whole microseconds first, then those past 32 bits, each in its order.
        let fits = offsets.indices.filter { Int32(exactly: offsets[$0]) != nil }
        let longer = offsets.indices.filter { Int32(exactly: offsets[$0]) == nil }
        #expect(longer.count == 4)
        #expect(latencies.seconds == (fits + longer).map { expected[$0] })
    }

    @Test func extremesOfTheClockAreKeptApartExactly() {
        var latencies = DiagnosisCollector.Latencies()
        let early = Timestamp(microseconds: .min)
        let late = Timestamp(microseconds: .max)
        latencies.append(late, since: early)
        latencies.append(early, since: late)
        #expect(latencies.seconds == [late.seconds(since: early), early.seconds(since: late)])
    }
}
