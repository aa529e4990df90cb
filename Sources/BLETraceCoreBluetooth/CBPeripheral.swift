import Foundation
import Wire

/// A remote peripheral as a central app sees it (`CBPeripheral`).
///
/// Objects come from their central manager (one per peer, the same object on every call, until a
/// state other than `.poweredOn`/`.poweredOff` invalidates them all). GATT requests are queued and
/// passed to the system one at a time, in the order the app made them; each is answered once, in
/// the delegate method CoreBluetooth uses for it. Callbacks run on the central manager's queue.
open class CBPeripheral: CBPeer {
    /// Something the system tells the peripheral.
    public enum Event {
        /// The answer to the request the peripheral passed to the system last.
        case completed(GATTResponse)
        /// A notification or indication of the characteristic whose value has `valueHandle`.
        case valueUpdated(valueHandle: UInt16, Data)
        /// A Service Changed indication for `handles`: the services in that range are invalidated.
        case servicesChanged(handles: ClosedRange<UInt16>)
        /// The system read the peer's GAP Device Name (2A00): the peripheral's name from now on,
        /// whatever it advertises; `peripheralDidUpdateName` when the name changes.
        case nameUpdated(String?)
        case rssiRead(Int, error: (any Error)?)
        case readyToSendWriteWithoutResponse
        /// The ATT MTU of the link changed (an MTU exchange).
        case mtuChanged(Int)
        case l2capChannelOpened(CBL2CAPChannel?, error: (any Error)?)
        /// The link is gone: the peripheral is disconnected now, before the central manager's
        /// disconnection event, and the requests not answered are dropped without a callback
        /// (as `didDisconnect()` does).
        case linkLost
    }

    public weak var delegate: (any CBPeripheralDelegate)? {
        didSet {
            guard let delegate else { return }
            central?.checkConformance(of: delegate, "CBPeripheralDelegate") { $0 is any CBPeripheralDelegate.Type }
        }
    }
    /// The peer's name: its GAP Device Name once the system has read it, else the local name it
    /// advertised last (Formats/corebluetooth.md, "Central").
    public internal(set) var name: String?
    /// The GAP Device Name the system read from the peer, once it has: it names the peripheral
    /// from then on, across disconnections, whatever the peer advertises (iOS caches it).
    var deviceName: String?
    // Marked `@exclusivity(unchecked)`: properties a replay reads for every notification and
    // request. Apps only read them, the system changes them, and no access overlaps another, so
    // the runtime's check of each access is left out (Benchmarks/results.md, the replay).
    @exclusivity(unchecked) public internal(set) var state: CBPeripheralState = .disconnected
    /// The services discovered and still valid; nil until a discovery, and again after a
    /// disconnection.
    @exclusivity(unchecked) public internal(set) var services: [CBService]? {
        didSet { notifiedLast = nil }
    }
    /// The characteristic found last by ``characteristic(valueHandle:)``: a capture's
    /// notifications mostly come from the one before's. Forgotten when services or
    /// characteristics change.
    @exclusivity(unchecked) private var notifiedLast: CBCharacteristic?
    public internal(set) var canSendWriteWithoutResponse = true
    public internal(set) var ancsAuthorized = false
    /// The last RSSI read (deprecated in CoreBluetooth, kept for old code).
    @available(*, deprecated, message: "Use peripheral(_:didReadRSSI:error:)")
    public var rssi: NSNumber? { lastRSSI.map { NSNumber(value: $0) } }

    /// The ATT MTU of the current connection (23 until an exchange).
    @exclusivity(unchecked) public internal(set) var mtu = 23

