import Foundation
import Wire

/// A service of a peripheral's GATT database (`CBService`).
///
/// A discovered service keeps its identity as long as it is valid: rediscovery gives the same
/// object back. A disconnection, a power change or a Service Changed that covers it invalidates
/// it: its peripheral forgets it, and a later discovery makes a new object.
open class CBService: CBAttribute {
    /// The peripheral the service belongs to; nil for a peripheral manager's own service.
    public internal(set) var peripheral: CBPeripheral? {
        get { peripheralReference?.object }
        set { peripheralReference = newValue?.backReference }
    }
    /// Held through the peripheral's ``BackReference`` (as `weak` as CoreBluetooth's, without a
    /// weak reference's cost).
    private var peripheralReference: BackReference<CBPeripheral>?
    /// What points back at this service (its characteristics'
    /// ``CBCharacteristic/service``): not a `weak` reference (``BackReference``).
    package let backReference = BackReference<CBService>()
    public var isPrimary: Bool { primary }
    public var includedServices: [CBService]? { included }
    public var characteristics: [CBCharacteristic]? { storedCharacteristics }

    var primary: Bool
    var included: [CBService]?
    var storedCharacteristics: [CBCharacteristic]?
    /// The service's handles in the peer's database (start, end); 0...0 until added or discovered.
    /// (bletrace's: CoreBluetooth keeps handles to itself; systems match attributes by them.)
    public internal(set) var handles: ClosedRange<UInt16>

    init(uuid: CBUUID, isPrimary: Bool, handles: ClosedRange<UInt16>, peripheral: CBPeripheral?) {
        primary = isPrimary
        self.handles = handles
        peripheralReference = peripheral?.backReference
        super.init(uuid: uuid)
        backReference.set(self)
    }

    deinit { backReference.clear() }

    open override var description: String {
        "<CBService: \(uuid.uuidString), isPrimary = \(isPrimary ? "YES" : "NO"), handles = 0x\(hex4(handles.lowerBound))-0x\(hex4(handles.upperBound))>"
    }
}

/// A service a peripheral manager publishes (`CBMutableService`).
open class CBMutableService: CBService {
    public init(type UUID: CBUUID, primary isPrimary: Bool) {
        super.init(uuid: UUID, isPrimary: isPrimary, handles: 0...0, peripheral: nil)
    }

    public override var isPrimary: Bool {
        get { primary }
        set { primary = newValue }
    }

    public override var includedServices: [CBService]? {
        get { included }
        set { included = newValue }
    }

    public override var characteristics: [CBCharacteristic]? {
        get { storedCharacteristics }
        set {
            storedCharacteristics = newValue
            for characteristic in newValue ?? [] { characteristic.service = self }
        }
    }
}

func hex4(_ value: UInt16) -> String { hex(value, digits: 4, prefixed: false, uppercase: true) }
