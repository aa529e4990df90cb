import CoreBluetoothCodes
import Wire

/// One event of a replay as the engine records it, typed: an actor, an event of that actor and
/// argument keys from the vocabulary (Formats/flow.md, "Actors and events"), so a word outside it
/// does not compile, and the errors callbacks carry as values. It becomes text, a ``FlowEvent``
/// line, only where it is written (``FlowWriter``) or compared (``rendered``).
///
/// ``FlowEvent`` stays the form a flow file is read into: a file may hold any words (the reader
/// checks them against the vocabulary when asked to), and patterns.
public struct FlowRecord: Hashable, Sendable {
    /// Seconds since the capture's first record.
    public var time: Double
    public var event: Event
    public var arguments: [Argument]

    public init(time: Double, _ event: Event, _ arguments: [Argument] = []) {
        self.time = time
        self.event = event
        self.arguments = arguments
    }

    /// Who and what: each actor with the events it has. A second, third … manager of the same
    /// app carries its number (`central2`); the first is 1.
    public enum Event: Hashable, Sendable {
        case system(System)
        case app(App)
        case central(Central, manager: Int = 1)
        case peripheral(Peripheral)
        case peripheralManager(PeripheralManager, manager: Int = 1)

        /// The actor as a flow line writes it: `system`, `app`, `central`, `central2`, …
        public var actor: String {
            switch self {
            case .system: "system"
            case .app: "app"
            case .peripheral: "peripheral"
            case .central(_, let manager): manager == 1 ? "central" : "central\(manager)"
            case .peripheralManager(_, let manager): manager == 1 ? "peripheralManager" : "peripheralManager\(manager)"
            }
        }

        /// The event's name as a flow line writes it.
        public var name: String {
            switch self {
            case .system(let event): event.rawValue
            case .app(let event): event.rawValue
            case .central(let event, _): event.rawValue
            case .peripheral(let event): event.rawValue
            case .peripheralManager(let event, _): event.rawValue
            }
        }
    }

    /// What happened to the app: its process, the device, Bluetooth, and what the replay noted.
    public enum System: String, CaseIterable, Sendable {
        case launch, terminate, relaunch, forceQuit, reboot, unlock, powerOff, powerOn, reset, unauthorized
        case answerDiffers, noResponse, crash, unusedPeripheral
        /// The app moved to the background or back to the foreground (issue 41 item 9).
        case background, foreground
    }

    /// What the app asked of its managers and peripherals.
    public enum App: String, CaseIterable, Sendable {
        // Central side.
        case connect, cancelPeripheralConnection, registerForConnectionEvents, scanForPeripherals, stopScan
        case discoverServices, discoverIncludedServices, discoverCharacteristics, discoverDescriptors, readValue
        case writeValue, setNotifyValue, readRSSI, openL2CAPChannel
        // Peripheral-manager side.
        case add, remove, removeAllServices, startAdvertising, stopAdvertising, respond, updateValue
        case setDesiredConnectionLatency, publishL2CAPChannel, unpublishL2CAPChannel
    }

    /// `CBCentralManagerDelegate` callbacks.
    public enum Central: String, CaseIterable, Sendable {
        case didUpdateState, willRestoreState, didConnect, didFailToConnect, didDisconnectPeripheral, didDiscover
    }

    /// `CBPeripheralDelegate` callbacks.
    public enum Peripheral: String, CaseIterable, Sendable {
        case didDiscoverServices, didDiscoverIncludedServicesFor, didDiscoverCharacteristicsFor,
            didDiscoverDescriptorsFor
        case didUpdateValueFor, didWriteValueFor, didUpdateNotificationStateFor, didModifyServices, didUpdateName
        case isReadyToSendWriteWithoutResponse
    }

    /// `CBPeripheralManagerDelegate` callbacks.
    public enum PeripheralManager: String, CaseIterable, Sendable {
        case didUpdateState, willRestoreState, didAdd, didStartAdvertising, didSubscribeTo, didUnsubscribeFrom
        case didReceiveRead, didReceiveWrite, isReadyToUpdateSubscribers
    }

