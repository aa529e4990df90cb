import Foundation

/// A read or write of a remote central on a peripheral manager's characteristic (`CBATTRequest`).
///
/// For a read, the app sets ``value`` (from ``offset`` on) and answers with
/// `respond(to:withResult:)`; for writes, ``value`` is what the central wrote at ``offset``.
open class CBATTRequest: NSObject {
    public let central: CBCentral
    public let characteristic: CBCharacteristic
    public let offset: Int
    public var value: Data?

    public init(central: CBCentral, characteristic: CBCharacteristic, offset: Int, value: Data?) {
        self.central = central
        self.characteristic = characteristic
        self.offset = offset
        self.value = value
        super.init()
    }

    open override var description: String {
        "<CBATTRequest: central = \(central.identifier), characteristic = \(characteristic.uuid.uuidString), offset = \(offset), value = \(value.map { "{length = \($0.count)}" } ?? "(null)")>"
    }
}
