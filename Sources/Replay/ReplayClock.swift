import Clocks
import Foundation

/// The capture's clock, for app code that takes an injected `Clock` (as pointfreeco/swift-clocks
/// popularised): `try await clock.sleep(for: .seconds(1))` wakes when the replay reaches one
/// second of capture time later, at once in wall time.
///
/// It is swift-clocks' `TestClock`, advanced by the replay engine from one event of the capture to
/// the next; it keeps the deadlines of the sleeps in progress so that the engine can wake each at
/// its moment, between the capture's events, in order. Woken tasks run before the replay moves on
/// (the engine yields to them, as `TestClock.advance` does); tasks on the main actor run in a
/// fixed order, so their flows are the same in every run.
public final class ReplayClock: Clock, @unchecked Sendable {
    public typealias Duration = Swift.Duration
    public typealias Instant = TestClock<Swift.Duration>.Instant

    private let clock = TestClock<Swift.Duration>()
    private let lock = NSLock()
    private var deadlines: [Instant] = []

    public init() {}

    public var now: Instant { clock.now }
    public var minimumResolution: Swift.Duration { .zero }

    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        lock.withLock { deadlines.append(deadline) }
        defer { lock.withLock { if let index = deadlines.firstIndex(of: deadline) { deadlines.remove(at: index) } } }
        try await clock.sleep(until: deadline, tolerance: tolerance)
    }

    /// Whether the app was given the clock (the engine yields to the app's tasks only then, so
    /// that apps that never use it pay nothing). Set once, by the replay's own thread, when the app
    /// takes the clock from its launch; read by that thread only.
    private(set) nonisolated(unsafe) var isInUse = false

    /// The app took the clock.
    func handOut() -> ReplayClock {
        isInUse = true
        return self
    }

    /// The earliest deadline of a sleep in progress, if any.
    var earliestDeadline: Instant? { lock.withLock { deadlines.min() } }

    /// How long after the clock's start (the capture's first record) `instant` is.
    static func offset(of instant: Instant) -> Swift.Duration { Instant().duration(to: instant) }

    /// Moves the clock to `instant`, waking the sleeps due by then and letting them run.
    func advance(to instant: Instant) async {
        await clock.advance(to: instant)
    }
}
