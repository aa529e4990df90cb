import Dispatch
import Foundation

/// What central and peripheral managers share (`CBManager`): the state, the authorization, the
/// system they talk to and the queue their delegates are called on.
open class CBManager: NSObject {
    /// `CBManager.state`: `.unknown` until the system's first state update.
    public internal(set) var state: CBManagerState = .unknown

    /// `CBManager.authorization`: what the system running the calling code says; `.allowedAlways`
    /// outside any system (no prompt stands in the way of a test).
    public class var authorization: CBManagerAuthorization {
        BluetoothSystemContext.current?.authorization ?? .allowedAlways
    }

    /// The per-instance form CoreBluetooth had before iOS 13.1.
    @available(*, deprecated, message: "Use CBManager.authorization")
    public var authorization: CBManagerAuthorization { system.authorization }

    /// The system this manager talks to (the replay, a test double, or none).
    public private(set) var system: any BluetoothSystem
    /// The queue the delegate is called on; nil for the main queue.
    public let queue: DispatchQueue?
    /// The restore identifier the app opted into restoration with, if any.
    public let restoreIdentifier: String?

    /// What CoreBluetooth would have logged as "API MISUSE" for this manager: calls it ignored.
    /// Tests read it; the system is told of each (a replay writes them as flow comments).
    public private(set) var apiMisuses: [String] = []

    init(queue: DispatchQueue?, restoreIdentifier: String?) {
        self.system = BluetoothSystemContext.current ?? UnsupportedSystem()
        self.queue = queue
        self.restoreIdentifier = restoreIdentifier
        super.init()
        queue?.setSpecific(key: Self.queueKey, value: ObjectIdentifier(queue!))
    }

    /// Tells the system this manager exists. Subclasses call it last in their initialiser.
    func register() { system.managerDidInit(self) }

    /// The system has ended (a replay at its end, or the app process that made the manager was
    /// terminated): the manager lets go of it and talks to none from now on, as one made outside
    /// any system, with no state change told. App code still running later (a task the app left
    /// waiting) finds its requests go nowhere, and does not keep the replay alive; code of a
    /// later launch that uses it (a singleton's manager) is reported to the system running it.
    public func detachFromSystem() {
        guard (system as? UnsupportedSystem)?.isForwarding ?? true else { return }
        system = UnsupportedSystem(queue: queue, detached: true)
    }

    /// The app process that made the manager ended, and its system goes on (a replay after a
    /// termination): as ``detachFromSystem()``, but the system still hears of the manager's
    /// peripheral objects as they are released, so that it forgets them. The system detaches the
    /// manager fully when it ends.
    public func detachFromProcess() {
        guard !(system is UnsupportedSystem) else { return }
        system = UnsupportedSystem(queue: queue, detached: true, releasesTo: system)
    }

    /// Set by the default implementation of an optional delegate method whose absence changes
    /// what CoreBluetooth does (``implemented(_:)``): the delegate does not implement it.
    ///
    /// iOS asks the Objective-C runtime which methods a delegate implements
    /// (`respondsToSelector:`). Swift on Linux has none, and a protocol extension's default is an
    /// implementation like any other, so the managers learn it by calling: a default that runs
    /// says so here (Formats/corebluetooth.md, "Which optional methods a delegate implements").
    var defaultReached = false

    /// Runs `call`, a call of one delegate method, and says whether it reached the delegate's
    /// own implementation rather than the protocol's default. Calls nest: a callback the app's
    /// implementation causes at once is judged on its own.
    func implemented(_ call: () -> Void) -> Bool {
        let outer = defaultReached
        defaultReached = false
        call()
        let reached = defaultReached
        defaultReached = outer
        return !reached
    }

