import Testing
import Wire

@Suite struct TimestampRangeTests {
    @Test func theDistanceBetweenTheFarthestTimesIsExact() {
        let (negative, magnitude) = Timestamp(microseconds: .max).offset(since: Timestamp(microseconds: .min))
        #expect(!negative)
        #expect(magnitude == UInt64.max)
        let back = Timestamp(microseconds: .min).offset(since: Timestamp(microseconds: .max))
        #expect(back.negative && back.microseconds == UInt64.max)
        #expect(Timestamp(microseconds: 5).offset(since: Timestamp(microseconds: 5)) == (false, 0))
    }

    @Test func secondsAndMicrosecondsBeyondTheRangeClampToItsEnds() {
        #expect(Timestamp(seconds: 1, microseconds: 250_000).microseconds == 1_250_000)
        #expect(Timestamp(seconds: -1, microseconds: 500_000).microseconds == -500_000)
        #expect(Timestamp(seconds: Int64(1) << 62, microseconds: 0).microseconds == .max)
        #expect(Timestamp(seconds: -(Int64(1) << 62), microseconds: 0).microseconds == .min)
        // The earliest second that holds a time: Int64.min µs is −9,223,372,036,855 s + 224,192 µs.
        #expect(Timestamp(seconds: -9_223_372_036_855, microseconds: 224_192).microseconds == .min)
        #expect(Timestamp(seconds: 9_223_372_036_854, microseconds: 775_807).microseconds == .max)
        #expect(Timestamp(seconds: 9_223_372_036_854, microseconds: 775_808).microseconds == .max)
    }

    @Test func secondsSinceAndAddingNeverTrap() {
        #expect(Timestamp(microseconds: .max).seconds(since: Timestamp(microseconds: .min)) > 1.8e13)
        #expect(Timestamp(microseconds: .min).seconds(since: Timestamp(microseconds: .max)) < -1.8e13)
        #expect(Timestamp(microseconds: .max).microseconds(since: Timestamp(microseconds: -1)) == .max)
        #expect(Timestamp(microseconds: .min).microseconds(since: Timestamp(microseconds: 1)) == .min)
        #expect(Timestamp(microseconds: .max).adding(microseconds: 1).microseconds == .max)
        #expect(Timestamp(microseconds: .min).adding(microseconds: -1).microseconds == .min)
        #expect(Timestamp(microseconds: 0).seconds(since: Timestamp(microseconds: 1_500_000)) == -1.5)
    }
}
