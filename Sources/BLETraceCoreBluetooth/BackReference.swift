/// A reference to a CoreBluetooth object that neither keeps it alive nor outlives it: it reads nil
/// once the object is gone, as a `weak` reference does. The references that point back at an
/// object — a service's peripheral, a characteristic's service, a descriptor's characteristic, a
/// peripheral's central manager, a system's record of the peripherals it gave the app — go through
/// the one the object makes for itself (``CBPeripheral/backReference`` and the others), which the
/// object clears first thing in its `deinit`.
///
/// Why not `weak`: the first weak reference to an object gives it a side table, and from then on
/// every retain and release of the object goes through the runtime's slow path. A replay retains a
/// peripheral and a characteristic around every notification it plays, and perf put a quarter of the
/// replay loop in that slow path (Benchmarks/results.md). This reference is one small object per
/// CoreBluetooth object, retained on the fast path.
///
/// Like the objects it points to, it is used on one thread at a time: the queue of the manager the
/// objects belong to, or a replay's thread (CoreBluetooth's objects are not thread-safe either).
/// An object that is being released on one thread while another reads a reference to it is a data
/// race in the app, with `weak` or without.
package final class BackReference<Object: AnyObject> {
    /// The object while it lives; nil from the start of its `deinit`.
    package private(set) unowned(unsafe) var object: Object?

    init() {}

    /// Points at `object`: called once, by the object at the end of its `init`.
    func set(_ object: Object) { self.object = object }

    /// Called by the object first thing in its `deinit`.
    func clear() { object = nil }
}