    /// The central manager, through its ``BackReference`` (not `weak`: see there).
    var central: CBCentralManager? {
        get { centralReference?.object }
        set { centralReference = newValue?.backReference }
    }
    @exclusivity(unchecked) private var centralReference: BackReference<CBCentralManager>?
    /// What points back at this peripheral (its services, its central manager's map, a system's
    /// records): not a `weak` reference (``BackReference``).
    package let backReference = BackReference<CBPeripheral>()
    /// The central manager this object belongs to (bletrace's: CoreBluetooth does not show it).
    /// For systems.
    public final var centralManager: CBCentralManager? { central }
    var lastRSSI: Int?
    /// Requests of the app not yet answered; the first is with the system when `inFlight`.
    @exclusivity(unchecked) private var requests: [GATTRequest] = []
    @exclusivity(unchecked) private var inFlight = false
    /// Whether the app asked for the connection to end (its disconnection then carries no error).
    @exclusivity(unchecked) var cancelRequested = false

    /// `deviceName` is the GAP Device Name the system already knows for the peer, if any.
    init(identifier: UUID, address: BluetoothAddress?, deviceName: String?, central: CBCentralManager) {
        self.name = deviceName
        self.deviceName = deviceName
        centralReference = central.backReference
        super.init(identifier: identifier, address: address)
        backReference.set(self)
    }

    /// The app let go of its last reference: its system forgets it, and a connection or attempt
    /// it still had ends, as iOS ends it (``CBCentralManager``'s weak map of peripherals).
    deinit {
        backReference.clear()
        central?.peripheralReleased(
            ReleasedPeripheral(identifier: identifier, address: address, state: state, object: ObjectIdentifier(self)))
    }

    open override var description: String {
        "<CBPeripheral: identifier = \(identifier.uuidString), name = \(name ?? "(null)"), mtu = \(mtu), state = \(state)>"
    }

    // MARK: GATT requests of the app

    public func discoverServices(_ serviceUUIDs: [CBUUID]?) {
        enqueue(.discoverServices(serviceUUIDs), "discoverServices")
    }

    public func discoverIncludedServices(_ includedServiceUUIDs: [CBUUID]?, for service: CBService) {
        guard isMine(service, "discoverIncludedServices") else { return }
        enqueue(.discoverIncludedServices(includedServiceUUIDs, for: service), "discoverIncludedServices")
    }

    public func discoverCharacteristics(_ characteristicUUIDs: [CBUUID]?, for service: CBService) {
        guard isMine(service, "discoverCharacteristics") else { return }
        enqueue(.discoverCharacteristics(characteristicUUIDs, for: service), "discoverCharacteristics")
    }

    public func discoverDescriptors(for characteristic: CBCharacteristic) {
        guard isMine(characteristic.service, "discoverDescriptors") else { return }
        enqueue(.discoverDescriptors(for: characteristic), "discoverDescriptors")
    }

    public func readValue(for characteristic: CBCharacteristic) {
        guard isMine(characteristic.service, "readValue") else { return }
        enqueue(.readCharacteristic(characteristic), "readValue")
    }

    public func readValue(for descriptor: CBDescriptor) {
        guard isMine(descriptor.characteristic?.service, "readValue") else { return }
        enqueue(.readDescriptor(descriptor), "readValue")
    }

    public func writeValue(_ data: Data, for characteristic: CBCharacteristic, type: CBCharacteristicWriteType) {
        guard isMine(characteristic.service, "writeValue") else { return }
        switch type {
        case .withResponse:
            guard data.count <= 512 else {
                // ATT values are 512 bytes at most (Core 6.0, Vol 3, Part F, §3.2.9).
                guard requireConnected("writeValue") else { return }
                return failLater(.writeCharacteristic(data, characteristic), CBATTError(.invalidAttributeValueLength))
            }
            enqueue(.writeCharacteristic(data, characteristic), "writeValue")
        case .withoutResponse:
            guard requireConnected("writeValue") else { return }
            guard characteristic.properties.contains(.writeWithoutResponse) else {
                return misuse(
                    "writeValue(_:for:type: .withoutResponse) on \(characteristic.uuid.uuidString), which does not allow writes without response: not sent"
                )
            }
            let limit = maximumWriteValueLength(for: .withoutResponse)
            guard data.count <= limit else {
                return misuse(
                    "writeValue(_:for:type: .withoutResponse) of \(data.count) bytes, more than maximumWriteValueLength \(limit): not sent"
                )
            }
            // While canSendWriteWithoutResponse is false the write is still passed on: Apple's
            // header calls its delivery best-effort, and peripheralIsReady(toSendWriteWithoutResponse:)
            // follows once there is room (Formats/corebluetooth.md).
            canSendWriteWithoutResponse = central!.system.writeWithoutResponse(data, for: characteristic, on: self)
        }
    }