    /// Every argument key an event may carry.
    public enum Key: String, CaseIterable, Sendable {
        case advertising, app, autoReconnect, captured, central, centrals, characteristic, characteristics
        case descriptor, descriptors, enabled, encryption, error, expected, includedServices
        case invalidatedServices, isNotifying, isReconnecting, kind, latency, name, offset, peripheral
        case peripherals, psm, reason, request, restoreIdentifier, result, rssi, scanServices, service
        case services, state, type, value, via
    }

    /// `key=value`. An `error=` argument holds the error as a value (``CallbackError``).
    public struct Argument: Hashable, Sendable {
        public var key: Key
        public var value: Value

        public init(_ key: Key, _ text: String) {
            self.key = key
            value = .text(text)
        }

        /// `error=`: the error a callback carries, or `nil`.
        public static func error(_ error: CallbackError?) -> Argument {
            Argument(key: .error, value: .error(error))
        }

        /// `error=` of an error as the app got it (nil: `error=nil`).
        public static func error(_ error: (any Error)?) -> Argument {
            .error(error.map(CallbackError.init))
        }

        /// `key=` bytes, written in lowercase hex (`empty` for none).
        public static func bytes(_ key: Key, _ bytes: some Sequence<UInt8>) -> Argument {
            Argument(key: key, value: .bytes(Array(bytes)))
        }

        /// `error=nil`: the callback carried no error.
        public static let noError = Argument(key: .error, value: .error(nil))

        init(key: Key, value: Value) {
            self.key = key
            self.value = value
        }
    }

    /// An argument's value: text, bytes, or a callback's error.
    public enum Value: Hashable, Sendable, CustomStringConvertible {
        case text(String)
        /// Written in lowercase hex, `empty` for none.
        case bytes([UInt8])
        /// nil is `error=nil`.
        case error(CallbackError?)

        /// Bytes as a flow writes them: lowercase hex, `empty` for none.
        public static func text(of bytes: [UInt8]) -> String {
            bytes.isEmpty ? "empty" : bytes.withUnsafeBytes { $0.hexString }
        }

        public var description: String {
            switch self {
            case .text(let text): text
            case .bytes(let bytes): Self.text(of: bytes)
            case .error(let error): error.map(\.description) ?? "nil"
            }
        }
    }

    /// The value of `key`, as text; nil without one.
    public func argument(_ key: Key) -> String? {
        arguments.first { $0.key == key }?.value.description
    }

    /// The bytes of `key` (`value=`); nil without them.
    public func bytes(_ key: Key) -> [UInt8]? {
        for argument in arguments where argument.key == key {
            if case .bytes(let bytes) = argument.value { return bytes }
        }
        return nil
    }

    /// The error the callback carried; nil for `error=nil` or none.
    public var error: CallbackError? {
        for argument in arguments where argument.key == .error {
            if case .error(let error) = argument.value { return error }
        }
        return nil
    }

    /// The event as a flow line holds it.
    public var rendered: FlowEvent {
        FlowEvent(
            time: time, actor: event.actor, name: event.name,
            arguments: arguments.map { FlowEvent.Argument($0.key.rawValue, $0.value.description) })
    }
}

/// An error a delegate callback carried, as a value: a `CBError`, a `CBATTError`, or one of
/// `CBInternalErrorDomain`'s; anything else (an app's own error type passed on) by its text.
public enum CallbackError: Hashable, Sendable, CustomStringConvertible {
    case cb(CBError.Code)
    case att(CBATTError.Code)
    case `internal`(CBInternalError)
    case other(String)

    public init(_ error: any Error) {
        switch error {
        case let error as CBError: self = .cb(error.code)
        case let error as CBATTError: self = .att(error.code)
        case let error as CBInternalError: self = .internal(error)
        default: self = .other("\(error)")
        }
    }

    /// As a flow writes it: `CBError.connectionTimeout`, `CBATTError.insufficientEncryption`.
    public var description: String {
        switch self {
        case .cb(let code): "\(CBError(code))"
        case .att(let code): "\(CBATTError(code))"
        case .internal(let error): "\(error)"
        case .other(let text): text
        }
    }
}
