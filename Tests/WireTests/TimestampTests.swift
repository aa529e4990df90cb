import Testing
import Wire

@Suite struct TimestampTests {
    @Test func microsecondsAreTheRawValue() {
        let time = Timestamp(microseconds: 1_700_000_000_123_456)
        #expect(time.rawValue == 1_700_000_000_123_456)
        #expect(time.microseconds == 1_700_000_000_123_456)
        #expect(Timestamp(rawValue: 42) == Timestamp(microseconds: 42))
    }

    @Test func secondsSinceAnOrigin() {
        let origin = Timestamp(microseconds: 1_000_000)
        #expect(Timestamp(microseconds: 2_500_000).seconds(since: origin) == 1.5)
        #expect(Timestamp(microseconds: 750_000).seconds(since: origin) == -0.25)
        #expect(origin.seconds(since: origin) == 0)
    }

    @Test func allowsTimesBefore1970() {
        let before = Timestamp(microseconds: -86_400_000_000)  // 1969-12-31
        #expect(before.seconds(since: Timestamp(microseconds: 0)) == -86_400)
        #expect(before < Timestamp(microseconds: 0))
    }

    @Test func addingMicroseconds() {
        #expect(Timestamp(microseconds: 10).adding(microseconds: 5) == Timestamp(microseconds: 15))
        #expect(Timestamp(microseconds: 10).adding(microseconds: -20) == Timestamp(microseconds: -10))
    }

    @Test func ordersByTime() {
        let times = [30, -5, 10].map { Timestamp(microseconds: $0) }
        #expect(times.sorted().map(\.microseconds) == [-5, 10, 30])
    }
}
