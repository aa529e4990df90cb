import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Flow
import Foundation
import HCI
import Wire

/// A GATT request the app made in a replay, as a fault sweep places its faults
/// (``ReplayEngine/logsRequests``).
package struct LoggedRequest: Hashable, Sendable {
    /// 1-based, in the order the app made them: the `N` of `@request:N`.
    package var number: Int
    /// Seconds after the capture's start.
    package var seconds: Double
    /// The flow event's name (`readValue`, `setNotifyValue`, …).
    package var method: String
    /// What it is about: the peripheral and the characteristic, descriptor or service the flow
    /// names, and whether it subscribes (requests alike in this are placed once per app state).
    package var target: String
    /// The request is `setNotifyValue(true, …)`.
    package var subscribes: Bool
    /// The request writes or reads a value (a refusal for security or an ATT error applies).
    package var isValueRequest: Bool
    /// The request is a discovery.
    package var isDiscovery: Bool
    /// Its place in the flow's events.
    package var event: Int
}

/// The faults of one replay and where each stands (``ReplayEngine/faults``): a part of the engine
/// that exists only when a replay injects faults or logs its requests, so that a plain replay
/// pays one test of an optional at each hook (a request, an attempt completing, a notification).
final class FaultInjector {
    /// The faults, their points in seconds or requests (frames are resolved before the replay).
    let faults: [Fault]
    /// Which have happened.
    private(set) var fired: [Bool]
    /// How many GATT requests the app made so far.
    private(set) var requests = 0
    /// Each request, when the engine logs them.
    var log: [LoggedRequest]?
    /// A connection-attempt fault that happened: the next attempt to complete fails with this
    /// HCI status (0x3E, or 0x06 for a lost bond).
    var attemptFailure: HCIStatus?

    init(faults: [Fault], logging: Bool) {
        self.faults = faults
        fired = Array(repeating: false, count: faults.count)
        log = logging ? [] : nil
    }

    func fire(_ index: Int) { fired[index] = true }

    /// A new request of the app: its number, and the request faults that take it (not yet
    /// fired): at this number, or at a time it is at or after (an early notification only a
    /// subscription).
    func take(request isSubscription: Bool, at seconds: Double) -> (number: Int, faults: [Int]) {
        requests += 1
        var taken: [Int] = []
        for (index, fault) in faults.enumerated() where !fired[index] {
            let early = fault.kind == .notification(.early)
            switch fault.point {
            case .request(let number) where fault.hitsRequest && number == requests:
                if !early || isSubscription { taken.append(index) }
            case .seconds(let at) where fault.hitsRequest && seconds >= at:
                if !early || isSubscription { taken.append(index) }
            default: continue
            }
        }
        for index in taken { fired[index] = true }
        return (requests, taken)
    }
}

extension ReplayEngine {
    /// How long after a request a refusal the capture never showed comes: one connection event
    /// at iOS's usual 30 ms interval (the answer the capture's peer gave, if any, comes no sooner
    /// in most captures).
    static let faultLatencySeconds = 0.03

    /// Sets the faults up before the replay starts: the moments' faults scheduled, Bluetooth's
    /// own as system events.
    func prepareFaults() {
        guard !faults.isEmpty || logsRequests else { return }
        let injector = FaultInjector(faults: faults, logging: logsRequests)
        self.injector = injector
        for (index, fault) in faults.enumerated() {
            switch fault.point {
            case .seconds(let seconds) where !fault.hitsRequest:
                scheduleSystem(at: cassette.origin.adding(microseconds: Self.microseconds(seconds))) { [unowned self] in
                    injector.fire(index)
                    happen(fault)
                }
            case .frame:
                comments.append(
                    "fault \(fault): a frame is placed by its time before the replay (bletrace replay --inject does it); not injected"
                )
                injector.fire(index)
            default: break
            }
        }
    }

