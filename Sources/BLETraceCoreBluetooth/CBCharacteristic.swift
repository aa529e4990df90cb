import Foundation
import Wire

/// A characteristic of a service (`CBCharacteristic`).
///
/// `value` holds the last value read or notified; `didUpdateValueFor` serves both.
open class CBCharacteristic: CBAttribute {
    public internal(set) var service: CBService? {
        get { serviceReference?.object }
        set { serviceReference = newValue?.backReference }
    }
    /// Held through the service's ``BackReference`` (as `weak` as CoreBluetooth's, without a weak
    /// reference's cost).
    private var serviceReference: BackReference<CBService>?
    /// What points back at this characteristic (its descriptors'
    /// ``CBDescriptor/characteristic``): not a `weak` reference (``BackReference``).
    package let backReference = BackReference<CBCharacteristic>()
    public var properties: CBCharacteristicProperties { storedProperties }
    public var value: Data? { storedValue }
    public var descriptors: [CBDescriptor]? { storedDescriptors }
    /// Whether notifications or indications are on, as the peer confirmed. (Unchecked, as
    /// CBPeripheral's hot properties are: read for every notification.)
    @exclusivity(unchecked) public internal(set) var isNotifying = false

    var storedProperties: CBCharacteristicProperties
    /// The value as it came: Data from a read or from the app, or a notification's bytes, made
    /// into Data only when someone reads ``value`` (a replay's notifications then cost no copy).
    @exclusivity(unchecked) var stored: StoredValue?
    enum StoredValue {
        case data(Data)
        case bytes([UInt8])
    }

    var storedValue: Data? {
        get {
            switch stored {
            case .data(let data)?: data
            case .bytes(let bytes)?: Data(bytes)
            case nil: nil
            }
        }
        set { stored = newValue.map(StoredValue.data) }
    }
    var storedDescriptors: [CBDescriptor]?
    /// The handle of the declaration and of the value in the peer's database (bletrace's:
    /// CoreBluetooth keeps handles to itself; systems match attributes by them).
    public internal(set) var declarationHandle: UInt16
    @exclusivity(unchecked) public internal(set) final var valueHandle: UInt16

    init(
        uuid: CBUUID, properties: CBCharacteristicProperties, value: Data?, declarationHandle: UInt16,
        valueHandle: UInt16
    ) {
        storedProperties = properties
        stored = value.map(StoredValue.data)
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        super.init(uuid: uuid)
        backReference.set(self)
    }

    deinit { backReference.clear() }

    open override var description: String {
        "<CBCharacteristic: \(uuid.uuidString), properties = \(hex(properties.rawValue, digits: 1, uppercase: true)), value = \(value.map { "{length = \($0.count)}" } ?? "(null)"), notifying = \(isNotifying ? "YES" : "NO")>"
    }
}

/// A characteristic of a peripheral manager's service (`CBMutableCharacteristic`).
///
/// A characteristic created with a value is cached by the system and must be read-only;
/// one created with `value: nil` is read and written through the delegate's requests.
open class CBMutableCharacteristic: CBCharacteristic {
    public var permissions: CBAttributePermissions
    /// The centrals subscribed to its notifications or indications.
    public internal(set) var subscribedCentrals: [CBCentral]?

    public init(
        type UUID: CBUUID, properties: CBCharacteristicProperties, value: Data?, permissions: CBAttributePermissions
    ) {
        self.permissions = permissions
        super.init(uuid: UUID, properties: properties, value: value, declarationHandle: 0, valueHandle: 0)
    }

    public override var properties: CBCharacteristicProperties {
        get { storedProperties }
        set { storedProperties = newValue }
    }

    public override var value: Data? {
        get { storedValue }
        set { storedValue = newValue }
    }

    public override var descriptors: [CBDescriptor]? {
        get { storedDescriptors }
        set {
            storedDescriptors = newValue
            for descriptor in newValue ?? [] { descriptor.characteristic = self }
        }
    }
}
