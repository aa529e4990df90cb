// Formats/porting.md, "CoreFoundation time": Foundation's and the standard library's clocks.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Testing

struct LinkTimer {
    /// `CFAbsoluteTimeGetCurrent()`: seconds since 1 January 2001, as the iOS 17 disconnection
    /// callback's `timestamp` counts them.
    static func now() -> CFAbsoluteTime { Date().timeIntervalSinceReferenceDate }

    /// `CACurrentMediaTime()` / `mach_absolute_time()`: a monotonic instant for measuring.
    static func instant() -> ContinuousClock.Instant { ContinuousClock.now }

    /// How long ago the link dropped, from the callback's timestamp.
    static func secondsSince(_ timestamp: CFAbsoluteTime) -> TimeInterval { now() - timestamp }
}

@Suite struct TimeWithoutCoreFoundationTests {
    @Test func theReplacementsCountAsCoreFoundationDoes() {
        let start = LinkTimer.instant()
        let reference = Date(timeIntervalSinceReferenceDate: LinkTimer.now())
        #expect(abs(reference.timeIntervalSinceNow) < 1)
        #expect(LinkTimer.secondsSince(LinkTimer.now() - 5) >= 5)
        #expect(ContinuousClock.now - start >= .zero)
    }
}
