import Foundation

/// One GATT client operation of an app, as a peripheral passes it to its system: one call of the
/// app, however many ATT transactions it takes (a discovery, a long read).
public enum GATTRequest {
    case discoverServices([CBUUID]?)
    case discoverIncludedServices([CBUUID]?, for: CBService)
    case discoverCharacteristics([CBUUID]?, for: CBService)
    case discoverDescriptors(for: CBCharacteristic)
    case readCharacteristic(CBCharacteristic)
    case readDescriptor(CBDescriptor)
    /// A write with response (a Write Request, or prepared writes for a long value).
    case writeCharacteristic(Data, CBCharacteristic)
    case writeDescriptor(Data, CBDescriptor)
    /// Enabling or disabling notifications (or indications) through the CCCD.
    case setNotifyValue(Bool, CBCharacteristic)

    /// The CoreBluetooth method the request came from, and what the app passed to it in the
    /// order a record of the call writes it: the one place each request's call is described, so
    /// that a new request is described where it is declared.
    public var call: (method: Method, arguments: [GATTArgument]) {
        switch self {
        case .discoverServices(let uuids): (.discoverServices, [.services(uuids)])
        case .discoverIncludedServices(let uuids, let service):
            (.discoverIncludedServices, [.service(service), .includedServices(uuids)])
        case .discoverCharacteristics(let uuids, let service):
            (.discoverCharacteristics, [.service(service), .characteristics(uuids)])
        case .discoverDescriptors(let characteristic): (.discoverDescriptors, [.characteristic(characteristic)])
        case .readCharacteristic(let characteristic): (.readValue, [.characteristic(characteristic)])
        case .readDescriptor(let descriptor): (.readValue, [.descriptor(descriptor)])
        case .writeCharacteristic(let value, let characteristic):
            (.writeValue, [.characteristic(characteristic), .value(value), .withResponse])
        case .writeDescriptor(let value, let descriptor): (.writeValue, [.descriptor(descriptor), .value(value)])
        case .setNotifyValue(let enabled, let characteristic):
            (.setNotifyValue, [.characteristic(characteristic), .enabled(enabled)])
        }
    }

    /// The `CBPeripheral` methods that make requests, without argument labels.
    public enum Method: String, CaseIterable, Sendable {
        case discoverServices, discoverIncludedServices, discoverCharacteristics, discoverDescriptors, readValue,
            writeValue
        case setNotifyValue
    }

    /// The CoreBluetooth method the request came from, without argument labels.
    public var methodName: String { call.method.rawValue }

    /// What iOS writes to the Client Characteristic Configuration descriptor for a
    /// ``setNotifyValue(_:_:)``: 0x0000 to disable; to enable, notifications (0x0001) whenever
    /// the characteristic can notify, even when it can also indicate, and indications (0x0002)
    /// only for one that can only indicate (Apple's `setNotifyValue(_:for:)`: "If the
    /// characteristic allows both, notifications are used"). Nil for other requests.
    public var cccdValue: Data? {
        guard case .setNotifyValue(let enabled, let characteristic) = self else { return nil }
        guard enabled else { return Data([0x00, 0x00]) }
        return characteristic.properties.contains(.notify) ? Data([0x01, 0x00]) : Data([0x02, 0x00])
    }
}

/// The system's answer to the peripheral's current ``GATTRequest``: what the peer answered, or
/// the error CoreBluetooth would report (a `CBATTError` from an ATT Error Response, a `CBError`).
public enum GATTResponse {
    /// Services found by `discoverServices` (or included services by `discoverIncludedServices`).
    case services([ServiceDefinition], error: (any Error)?)
    case characteristics([CharacteristicDefinition], error: (any Error)?)
    case descriptors([DescriptorDefinition], error: (any Error)?)
    /// The value read (characteristic or descriptor).
    case value(Data?, error: (any Error)?)
    case written(error: (any Error)?)
    /// The notification state after a `setNotifyValue`.
    case notificationState(isNotifying: Bool, error: (any Error)?)

    public var error: (any Error)? {
        switch self {
        case .services(_, let error), .characteristics(_, let error), .descriptors(_, let error),
            .value(_, let error), .written(let error), .notificationState(_, let error):
            error
        }
    }
}

extension GATTResponse {
    /// The answer that carries `error` for `request`: what the request's callback reports when
    /// it fails.
    public init(failing request: GATTRequest, with error: any Error) {
        self =
            switch request {
            case .discoverServices, .discoverIncludedServices: .services([], error: error)
            case .discoverCharacteristics: .characteristics([], error: error)
            case .discoverDescriptors: .descriptors([], error: error)
            case .readCharacteristic, .readDescriptor: .value(nil, error: error)
            case .writeCharacteristic, .writeDescriptor: .written(error: error)
            case .setNotifyValue(_, let characteristic):
                .notificationState(isNotifying: characteristic.isNotifying, error: error)
            }
    }
}

/// The `CBPeripheralDelegate` callback a ``GATTResponse`` to a ``GATTRequest`` makes: the one
/// place a request and its answer are paired. The peripheral makes the callback from it, and a
/// system that records callbacks names them from it.
public enum GATTCallback {
    case didDiscoverServices([ServiceDefinition])
    case didDiscoverIncludedServices([ServiceDefinition], for: CBService)
    case didDiscoverCharacteristics([CharacteristicDefinition], for: CBService)
    case didDiscoverDescriptors([DescriptorDefinition], for: CBCharacteristic)
    case didUpdateCharacteristicValue(Data?, for: CBCharacteristic)
    case didUpdateDescriptorValue(Data?, for: CBDescriptor)
    case didWriteCharacteristic(CBCharacteristic)
    case didWriteDescriptor(CBDescriptor)
    case didUpdateNotificationState(isNotifying: Bool, for: CBCharacteristic)

