import BLETraceCoreBluetooth
import HeapModule
import Wire

/// The replay's agenda: actions by capture time, ties in the order they were scheduled, in a
/// binary heap (swift-collections), so that scheduling and taking the next are O(log n) however
/// many events a capture holds.
///
/// Withdrawing a peripheral's actions (a cancel, a link that ended) is O(1): each action carries
/// its peripheral's generation when scheduled, and actions of an older generation are dropped when
/// they come up. Withdrawing everything an app process scheduled (its timers, the answers to its
/// requests: it was terminated) is O(1) the same way: actions carry the process they belong to,
/// or none for what the system plays whatever the app does.
struct EventQueue {
    struct Scheduled: Comparable {
        var time: Timestamp
        var sequence: Int
        var peripheral: ObjectIdentifier?
        var generation: Int
        /// The app process the action belongs to; 0 for the system's own.
        var process: Int
        var action: () -> Void

        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.time, lhs.sequence) < (rhs.time, rhs.sequence) }
        static func == (lhs: Self, rhs: Self) -> Bool { (lhs.time, lhs.sequence) == (rhs.time, rhs.sequence) }
    }

    private var heap = Heap<Scheduled>()
    private var sequence = 0
    private var generations: [ObjectIdentifier: Int] = [:]
    /// The process whose actions still run; those of earlier processes are dropped.
    private(set) var liveProcess = 1

    /// Schedules `action`; `process` is the app process it belongs to (0: the system's).
    mutating func schedule(at time: Timestamp, for peripheral: CBPeripheral?, process: Int, _ action: @escaping () -> Void) {
        sequence += 1
        let key = peripheral.map(ObjectIdentifier.init)
        heap.insert(
            Scheduled(
                time: time, sequence: sequence, peripheral: key, generation: key.map { generations[$0, default: 0] } ?? 0,
                process: process, action: action))
    }

    /// Withdraws every action of the live process and starts the next one.
    mutating func endProcess() { liveProcess += 1 }

    /// The time of the next action still due, if any.
    mutating func nextTime() -> Timestamp? {
        dropWithdrawn()
        return heap.min?.time
    }

    /// Takes the next action still due.
    mutating func popNext() -> Scheduled? {
        dropWithdrawn()
        return heap.popMin()
    }

    /// Withdraws every action scheduled so far for `peripheral`.
    mutating func withdraw(_ peripheral: CBPeripheral) {
        generations[ObjectIdentifier(peripheral), default: 0] += 1
    }

    mutating func removeAll() { heap = Heap() }

    private mutating func dropWithdrawn() {
        while let next = heap.min, isWithdrawn(next) { _ = heap.popMin() }
    }

    private func isWithdrawn(_ action: Scheduled) -> Bool {
        if action.process != 0, action.process != liveProcess { return true }
        guard let key = action.peripheral else { return false }
        return action.generation != generations[key, default: 0]
    }
}
