import Flow
import Foundation
import Replay

// Typed access to the arguments a flow line carries (Formats/flow.md): nil when the event has
// no such argument.
extension FlowEvent {
    /// `peripheral=`: the peer's address.
    public var peripheral: String? { argument("peripheral") }
    /// `central=`: a remote central's address (peripheral-manager events).
    public var central: String? { argument("central") }
    /// `service=`: the UUID as CoreBluetooth prints it.
    public var service: String? { argument("service") }
    /// `characteristic=`: the UUID as CoreBluetooth prints it (`UUID@0x0012` when a peripheral holds
    /// the same UUID twice).
    public var characteristic: String? { argument("characteristic") }
    /// `descriptor=`.
    public var descriptor: String? { argument("descriptor") }
    /// `error=`, nil for `error=nil`: `CBATTError.insufficientAuthentication`, `CBError.connectionTimeout`, …
    public var error: String? { argument("error").flatMap { $0 == "nil" ? nil : $0 } }
    /// `value=` as bytes (`empty` is no bytes); nil without one, or when it is not hex.
    public var value: Data? {
        guard let text = argument("value") else { return nil }
        if text == "empty" { return Data() }
        var bytes = Data()
        var digits = text.utf8.makeIterator()
        while let high = digits.next() {
            guard let low = digits.next(), let h = Self.nibble(high), let l = Self.nibble(low) else { return nil }
            bytes.append(h << 4 | l)
        }
        return bytes
    }
    /// `state=`: a `CBManagerState` case name.
    public var state: String? { argument("state") }
    /// `isNotifying=` or `enabled=`, as a Bool.
    public var isNotifying: Bool? { (argument("isNotifying") ?? argument("enabled")).map { $0 == "true" } }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
