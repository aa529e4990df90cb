import Dispatch
import Foundation

/// The peripheral role's manager (`CBPeripheralManager`): publishes services, advertises, and
/// answers remote centrals' requests through its delegate.
///
/// The manager keeps CoreBluetooth's rules on the app's side (Formats/corebluetooth.md): each
/// read request, and each group of write requests, gets exactly one `respond(to:withResult:)`
/// (given with the group's first request); `updateValue` returning false is followed by one
/// `peripheralManagerIsReady(toUpdateSubscribers:)`; only the local name and service UUIDs are
/// advertised; a service with a cached value that is not read-only, or with a descriptor
/// CoreBluetooth does not publish, is refused.
open class CBPeripheralManager: CBManager {
    /// Something the system tells the peripheral manager.
    public enum Event {
        /// The Bluetooth state changed; `restoredState` as for ``CBCentralManager/Event/stateUpdated(_:restoredState:)``.
        case stateUpdated(CBManagerState, restoredState: [String: Any]? = nil)
        /// The answer to `add(_:)`.
        case serviceAdded(CBMutableService, error: (any Error)?)
        /// The answer to `startAdvertising(_:)`.
        case advertisingStarted(error: (any Error)?)
        case subscribed(CBCentral, to: CBMutableCharacteristic)
        case unsubscribed(CBCentral, from: CBMutableCharacteristic)
        case readRequest(CBATTRequest)
        /// One Write Request, or the writes of one Execute Write.
        case writeRequests([CBATTRequest])
        /// The transmit queue has room again (after `updateValue` returned false).
        case readyToUpdateSubscribers
        case l2capChannelPublished(CBL2CAPPSM, error: (any Error)?)
        case l2capChannelUnpublished(CBL2CAPPSM, error: (any Error)?)
        case l2capChannelOpened(CBL2CAPChannel?, error: (any Error)?)
    }

    public weak var delegate: (any CBPeripheralManagerDelegate)? {
        didSet { checkDelegate() }
    }
    public private(set) var isAdvertising = false
    /// The services added and published, in the order they were added.
    public private(set) var publishedServices: [CBMutableService] = []
    /// Read requests and write groups (by their first request) the app has not answered yet.
    public private(set) var unansweredRequests: [CBATTRequest] = []

    /// Write requests that are not the first of their group: answered through the first.
    private var groupMembers: [ObjectIdentifier: CBATTRequest] = [:]
    private var waitingForReady = false

    public convenience init() {
        self.init(delegate: nil, queue: nil, options: nil)
    }

    public convenience init(delegate: (any CBPeripheralManagerDelegate)?, queue: DispatchQueue?) {
        self.init(delegate: delegate, queue: queue, options: nil)
    }