    /// The callback `response` makes for `request`; nil when it is not an answer to it (a
    /// system's error).
    public init?(_ request: GATTRequest, _ response: GATTResponse) {
        switch (request, response) {
        case (.discoverServices, .services(let found, _)): self = .didDiscoverServices(found)
        case (.discoverIncludedServices(_, let service), .services(let found, _)):
            self = .didDiscoverIncludedServices(found, for: service)
        case (.discoverCharacteristics(_, let service), .characteristics(let found, _)):
            self = .didDiscoverCharacteristics(found, for: service)
        case (.discoverDescriptors(let characteristic), .descriptors(let found, _)):
            self = .didDiscoverDescriptors(found, for: characteristic)
        case (.readCharacteristic(let characteristic), .value(let value, _)):
            self = .didUpdateCharacteristicValue(value, for: characteristic)
        case (.readDescriptor(let descriptor), .value(let value, _)):
            self = .didUpdateDescriptorValue(value, for: descriptor)
        case (.writeCharacteristic(_, let characteristic), .written): self = .didWriteCharacteristic(characteristic)
        case (.writeDescriptor(_, let descriptor), .written): self = .didWriteDescriptor(descriptor)
        case (.setNotifyValue(_, let characteristic), .notificationState(let isNotifying, _)):
            self = .didUpdateNotificationState(isNotifying: isNotifying, for: characteristic)
        default: return nil
        }
    }

    /// The `CBPeripheralDelegate` method the callback calls, and what it passes before the error,
    /// in the order a record of the callback writes it; the value read only when the read did not
    /// fail (`failed`). The one place each callback is described.
    public func call(failed: Bool) -> (method: Method, arguments: [GATTArgument]) {
        switch self {
        case .didDiscoverServices(let found): (.didDiscoverServices, [.servicesFound(found)])
        case .didDiscoverIncludedServices(let found, let service):
            (.didDiscoverIncludedServicesFor, [.service(service), .includedServicesFound(found)])
        case .didDiscoverCharacteristics(let found, let service):
            (.didDiscoverCharacteristicsFor, [.service(service), .characteristicsFound(found)])
        case .didDiscoverDescriptors(let found, let characteristic):
            (.didDiscoverDescriptorsFor, [.characteristic(characteristic), .descriptorsFound(found)])
        case .didUpdateCharacteristicValue(let value, let characteristic):
            (
                .didUpdateValueFor,
                failed ? [.characteristic(characteristic)] : [.characteristic(characteristic), .value(value ?? Data())]
            )
        case .didUpdateDescriptorValue(let value, let descriptor):
            (
                .didUpdateValueFor,
                failed ? [.descriptor(descriptor)] : [.descriptor(descriptor), .value(value ?? Data())]
            )
        case .didWriteCharacteristic(let characteristic): (.didWriteValueFor, [.characteristic(characteristic)])
        case .didWriteDescriptor(let descriptor): (.didWriteValueFor, [.descriptor(descriptor)])
        case .didUpdateNotificationState(let isNotifying, let characteristic):
            (.didUpdateNotificationStateFor, [.characteristic(characteristic), .isNotifying(isNotifying)])
        }
    }

    /// The `CBPeripheralDelegate` methods of GATT callbacks, each named by its second argument
    /// label (`peripheral(_:didDiscoverCharacteristicsFor:error:)` is
    /// `didDiscoverCharacteristicsFor`).
    public enum Method: String, CaseIterable, Sendable {
        case didDiscoverServices, didDiscoverIncludedServicesFor, didDiscoverCharacteristicsFor,
            didDiscoverDescriptorsFor
        case didUpdateValueFor, didWriteValueFor, didUpdateNotificationStateFor
    }
}

/// One argument of a GATT request or callback as a record of it names it: what the app passed or
/// was given, typed, for a recorder to write in its own terms (a characteristic by the name the
/// peer's database gives it, a list of UUIDs as text).
public enum GATTArgument {
    /// The service UUIDs a discovery asked for; nil: every one.
    case services([CBUUID]?)
    case includedServices([CBUUID]?)
    case characteristics([CBUUID]?)
    /// What a discovery found.
    case servicesFound([ServiceDefinition])
    case includedServicesFound([ServiceDefinition])
    case characteristicsFound([CharacteristicDefinition])
    case descriptorsFound([DescriptorDefinition])
    /// The attribute the request or callback is about.
    case service(CBService)
    case characteristic(CBCharacteristic)
    case descriptor(CBDescriptor)
    /// The value written or read.
    case value(Data)
    /// A write with response (`CBCharacteristicWriteType.withResponse`).
    case withResponse
    /// What `setNotifyValue` asked for, and the notification state it got.
    case enabled(Bool)
    case isNotifying(Bool)
}

/// A service as a discovery found it.
public struct ServiceDefinition: Hashable, Sendable {
    public var uuid: CBUUID
    public var isPrimary: Bool
    public var handles: ClosedRange<UInt16>

    public init(uuid: CBUUID, isPrimary: Bool = true, handles: ClosedRange<UInt16>) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.handles = handles
    }
}

/// A characteristic as a discovery found it.
public struct CharacteristicDefinition: Hashable, Sendable {
    public var uuid: CBUUID
    public var properties: CBCharacteristicProperties
    public var declarationHandle: UInt16
    public var valueHandle: UInt16

    public init(uuid: CBUUID, properties: CBCharacteristicProperties, declarationHandle: UInt16, valueHandle: UInt16) {
        self.uuid = uuid
        self.properties = properties
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
    }
}

/// A descriptor as a discovery found it.
public struct DescriptorDefinition: Hashable, Sendable {
    public var uuid: CBUUID
    public var handle: UInt16

    public init(uuid: CBUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }
}