    public func writeValue(_ data: Data, for descriptor: CBDescriptor) {
        guard isMine(descriptor.characteristic?.service, "writeValue") else { return }
        guard descriptor.uuid.bluetoothUUID != .clientCharacteristicConfiguration else {
            // iOS raises an exception here (the decompiled framework; dotnet-bluetooth-le 448).
            return crash(
                "cccdWrittenDirectly",
                "Client Characteristic Configuration descriptors must be configured using setNotifyValue(_:for:)")
        }
        enqueue(.writeDescriptor(data, descriptor), "writeValue")
    }

    public func setNotifyValue(_ enabled: Bool, for characteristic: CBCharacteristic) {
        guard isMine(characteristic.service, "setNotifyValue") else { return }
        guard characteristic.properties.contains(.notify) || characteristic.properties.contains(.indicate) else {
            guard requireConnected("setNotifyValue") else { return }
            return failLater(.setNotifyValue(enabled, characteristic), CBATTError(.requestNotSupported))
        }
        enqueue(.setNotifyValue(enabled, characteristic), "setNotifyValue")
    }

    /// The longest value one write can carry: ATT MTU − 3 without response; 512 with response,
    /// which CoreBluetooth sends as a long write when it does not fit one request.
    @discardableResult
    public func maximumWriteValueLength(for type: CBCharacteristicWriteType) -> Int {
        switch type {
        case .withResponse: 512
        // ATT MTU − 3, and never more than an attribute holds (Core 6.0, Vol 3, Part F, §3.2.9).
        case .withoutResponse: min(mtu - 3, 512)
        }
    }

    public func readRSSI() {
        guard requireConnected("readRSSI") else { return }
        central!.system.readRSSI(of: self)
    }

    public func openL2CAPChannel(_ PSM: CBL2CAPPSM) {
        guard requireConnected("openL2CAPChannel") else { return }
        central!.system.openL2CAPChannel(PSM, on: self)
    }

    // MARK: What the system tells

    /// Called by the system: applies the event to the peripheral's objects, then tells the
    /// delegate. Returns false when the event had no object of the app to go to (a notification
    /// for a characteristic the app has not discovered or not subscribed to); nothing is called then.
    @discardableResult
    public func deliver(_ event: Event) -> Bool {
        switch event {
        case .completed(let response):
            complete(response)
        case .valueUpdated(let valueHandle, let value):
            return notify(valueHandle, .data(value))
        case .servicesChanged(let handles):
            let invalidated = (services ?? []).filter { $0.handles.overlaps(handles) }
            services?.removeAll { service in invalidated.contains { $0 === service } }
            invalidated.forEach(Self.invalidate)
            callback { $0.peripheral(self, didModifyServices: invalidated) }
        case .nameUpdated(let newName):
            // The system read the GAP Device Name: it names the peripheral from now on; the
            // delegate hears of it only when the name changes.
            deviceName = newName
            guard newName != name else { return true }
            name = newName
            callback { $0.peripheralDidUpdateName(self) }
        case .rssiRead(let value, let error):
            if error == nil { lastRSSI = value }
            callback { delegate in
                // iOS calls `peripheral(_:didReadRSSI:error:)` when the delegate implements it, and
                // the deprecated `peripheralDidUpdateRSSI(_:error:)` otherwise (the decompiled
                // `handleRSSIUpdated:` of iOS 18.2).
                guard let central,
                    !central.implemented({
                        delegate.peripheral(self, didReadRSSI: NSNumber(value: value), error: error)
                    })
                else { return }
                (self as any DeprecatedCallbacks).peripheralDidUpdateRSSI(of: delegate, error: error)
            }
        case .readyToSendWriteWithoutResponse:
            canSendWriteWithoutResponse = true
            callback { $0.peripheralIsReady(toSendWriteWithoutResponse: self) }
        case .mtuChanged(let newMTU):
            mtu = newMTU
        case .l2capChannelOpened(let channel, let error):
            callback { $0.peripheral(self, didOpen: channel, error: error) }
        case .linkLost:
            state = .disconnected
            dropUnanswered()
        }
        return true
    }