    /// A fault of a moment happens now.
    func happen(_ fault: Fault) {
        let at = Wording.sinceStart(seconds: now.seconds(since: cassette.origin))
        switch fault.kind {
        case .linkLoss(let reason) where reason == HCIStatus.connectionFailedToBeEstablished.rawValue:
            armAttemptFailure(fault, .connectionFailedToBeEstablished, at)
        case .bondLost:
            armAttemptFailure(fault, .pinOrKeyMissing, at)
        case .linkLoss(let reason):
            let up = links.playing.keys.sorted().compactMap { address in links.given[address].map { (address, $0) } }
            guard !up.isEmpty else { return comment("fault \(fault) at \(at): no link is up; nothing to drop") }
            for (address, peripheral) in up {
                comment(
                    "fault \(fault) at \(at): \(address)'s link drops (HCI \(Fault.hexByte(reason))); the capture's peer stays, for the app to connect again"
                )
                links.injectLinkLoss(peripheral, reason: HCIStatus(rawValue: reason))
            }
        case .serviceChanged:
            let up = links.playing.keys.sorted().compactMap { address in links.given[address].map { (address, $0) } }
            guard !up.isEmpty else { return comment("fault \(fault) at \(at): no link is up; nothing changes") }
            for (address, peripheral) in up {
                comment("fault \(fault) at \(at): \(address) indicates Service Changed over every handle")
                client.serviceChanged(0x0001...0xFFFF, on: peripheral, address)
            }
        case .notification(let how):
            comment(
                "fault \(fault) at \(at): the next notification delivered is \(how == .drop ? "lost" : "delivered twice")"
            )
            client.armedNotification = how
        case .reset:
            comment("fault \(fault) at \(at): the Bluetooth daemon resets")
            process.play(.reset)
        case .power:
            comment("fault \(fault) at \(at): Bluetooth is turned off in Settings, and on again a second later")
            process.play(.powerOff)
            scheduleSystem(at: now.adding(microseconds: 1_000_000)) { [unowned self] in process.play(.powerOn) }
        case .attError, .timeout, .pairing:
            break  // a request's: ClientPlayback.inject
        }
    }

    private func armAttemptFailure(_ fault: Fault, _ status: HCIStatus, _ at: String) {
        comment(
            "fault \(fault) at \(at): the next connection to complete fails (HCI \(Fault.hexByte(status.rawValue)))")
        injector?.attemptFailure = status
    }

    /// A request the app made: logged, and the faults it takes happen. Returns the request
    /// faults that take it (ClientPlayback answers it so).
    func faultsHitting(_ request: GATTRequest, on peripheral: CBPeripheral) -> [Fault] {
        guard let injector else { return [] }
        var subscribes = false
        if case .setNotifyValue(true, let characteristic) = request, !characteristic.isNotifying { subscribes = true }
        let seconds = now.seconds(since: cassette.origin)
        let (number, taken) = injector.take(request: subscribes, at: seconds)
        if injector.log != nil, let record = records.last {
            let event = record.rendered
            let target = [
                event.argument("peripheral"), event.argument("characteristic"), event.argument("descriptor"),
                event.argument("service"),
            ]
            .compactMap { $0 }.joined(separator: " ")
            var isValue = false
            var isDiscovery = false
            switch request {
            case .readCharacteristic, .readDescriptor, .writeCharacteristic, .writeDescriptor, .setNotifyValue:
                isValue = true
            default: isDiscovery = true
            }
            injector.log!.append(
                LoggedRequest(
                    number: number, seconds: seconds, method: event.name,
                    target: target + (subscribes ? " subscribe" : ""), subscribes: subscribes,
                    isValueRequest: isValue, isDiscovery: isDiscovery, event: records.count - 1))
        }
        let hitting = taken.map { faults[$0] }
        // A moment's fault placed at this request happens while it is in flight.
        for (index, fault) in faults.enumerated() where !fault.hitsRequest && !injector.fired[index] {
            guard case .request(let at) = fault.point, at == number else { continue }
            injector.fire(index)
            scheduleSystem(at: now) { [unowned self] in happen(fault) }
        }
        return hitting
    }

    /// The requests the app made, when ``logsRequests`` is set.
    package var requestLog: [LoggedRequest] { injector?.log ?? [] }

    /// The faults that never happened (their point came after the replay's end, or no request
    /// took them).
    public var faultsNotInjected: [Fault] {
        guard let injector else { return [] }
        return faults.indices.filter { !injector.fired[$0] }.map { faults[$0] }
    }
}
