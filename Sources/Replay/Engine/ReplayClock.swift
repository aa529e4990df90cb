import Foundation

/// The capture's clock, for app code that takes an injected `Clock` (as pointfreeco/swift-clocks
/// popularised): `try await clock.sleep(for: .seconds(1))` wakes when the replay reaches one
/// second of capture time later.
///
/// In a virtual replay the engine moves it from one event of the capture to the next and wakes
/// each sleep at its moment, between the capture's events, in deadline order (ties in the order
/// the sleeps began). A sleep is resumed by the replay's own thread, so the woken task's job goes
/// to the replay's executor (`ReplayExecutor`) and runs before the replay moves on: the replay
/// knows when every woken task has reached its next suspension, where swift-clocks' `TestClock`
/// (used here before) can only yield to them a number of times (`advance` is `async` and ends
/// with `Task.megaYield()`), which is why this clock is not a `TestClock`.
///
/// In a real-time replay (``ReplayEngine/Pacing/realtime``) a sleep is a sleep on the continuous
/// clock until the same moment in wall time.
package final class ReplayClock: Clock, @unchecked Sendable {
    package typealias Duration = Swift.Duration

    /// A moment of the capture: how long after its first record.
    package struct Instant: InstantProtocol, Hashable, Sendable {
        package var offset: Swift.Duration
        package init(offset: Swift.Duration = .zero) { self.offset = offset }
        package func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Swift.Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var id: Int
        var continuation: UnsafeContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current = Instant()
    private var sleepers: [Sleeper] = []
    private var nextID = 0
    /// Sleeps cancelled before they were registered.
    private var cancelled: Set<Int> = []
    /// In a real-time replay: the sleeps in progress.
    private var realTimeSleeps: [(deadline: Instant, id: Int)] = []
    /// In a real-time replay: the wall-clock moment of the capture's start.
    private var wallStart: ContinuousClock.Instant?

    package init() {}

    package var now: Instant {
        lock.withLock {
            guard let wallStart else { return current }
            return Instant(offset: ContinuousClock.now - wallStart)
        }
    }

    package var minimumResolution: Swift.Duration { .microseconds(1) }

    package func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        if let wallStart = lock.withLock({ wallStart }) {
            // The replay waits for the earliest of these before it ends.
            let id = lock.withLock {
                nextID += 1
                realTimeSleeps.append((deadline, nextID))
                return nextID
            }
            defer { lock.withLock { realTimeSleeps.removeAll { $0.id == id } } }
            return try await Task.sleep(until: wallStart + deadline.offset, clock: .continuous)
        }
        try Task.checkCancellation()
        let id: Int? = lock.withLock {
            guard deadline > current else { return nil }
            nextID += 1
            return nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                let wasCancelled = lock.withLock {
                    if cancelled.remove(id) != nil { return true }
                    sleepers.append(Sleeper(deadline: deadline, id: id, continuation: continuation))
                    return false
                }
                if wasCancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper: Sleeper? = lock.withLock {
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else {
                    cancelled.insert(id)
                    return nil
                }
                return sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Whether the app was given the clock (the engine moves it only then, so that apps that
    /// never use it pay nothing). Set once, by the replay's own thread, when the app takes the
    /// clock from its launch; read by that thread only.
    private(set) nonisolated(unsafe) var isInUse = false

    /// The app took the clock.
    func handOut() -> ReplayClock {
        isInUse = true
        return self
    }

    /// Makes the clock follow wall time from `start` (a real-time replay).
    func followWallTime(from start: ContinuousClock.Instant) {
        lock.withLock { wallStart = start }
    }

    /// The earliest deadline of a sleep in progress, if any.
    var earliestDeadline: Instant? {
        lock.withLock {
            wallStart == nil ? sleepers.lazy.map(\.deadline).min() : realTimeSleeps.lazy.map(\.deadline).min()
        }
    }

    /// Moves the clock to `instant` (never back).
    func move(to instant: Instant) {
        lock.withLock { current = max(current, instant) }
    }

    /// Moves the clock to `instant` and resumes the sleeps due by then, earliest first (ties in
    /// the order they began), from the calling thread: the replay's.
    func wake(at instant: Instant) {
        let due: [Sleeper] = lock.withLock {
            current = max(current, instant)
            let due = sleepers.filter { $0.deadline <= current }
            sleepers.removeAll { $0.deadline <= current }
            return due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Forgets the sleeps in progress without ending them: their tasks belong to a process that
    /// was terminated, and never run again.
    func abandonSleeps() {
        lock.withLock { sleepers.removeAll() }
    }

    /// How long after the clock's start (the capture's first record) `instant` is.
    static func offset(of instant: Instant) -> Swift.Duration { instant.offset }
}