    /// A notification or indication of `bytes`, as ``deliver(_:)`` with ``Event/valueUpdated(valueHandle:_:)``
    /// delivers it; the bytes are kept as they are (no copy) until the app reads the value.
    /// `central` is this peripheral's central manager, when the caller has it already.
    /// The bytes are taken over (`consuming`): the caller's copy becomes the value's, with no
    /// second retain.
    public func deliverValue(_ bytes: consuming [UInt8], valueHandle: UInt16, via central: CBCentralManager? = nil)
        -> Bool
    {
        notify(valueHandle, via: central, .bytes(bytes))
    }

    /// A notification of the characteristic with `valueHandle` that arrives while the app's
    /// `setNotifyValue(true, for:)` waits for its answer: iOS registered the characteristic when
    /// asked, so the value reaches the delegate (a fault sweep's `notifications:early`; the grade
    /// is in Formats/faults.md). False when the app never discovered the characteristic.
    @discardableResult
    public func deliverValueBeforeSubscription(
        _ bytes: [UInt8], valueHandle: UInt16, via central: CBCentralManager? = nil
    ) -> Bool {
        guard let characteristic = characteristic(valueHandle: valueHandle) else { return false }
        characteristic.stored = .bytes(bytes)
        callback(via: central) { $0.peripheral(self, didUpdateValueFor: characteristic, error: nil) }
        return true
    }

    /// A value update of the characteristic with `valueHandle` when the app is subscribed to it:
    /// the characteristic's value becomes `value`, then the delegate hears of it.
    private func notify(
        _ valueHandle: UInt16, via central: CBCentralManager? = nil, _ value: consuming CBCharacteristic.StoredValue?
    ) -> Bool {
        guard let characteristic = characteristic(valueHandle: valueHandle), characteristic.isNotifying else {
            return false
        }
        characteristic.stored = value
        callback(via: central) { $0.peripheral(self, didUpdateValueFor: characteristic, error: nil) }
        return true
    }

    /// The characteristic the app discovered with this value handle, among valid services.
    public func characteristic(valueHandle: UInt16) -> CBCharacteristic? {
        if let notifiedLast, notifiedLast.valueHandle == valueHandle { return notifiedLast }
        for service in services ?? [] where service.handles.contains(valueHandle) {
            if let found = service.characteristics?.first(where: { $0.valueHandle == valueHandle }) {
                notifiedLast = found
                return found
            }
        }
        return nil
    }

    // MARK: Connection changes (from the central manager)

    func didConnect() {
        state = .connected
        mtu = 23
        canSendWriteWithoutResponse = true
        cancelRequested = false
    }

    /// The link is gone. iOS completes none of the requests not answered (Apple's header: once
    /// `didDisconnectPeripheral` is called, no more `CBPeripheralDelegate` methods are invoked for
    /// the peripheral; the framework drops them, Formats/corebluetooth.md): they are dropped
    /// without a callback. The peripheral is as a new link finds it: MTU 23, no write without
    /// response possible, and every service, characteristic and descriptor object invalid.
    func didDisconnect() {
        state = .disconnected
        dropUnanswered()
        mtu = 23
        canSendWriteWithoutResponse = false
        services?.forEach(Self.invalidate)
        services = nil
        cancelRequested = false
    }

    /// For a system that completed, after the app's termination, a subscription the app had asked
    /// for: the characteristic is notifying (or not), as a restored peripheral shows it. No
    /// callback.
    public func systemDidSetNotifying(_ isNotifying: Bool, for characteristic: CBCharacteristic) {
        characteristic.isNotifying = isNotifying
    }

    /// The app process that made the requests is gone (terminated): they are forgotten, not
    /// failed, and the next process starts with none.
    func abandonRequests() {
        requests = []
        inFlight = false
    }

