import Flow
import Foundation

// The arguments an event carries, by name (Formats/flow.md): nil when the event has no such
// argument. The error is ``FlowRecord/error``.
extension FlowRecord {
    /// `peripheral=`: the peer's address.
    public var peripheral: String? { argument(.peripheral) }
    /// `central=`: a remote central's address (peripheral-manager events).
    public var central: String? { argument(.central) }
    /// `service=`: the UUID as CoreBluetooth prints it.
    public var service: String? { argument(.service) }
    /// `characteristic=`: the UUID as CoreBluetooth prints it (`UUID@0x0012` when a peripheral holds
    /// the same UUID twice).
    public var characteristic: String? { argument(.characteristic) }
    /// `descriptor=`.
    public var descriptor: String? { argument(.descriptor) }
    /// `value=`: the bytes; nil without them.
    public var value: Data? { bytes(.value).map { Data($0) } }
    /// `state=`: a `CBManagerState` case name.
    public var state: String? { argument(.state) }
    /// `isNotifying=` or `enabled=`, as a Bool.
    public var isNotifying: Bool? { (argument(.isNotifying) ?? argument(.enabled)).map { $0 == "true" } }
    /// The actor as a flow line writes it (`central`, `central2`, `peripheral`, …).
    public var actor: String { event.actor }
    /// The event's name as a flow line writes it (`didConnect`).
    public var name: String { event.name }
}
