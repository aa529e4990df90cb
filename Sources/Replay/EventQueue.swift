import BLETraceCoreBluetooth
import HeapModule
import Wire

/// The replay's agenda: actions by capture time, ties in the order they were scheduled, in a
/// binary heap (swift-collections), so that scheduling and taking the next are O(log n) however
/// many events a capture holds.
///
/// Withdrawing a peripheral's actions (a cancel, a link that ended) is O(1): each action carries
/// its peripheral's generation when scheduled, and actions of an older generation are dropped when
/// they come up.
struct EventQueue {
    struct Scheduled: Comparable {
        var time: Timestamp
        var sequence: Int
        var peripheral: ObjectIdentifier?
        var generation: Int
        var action: () -> Void

        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.time, lhs.sequence) < (rhs.time, rhs.sequence) }
        static func == (lhs: Self, rhs: Self) -> Bool { (lhs.time, lhs.sequence) == (rhs.time, rhs.sequence) }
    }

    private var heap = Heap<Scheduled>()
    private var sequence = 0
    private var generations: [ObjectIdentifier: Int] = [:]

    mutating func schedule(at time: Timestamp, for peripheral: CBPeripheral?, _ action: @escaping () -> Void) {
        sequence += 1
        let key = peripheral.map(ObjectIdentifier.init)
        heap.insert(Scheduled(time: time, sequence: sequence, peripheral: key, generation: key.map { generations[$0, default: 0] } ?? 0, action: action))
    }

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
        while let next = heap.min, let key = next.peripheral, next.generation != generations[key, default: 0] {
            _ = heap.popMin()
        }
    }
}