    // MARK: Private

    private func dropUnanswered() {
        requests = []
        inFlight = false
    }

    private func enqueue(_ request: GATTRequest, _ call: String) {
        guard requireConnected(call) else { return }
        requests.append(request)
        startNext()
    }

    private func startNext() {
        guard !inFlight, let next = requests.first, state == .connected, let central else { return }
        inFlight = true
        central.system.perform(next, on: self)
    }

    private func complete(_ response: GATTResponse) {
        // An answer with no request in flight: one that raced a disconnection, which dropped its
        // request. iOS ignores it ("is not connected, ignoring message"), and so does this.
        guard inFlight, !requests.isEmpty else { return }
        let request = requests.removeFirst()
        inFlight = false
        guard let answer = GATTCallback(request, response) else {
            preconditionFailure("the system answered \(request.methodName) with \(response)")
        }
        deliver(answer, error: response.error)
        startNext()
    }

    /// The callback of `request` with `error`, for requests the link took with it and those
    /// CoreBluetooth refuses itself; the system is told first.
    private func fail(_ request: GATTRequest, _ error: any Error) {
        central?.system.peripheral(self, didFail: request, error: error)
        deliver(GATTCallback(request, GATTResponse(failing: request, with: error))!, error: error)
    }

    /// Delivers `answer`: without an error, first what it changes (the services, characteristics,
    /// descriptors, value or notification state it reports); then the delegate callback, with
    /// `error`. One switch, so that what a callback changes and the method it calls stay together.
    private func deliver(_ answer: GATTCallback, error: (any Error)?) {
        let succeeded = error == nil
        switch answer {
        case .didDiscoverServices(let found):
            if succeeded { services = merge(found, into: services ?? []) }
            callback { $0.peripheral(self, didDiscoverServices: error) }
        case .didDiscoverIncludedServices(let found, let service):
            if succeeded { service.included = merge(found, into: service.included ?? []) }
            callback { $0.peripheral(self, didDiscoverIncludedServicesFor: service, error: error) }
        case .didDiscoverCharacteristics(let found, let service):
            if succeeded {
                service.storedCharacteristics = merge(found, into: service)
                notifiedLast = nil
            }
            callback { $0.peripheral(self, didDiscoverCharacteristicsFor: service, error: error) }
        case .didDiscoverDescriptors(let found, let characteristic):
            if succeeded { characteristic.storedDescriptors = merge(found, into: characteristic) }
            callback { $0.peripheral(self, didDiscoverDescriptorsFor: characteristic, error: error) }
        case .didUpdateCharacteristicValue(let value, let characteristic):
            if succeeded { characteristic.storedValue = value }
            callback { $0.peripheral(self, didUpdateValueFor: characteristic, error: error) }
        case .didUpdateDescriptorValue(let value, let descriptor):
            if succeeded { descriptor.storedValue = value.map { CBDescriptor.value(of: $0, for: descriptor.uuid) } }
            callback { $0.peripheral(self, didUpdateValueFor: descriptor, error: error) }
        case .didWriteCharacteristic(let characteristic):
            callback { $0.peripheral(self, didWriteValueFor: characteristic, error: error) }
        case .didWriteDescriptor(let descriptor):
            callback { $0.peripheral(self, didWriteValueFor: descriptor, error: error) }
        case .didUpdateNotificationState(let isNotifying, let characteristic):
            if succeeded { characteristic.isNotifying = isNotifying }
            callback { $0.peripheral(self, didUpdateNotificationStateFor: characteristic, error: error) }
        }
    }

    /// Discovered services merged with the known ones: a service already known (same UUID and
    /// start handle) keeps its object; the list is in handle order.
    private func merge(_ found: [ServiceDefinition], into known: [CBService]) -> [CBService] {
        var result = known
        for definition in found
        where !known.contains(where: {
            $0.uuid == definition.uuid && $0.handles.lowerBound == definition.handles.lowerBound
        }) {
            result.append(
                CBService(
                    uuid: definition.uuid, isPrimary: definition.isPrimary, handles: definition.handles,
                    peripheral: self))
        }
        return result.sorted { $0.handles.lowerBound < $1.handles.lowerBound }
    }

