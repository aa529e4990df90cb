import BLETraceCoreBluetooth
import Flow
import Wire

extension ServerPlayback {
    /// Flow control of a peripheral manager's notifications and indications (``TransmitQueue``):
    /// an update goes to each target central's link, as many packets as its ATT PDU needs at the
    /// controller's packet length, where the capture's completions on that link free them. When
    /// a target's link has every buffer taken, nothing is sent and `updateValue` returns false
    /// (Apple's documented behaviour); `peripheralManagerIsReady(toUpdateSubscribers:)` follows
    /// when the first such link has room again. Without LE Read Buffer Size in the capture,
    /// every update is sent.
    func roomForUpdate(of valueBytes: Int, to targets: [CBCentral], for manager: CBPeripheralManager) -> Bool {
        guard let buffers = cassette.controllerBuffers else { return true }
        // The Handle Value Notification's opcode and handle, then the value.
        let packets = TransmitQueue.packets(attBytes: 3 + valueBytes, length: buffers.length)
        let links = targets.compactMap { $0.address.flatMap { linkOf[$0] } }
        for link in links { transmit[link]?.complete(upTo: replay.now, completions(link)) }
        // A link whose buffers are all taken has no room; one with a free buffer takes the whole
        // PDU (the host queues the fragments the controller has no buffer for yet).
        if let full = links.first(where: { (transmit[$0]?.held ?? 0) >= buffers.packets }) {
            if transmit[full]?.owed == false {
                transmit[full]?.owed = true
                scheduleReady(full, manager, buffers)
            }
            return false
        }
        for link in links { transmit[link]?.held += packets }
        return true
    }

    private func completions(_ link: Int) -> [Cassette.Completion] {
        cassette.completions[cassette.links[link].connection] ?? []
    }

    /// The ready callback when the capture frees room on `link`, or when the link ends (its
    /// packets go with it), whichever comes first.
    private func scheduleReady(_ link: Int, _ manager: CBPeripheralManager, _ buffers: Cassette.ControllerBuffers) {
        let completions = completions(link)
        let next = transmit[link].map { $0.next < completions.count ? completions[$0.next].time : nil } ?? nil
        let end = cassette.connections[cassette.links[link].connection].disconnection?.time
        guard let at = [next, end].compactMap({ $0 }).min() else {
            return replay.comment(
                "the app's notifications fill the controller's \(buffers.packets) buffers, and the capture shows none freed after \(Wording.sinceStart(seconds: replay.now.seconds(since: cassette.origin))): peripheralManagerIsReady does not follow"
            )
        }
        replay.schedule(at: max(replay.now, at)) { [unowned self, weak manager] in
            guard let manager else { return }
            if transmit[link] != nil, linkOf.values.contains(link) {
                transmit[link]?.complete(upTo: replay.now, completions)
                if let held = transmit[link]?.held, held >= buffers.packets {
                    return scheduleReady(link, manager, buffers)
                }
            }
            transmit[link]?.owed = false
            replay.record(.peripheralManager(.isReadyToUpdateSubscribers, manager: replay.number(manager)), [])
            manager.deliver(.readyToUpdateSubscribers)
        }
    }
}