    /// Warns (``BluetoothSystem/portingWarning(_:by:)``) when `delegate`'s class inherits its
    /// conformance to the delegate protocol from a superclass (`conforms` says whether a class
    /// conforms): on iOS, Objective-C finds a method the subclass adds; in Swift the
    /// conformance's witnesses are the superclass's, so the protocol's default runs instead
    /// (Formats/porting.md, "A delegate subclass"). Whether the subclass adds such a method
    /// cannot be seen, so the warning says what to check.
    func checkConformance(of delegate: AnyObject, _ protocolName: String, _ conforms: (Any.Type) -> Bool) {
        var mirror = Mirror(reflecting: delegate).superclassMirror
        var conforming: Any.Type?
        while let current = mirror, conforms(current.subjectType) {
            conforming = current.subjectType
            mirror = current.superclassMirror
        }
        guard let conforming else { return }
        let subclass = type(of: delegate)
        system.portingWarning(
            "the delegate, a \(subclass), inherits its conformance to \(protocolName) from \(conforming): a \(protocolName) method that \(subclass) implements and \(conforming) does not is never called here, though iOS calls it; implement it in \(conforming) and override it (Formats/porting.md, \"A delegate subclass\")",
            by: self)
    }

    /// Calls the delegate's `willRestoreState` through `call`; a delegate without the method
    /// crashes the app, as iOS's assertion does (bletrace can tell only when it calls it).
    /// Returns false after such a crash: nothing more of the app runs.
    func restore(_ method: String, _ call: () -> Void) -> Bool {
        guard !implemented(call) else { return true }
        crash(
            "restoreWithoutWillRestoreState", "has a restore identifier, but its delegate does not implement \(method)")
        return false
    }

    /// How misuse messages name this manager, made once.
    private lazy var misuseName = Self.typeName(self)

    /// A call CoreBluetooth answers with an exception: the app crashes (``BluetoothSystem/appCrashed(_:by:)``).
    func crash(_ rule: String, _ message: String) {
        apiMisuses.append("CRASH: \(misuseName) \(message)")
        system.appCrashed(rule, message, by: self)
    }

    /// Records an API misuse and tells the system: `message`, said of `object` (how misuse
    /// messages name one of the manager's peripherals) when given. The line is made once, in
    /// storage of its final size (an app can misuse an API in a loop: a replay of a capture's
    /// writes without response to a characteristic that does not allow them makes one line per
    /// write, tens of thousands).
    func misuse(_ message: String, about object: String? = nil) {
        let prefix = "API MISUSE: "
        let name = misuseName
        var line = ""
        line.reserveCapacity(
            prefix.utf8.count + name.utf8.count + (object.map { $0.utf8.count + 1 } ?? 0) + 1 + message.utf8.count)
        line += prefix
        line += name
        if let object {
            line += " "
            line += object
        }
        line += " "
        line += message
        apiMisuses.append(line)
        system.apiMisuse(line, by: self)
    }

    /// Whether the manager accepts commands; records the misuse when not.
    func requirePoweredOn(_ call: String) -> Bool {
        guard state == .poweredOn else {
            misuse("can only accept \(call) while powered on (state is \(state))")
            return false
        }
        return true
    }

    /// Runs `body` on the delegate's queue, at once: on the queue given at creation (with
    /// `queue.sync`, so a replay stays one deterministic sequence), or on the calling thread when
    /// none was given or the main queue was (the thread that runs the system stands for the main
    /// queue: ``BluetoothSystem/standsForMainQueue``) or when already on that queue.
    func onDelegateQueue(_ body: () -> Void) {
        guard let queue, DispatchQueue.getSpecific(key: Self.queueKey) != ObjectIdentifier(queue),
            !(queue.isMainQueue && (Thread.isMainThread || system.standsForMainQueue))
        else { return body() }
        queue.sync(execute: body)
    }

    static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// How misuse messages name an object: its CoreBluetooth type (and a peer's address or
    /// identifier), never a memory address, so that flows are the same in every run.
    static func typeName(_ object: AnyObject) -> String {
        guard let peer = object as? CBPeer else { return "<\(type(of: object))>" }
        return "<\(type(of: object)) \(peer.address.map { "\($0)" } ?? peer.identifier.uuidString)>"
    }
}