    private func merge(_ found: [CharacteristicDefinition], into service: CBService) -> [CBCharacteristic] {
        var result = service.storedCharacteristics ?? []
        for definition in found
        where !result.contains(where: { $0.valueHandle == definition.valueHandle && $0.uuid == definition.uuid }) {
            let characteristic = CBCharacteristic(
                uuid: definition.uuid, properties: definition.properties, value: nil,
                declarationHandle: definition.declarationHandle, valueHandle: definition.valueHandle)
            characteristic.service = service
            result.append(characteristic)
        }
        return result.sorted { $0.valueHandle < $1.valueHandle }
    }

    private func merge(_ found: [DescriptorDefinition], into characteristic: CBCharacteristic) -> [CBDescriptor] {
        var result = characteristic.storedDescriptors ?? []
        for definition in found
        where !result.contains(where: { $0.handle == definition.handle && $0.uuid == definition.uuid }) {
            let descriptor = CBDescriptor(uuid: definition.uuid, value: nil, handle: definition.handle)
            descriptor.characteristic = characteristic
            result.append(descriptor)
        }
        return result.sorted { $0.handle < $1.handle }
    }

    /// A service's objects after invalidation: no longer notifying; they belong to no peripheral.
    private static func invalidate(_ service: CBService) {
        for characteristic in service.storedCharacteristics ?? [] { characteristic.isNotifying = false }
        service.peripheral = nil
    }

    /// Whether `service` is a valid service of this peripheral; records the misuse when not.
    private func isMine(_ service: CBService?, _ call: String) -> Bool {
        guard let service, service.peripheral === self else {
            misuse(
                "\(call) with an attribute that is not a valid one of this peripheral (discover it again after a disconnection or a service change)"
            )
            return false
        }
        return true
    }

    private func requireConnected(_ call: String) -> Bool {
        guard let central, central.requirePoweredOn(call) else { return false }
        guard state == .connected else {
            misuse("\(call) can only be used while the peripheral is connected (it is \(state))")
            return false
        }
        return true
    }

    private func misuse(_ message: String) {
        central?.misuse(message, about: misuseName)
    }

    private func crash(_ rule: String, _ message: String) {
        central?.crash(rule, message)
    }

    /// How misuse messages name this peripheral, made once (its address does not change).
    private lazy var misuseName = CBManager.typeName(self)

    /// A refusal the peripheral gives itself, after the app's call returns.
    private func failLater(_ request: GATTRequest, _ error: any Error) {
        central?.system.later { [backReference] in backReference.object?.fail(request, error) }
    }

    private func callback(via known: CBCentralManager? = nil, _ body: (any CBPeripheralDelegate) -> Void) {
        if let known {
            known.onDelegateQueue { if let delegate { body(delegate) } }
        } else if let central {
            central.onDelegateQueue { if let delegate { body(delegate) } }
        }
    }
}

/// What a system is told of a peripheral object the app let go of
/// (``BluetoothSystem/peripheralReleased(_:by:)``): the object itself is gone.
public struct ReleasedPeripheral: Sendable {
    public var identifier: UUID
    public var address: BluetoothAddress?
    /// Its state when it went: only a `.connected` or `.connecting` one loses a connection.
    public var state: CBPeripheralState
    /// The identity the object had, for what the system scheduled for it.
    public var object: ObjectIdentifier
}

/// Callbacks of deprecated delegate methods that iOS still makes, called through this protocol so
/// that bletrace's own build does not warn of the deprecation.
private protocol DeprecatedCallbacks {
    func peripheralDidUpdateRSSI(of delegate: any CBPeripheralDelegate, error: (any Error)?)
}

extension CBPeripheral: DeprecatedCallbacks {
    @available(*, deprecated)
    fileprivate func peripheralDidUpdateRSSI(of delegate: any CBPeripheralDelegate, error: (any Error)?) {
        delegate.peripheralDidUpdateRSSI(self, error: error)
    }
}