    public init(delegate: (any CBPeripheralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil) {
        self.delegate = delegate
        super.init(queue: queue, restoreIdentifier: options?[CBPeripheralManagerOptionRestoreIdentifierKey] as? String)
        register()
        checkDelegate()
    }

    // MARK: Requests of the app

    public func add(_ service: CBMutableService) {
        guard requirePoweredOn("add") else { return }
        guard !publishedServices.contains(where: { $0 === service }) else {
            // An exception on iOS (the decompiled framework's addService: assertion).
            return crash("serviceAddedTwice", "Services cannot be added more than once (\(service.uuid.uuidString))")
        }
        for case let characteristic as CBMutableCharacteristic in service.characteristics ?? []
        where characteristic.value != nil
            && (characteristic.properties.subtracting(.read) != []
                || characteristic.permissions.subtracting(.readable) != [])
        {
            return crash(
                "cachedValueNotReadOnly",
                "Characteristics with cached values must be read-only (\(characteristic.uuid.uuidString))")
        }
        if let refusal = refusal(of: service) {
            misuse("add(_:) of \(service.uuid.uuidString): \(refusal.reason)")
            return system.later { [weak self] in
                guard let self else { return }
                callback { $0.peripheralManager(self, didAdd: service, error: refusal.error) }
            }
        }
        system.add(service, for: self)
    }

    public func remove(_ service: CBMutableService) {
        guard requirePoweredOn("remove") else { return }
        guard publishedServices.contains(where: { $0 === service }) else {
            return misuse("remove(_:) of a service that is not published (\(service.uuid.uuidString)); ignored")
        }
        publishedServices.removeAll { $0 === service }
        system.remove(service, for: self)
    }

    public func removeAllServices() {
        guard requirePoweredOn("removeAllServices") else { return }
        publishedServices = []
        system.removeAllServices(for: self)
    }

    /// Advertises `advertisementData`, of which CoreBluetooth takes only the local name and the
    /// service UUIDs (other keys are dropped, and the drop is reported).
    public func startAdvertising(_ advertisementData: [String: Any]?) {
        guard requirePoweredOn("startAdvertising") else { return }
        guard !isAdvertising else {
            return system.later { [weak self] in
                guard let self else { return }
                callback { $0.peripheralManagerDidStartAdvertising(self, error: CBError(.alreadyAdvertising)) }
            }
        }
        let allowed = [CBAdvertisementDataLocalNameKey, CBAdvertisementDataServiceUUIDsKey]
        let dropped = (advertisementData ?? [:]).keys.filter { !allowed.contains($0) }.sorted()
        if !dropped.isEmpty {
            misuse(
                "startAdvertising(_:) with \(dropped.joined(separator: ", ")): only the local name and service UUIDs are advertised; the others are dropped"
            )
        }
        system.startAdvertising(advertisementData?.filter { allowed.contains($0.key) }, for: self)
    }

    public func stopAdvertising() {
        guard requirePoweredOn("stopAdvertising") else { return }
        isAdvertising = false
        system.stopAdvertising(for: self)
    }

    /// Answers a read request, or a group of write requests through its first request. Each gets
    /// one answer; another is API misuse and is ignored.
    public func respond(to request: CBATTRequest, withResult result: CBATTError.Code) {
        guard requirePoweredOn("respond") else { return }
        if let index = unansweredRequests.firstIndex(where: { $0 === request }) {
            unansweredRequests.remove(at: index)
            groupMembers = groupMembers.filter { $0.value !== request }
            system.respond(to: request, withResult: result, for: self)
        } else if groupMembers[ObjectIdentifier(request)] != nil {
            misuse(
                "respond(to:withResult:) with a write request that is not the first of its array; answer the array once, with its first request"
            )
        } else {
            misuse("respond(to:withResult:) for a request that was answered already (or never received); ignored")
        }
    }

    /// Sends `value` to the subscribed centrals (all of them when `centrals` is nil). Returns false
    /// when the transmit queue is full: the value was not sent, and
    /// `peripheralManagerIsReady(toUpdateSubscribers:)` follows when there is room.
    @discardableResult
    public func updateValue(
        _ value: Data, for characteristic: CBMutableCharacteristic, onSubscribedCentrals centrals: [CBCentral]?
    ) -> Bool {
        guard requirePoweredOn("updateValue") else { return false }
        guard let service = characteristic.service as? CBMutableService,
            publishedServices.contains(where: { $0 === service })
        else {
            misuse("updateValue(_:for:onSubscribedCentrals:) for a characteristic of no published service; not sent")
            return false
        }
        let sent = system.updateValue(value, for: characteristic, onSubscribedCentrals: centrals, for: self)
        if !sent { waitingForReady = true }
        return sent
    }

    public func setDesiredConnectionLatency(_ latency: CBPeripheralManagerConnectionLatency, for central: CBCentral) {
        guard requirePoweredOn("setDesiredConnectionLatency") else { return }
        system.setDesiredConnectionLatency(latency, for: central, manager: self)
    }

    public func publishL2CAPChannel(withEncryption encryptionRequired: Bool) {
        guard requirePoweredOn("publishL2CAPChannel") else { return }
        system.publishL2CAPChannel(withEncryption: encryptionRequired, for: self)
    }

    public func unpublishL2CAPChannel(_ PSM: CBL2CAPPSM) {
        guard requirePoweredOn("unpublishL2CAPChannel") else { return }
        system.unpublishL2CAPChannel(PSM, for: self)
    }

    // MARK: For systems

    /// Called by the system: applies the event, then tells the delegate on its queue. Returns
    /// false when the event was not for the app (a ready signal nobody waited for).
    @discardableResult
    public func deliver(_ event: Event) -> Bool {
        switch event {
        case .stateUpdated(let newState, let restoredState):
            if let restoredState {
                if let services = restoredState[CBPeripheralManagerRestoredStateServicesKey] as? [CBMutableService] {
                    publishedServices = services
                }
                // The system kept advertising while the app was not running.
                if restoredState[CBPeripheralManagerRestoredStateAdvertisementDataKey] != nil { isAdvertising = true }
                guard
                    restore(
                        "peripheralManager(_:willRestoreState:)",
                        { callback { $0.peripheralManager(self, willRestoreState: restoredState) } })
                else { return true }
            }
            if newState != .poweredOn {
                // Below powered on, advertising stops and centrals are disconnected; below powered
                // off, the local database is cleared as well.
                isAdvertising = false
                waitingForReady = false
                unansweredRequests = []
                groupMembers = [:]
                for service in publishedServices {
                    for characteristic in service.characteristics ?? [] {
                        (characteristic as? CBMutableCharacteristic)?.subscribedCentrals = nil
                    }
                }
                if newState != .poweredOff { publishedServices = [] }
            }
            state = newState
            callback { $0.peripheralManagerDidUpdateState(self) }
        case .serviceAdded(let service, let error):
            if error == nil, !publishedServices.contains(where: { $0 === service }) {
                publishedServices.append(service)
            }
            callback { $0.peripheralManager(self, didAdd: service, error: error) }
        case .advertisingStarted(let error):
            isAdvertising = error == nil
            callback { $0.peripheralManagerDidStartAdvertising(self, error: error) }
        case .subscribed(let central, let characteristic):
            var centrals = characteristic.subscribedCentrals ?? []
            if !centrals.contains(where: { $0 === central }) { centrals.append(central) }
            characteristic.subscribedCentrals = centrals
            callback { $0.peripheralManager(self, central: central, didSubscribeTo: characteristic) }
        case .unsubscribed(let central, let characteristic):
            characteristic.subscribedCentrals?.removeAll { $0 === central }
            if characteristic.subscribedCentrals?.isEmpty == true { characteristic.subscribedCentrals = nil }
            callback { $0.peripheralManager(self, central: central, didUnsubscribeFrom: characteristic) }
        case .readRequest(let request):
            unansweredRequests.append(request)
            callback { $0.peripheralManager(self, didReceiveRead: request) }
        case .writeRequests(let requests):
            guard let first = requests.first else { return false }
            unansweredRequests.append(first)
            for member in requests.dropFirst() { groupMembers[ObjectIdentifier(member)] = first }
            callback { $0.peripheralManager(self, didReceiveWrite: requests) }
        case .readyToUpdateSubscribers:
            guard waitingForReady else { return false }
            waitingForReady = false
            callback { $0.peripheralManagerIsReady(toUpdateSubscribers: self) }
        case .l2capChannelPublished(let psm, let error):
            callback { $0.peripheralManager(self, didPublishL2CAPChannel: psm, error: error) }
        case .l2capChannelUnpublished(let psm, let error):
            callback { $0.peripheralManager(self, didUnpublishL2CAPChannel: psm, error: error) }
        case .l2capChannelOpened(let channel, let error):
            callback { $0.peripheralManager(self, didOpen: channel, error: error) }
        }
        return true
    }

    // MARK: Private

    /// Why CoreBluetooth would refuse to publish `service`, with the error `didAdd` then carries.
    private func refusal(of service: CBMutableService) -> (reason: String, error: CBError)? {
        if service.uuid.bluetoothUUID.isStackService {
            return ("the Generic Access and Generic Attribute services belong to the system", CBError(.uuidNotAllowed))
        }
        // The Client Characteristic Configuration is the system's: it makes and answers it for
        // each characteristic that notifies or indicates (a hypothesis: the framework makes the
        // descriptor object, what the daemon does with it is not known).
        for case let characteristic as CBMutableCharacteristic in service.characteristics ?? [] {
            for descriptor in characteristic.descriptors ?? []
            where descriptor.uuid.bluetoothUUID == .clientCharacteristicConfiguration {
                return (
                    "descriptor \(descriptor.uuid.uuidString): the system makes the Client Characteristic Configuration itself",
                    CBError(.uuidNotAllowed)
                )
            }
        }
        return nil
    }

    private func checkDelegate() {
        guard let delegate else { return }
        checkConformance(of: delegate, "CBPeripheralManagerDelegate") { $0 is any CBPeripheralManagerDelegate.Type }
    }

    private func callback(_ body: (any CBPeripheralManagerDelegate) -> Void) {
        onDelegateQueue {
            if let delegate { body(delegate) }
        }
    }
}
