import BLETraceCoreBluetooth
import HeapModule
import Wire

/// The replay's agenda: actions by capture time, ties in the order they were scheduled, in a
/// binary heap (swift-collections), so that scheduling and taking the next are O(log n) however
/// many events a capture holds.
///
/// Withdrawing a peripheral's actions (a cancel, a link that ended) is O(1): each action carries
/// its peripheral's generation when scheduled, and actions of an older generation are dropped when
/// they come up. The generations are kept in an array, one slot per peripheral, so that taking an
/// action costs no hashing. Withdrawing everything an app process scheduled (its timers, the
/// answers to its requests: it was terminated) is O(1) the same way: actions carry the process
/// they belong to, or none for what the system plays whatever the app does.
///
/// A party that schedules many actions up front (the mirror app) can instead reserve their
/// sequence numbers at once and schedule each when the one before it has run: the order is the
/// same, the heap holds one of them at a time.
struct EventQueue {
    struct Scheduled: Comparable {
        var time: Timestamp
        var sequence: Int
        /// The peripheral's slot in ``generations``; -1 for none.
        var slot: Int32
        var generation: Int32
        /// The app process the action belongs to; 0 for the system's own.
        var process: Int
        var action: Action

        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.time, lhs.sequence) < (rhs.time, rhs.sequence) }
        static func == (lhs: Self, rhs: Self) -> Bool { (lhs.time, lhs.sequence) == (rhs.time, rhs.sequence) }
    }

    /// What runs: a closure, or a closure given the peripheral of the action's slot, which the
    /// queue holds weakly (as iOS holds the app's objects: ``ReplayEngine/peripheralReleased(_:by:)``),
    /// once per slot: entries stay plain values, moved about the heap without weak-reference
    /// bookkeeping, and no second closure is made to hold the peripheral.
    enum Action {
        case plain(() -> Void)
        case peripheral((CBPeripheral) -> Void)
    }

    private var heap = Heap<Scheduled>()
    private var sequence = 0
    private var slots: [ObjectIdentifier: Int32] = [:]
    private var generations: [Int32] = []
    /// The peripheral object of each slot, held as weakly as by `weak` (``BackReference``).
    private var objects: [BackReference<CBPeripheral>] = []
    /// The identity of each slot's peripheral object.
    private var keys: [ObjectIdentifier] = []
    /// The last peripheral scheduled for and its slot: most actions follow one of the same one.
    private var last: (key: ObjectIdentifier, slot: Int32)?
    /// The process whose actions still run; those of earlier processes are dropped.
    private(set) var liveProcess = 1

    /// Schedules `action`; `process` is the app process it belongs to (0: the system's).
    mutating func schedule(
        at time: Timestamp, for peripheral: CBPeripheral?, process: Int, _ action: @escaping () -> Void
    ) {
        guard !closed else { return }
        sequence += 1
        schedule(at: time, sequence: sequence, for: peripheral, process: process, .plain(action))
    }

    /// Schedules `action` for `peripheral`, held weakly: it runs with the peripheral while the app
    /// still holds it, and not at all after.
    mutating func schedule(
        at time: Timestamp, for peripheral: CBPeripheral, process: Int, _ action: @escaping (CBPeripheral) -> Void
    ) {
        guard !closed else { return }
        sequence += 1
        schedule(at: time, sequence: sequence, for: peripheral, process: process, .peripheral(action))
    }

    /// Sequence numbers for `count` actions, as if they were scheduled now one after the other;
    /// ``schedule(at:sequence:for:process:_:)`` schedules each later in its place.
    mutating func reserve(_ count: Int) -> Range<Int> {
        defer { sequence += count }
        return sequence + 1..<sequence + 1 + count
    }

    /// Schedules `action` with a sequence number from ``reserve(_:)``.
    mutating func schedule(
        at time: Timestamp, sequence: Int, for peripheral: CBPeripheral?, process: Int, _ action: @escaping () -> Void
    ) {
        schedule(at: time, sequence: sequence, for: peripheral, process: process, .plain(action))
    }

    private mutating func schedule(
        at time: Timestamp, sequence: Int, for peripheral: CBPeripheral?, process: Int, _ action: Action
    ) {
        guard !closed else { return }
        var slot: Int32 = -1
        if let peripheral {
            let key = ObjectIdentifier(peripheral)
            if let last, last.key == key {
                slot = last.slot
            } else if let known = slots[key] {
                slot = known
            } else {
                slot = Int32(generations.count)
                slots[key] = slot
                generations.append(0)
                objects.append(peripheral.backReference)
                keys.append(key)
            }
            last = (key, slot)
        }
        heap.insert(
            Scheduled(
                time: time, sequence: sequence, slot: slot, generation: slot < 0 ? 0 : generations[Int(slot)],
                process: process, action: action))
    }

    /// The process of the system's own actions that run whatever the app's state: the system's
    /// events, scans' reports, remote centrals' steps (``ReplayEngine/scheduleSystem(at:_:)``).
    /// A suspended app's other actions wait for its foreground (``defer(_:to:)``).
    static let control = -1

    /// Schedules `action`, taken from the queue and not run, again at `time` in its place among
    /// the actions of that time: what a suspended app is owed waits for its foreground.
    mutating func `defer`(_ action: Scheduled, to time: Timestamp) {
        guard !closed else { return }
        var moved = action
        moved.time = time
        heap.insert(moved)
    }

    /// Withdraws every action of the live process and starts the next one.
    mutating func endProcess() { liveProcess += 1 }

    /// The time of the next action still due, if any.
    mutating func nextTime() -> Timestamp? {
        dropWithdrawn()
        return heap.min?.time
    }

    /// Takes the next action still due, when it is due at `limit` or before.
    mutating func popNext(notAfter limit: Timestamp) -> Scheduled? {
        dropWithdrawn()
        guard let time = heap.min?.time, time <= limit else { return nil }
        let next = heap.popMin()
        running = next
        // What the action schedules next is most often for its own peripheral.
        if let slot = next?.slot, slot >= 0 { last = (keys[Int(slot)], slot) }
        return next
    }

    /// The action taken last (running, while it runs).
    private var running: Scheduled?

    /// Whether an action was taken and the queue not emptied since (``removeAll()``).
    var isRunningAction: Bool { running != nil }

    /// Schedules the running action again, at `time`, for the same process: for an action that
    /// plays a sequence one step at a time (a link's notifications), without making a new closure
    /// for each step. `sequence`, from ``reserve(_:)``, places it among actions due at the same
    /// time; by default it comes after every action scheduled so far.
    mutating func scheduleRunningAgain(at time: Timestamp, sequence: Int? = nil, for peripheral: CBPeripheral?) {
        guard let running, !closed else { return }
        let place: Int
        if let sequence {
            place = sequence
        } else {
            self.sequence += 1
            place = self.sequence
        }
        schedule(at: time, sequence: place, for: peripheral, process: running.process, running.action)
    }

    /// Whether the running action was withdrawn while it ran (its peripheral's actions, or its
    /// process's): it must not go on.
    var isRunningWithdrawn: Bool {
        guard let slot = running?.slot, let generation = running?.generation, let process = running?.process else {
            return true
        }
        return isWithdrawn(slot: slot, generation: generation, process: process)
    }

    /// The peripheral an action of `slot` runs with; nil when the app let go of it.
    func peripheral(inSlot slot: Int32) -> CBPeripheral? {
        guard slot >= 0 else { return nil }
        return objects[Int(slot)].object
    }

    /// The peripheral object `object` is gone: what it had scheduled is withdrawn, and its slot
    /// is not given to a new object that takes its identity.
    mutating func forget(_ object: ObjectIdentifier) {
        withdraw(object)
        slots[object] = nil
        if last?.key == object { last = nil }
    }

    /// Whether an action is due before a step at `time` that takes the place `sequence` (from
    /// ``reserve(_:)``), or, with none, that is scheduled now (after every action so far).
    mutating func hasAction(before time: Timestamp, sequence: Int?) -> Bool {
        dropWithdrawn()
        guard let next = heap.min else { return false }
        guard let sequence else { return next.time <= time }
        return (next.time, next.sequence) < (time, sequence)
    }

    /// Withdraws every action scheduled so far for `peripheral`.
    mutating func withdraw(_ peripheral: CBPeripheral) {
        withdraw(ObjectIdentifier(peripheral))
    }

    /// Withdraws every action scheduled so far for the peripheral object `object`.
    private mutating func withdraw(_ object: ObjectIdentifier) {
        guard let slot = slots[object] else { return }
        generations[Int(slot)] &+= 1
    }

    mutating func removeAll() {
        heap = Heap()
        running = nil
    }

    /// Whether the replay has stopped: nothing scheduled from then on runs.
    private(set) var closed = false

    /// Empties the queue and takes nothing more: the replay has stopped.
    mutating func close() {
        removeAll()
        closed = true
    }

    private mutating func dropWithdrawn() {
        while let next = heap.min, isWithdrawn(next) { _ = heap.popMin() }
    }

    private func isWithdrawn(_ action: Scheduled) -> Bool {
        isWithdrawn(slot: action.slot, generation: action.generation, process: action.process)
    }

    private func isWithdrawn(slot: Int32, generation: Int32, process: Int) -> Bool {
        if process > 0, process != liveProcess { return true }
        return slot >= 0 && generation != generations[Int(slot)]
    }
}
