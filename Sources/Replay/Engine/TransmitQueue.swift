import BLETraceCoreBluetooth
import Flow
import Wire

/// The app's packets in the capture host's controller, on one link: flow control for writes
/// without response (Formats/corebluetooth.md, "Flow control").
///
/// The capture holds two facts of the controller: how many LE ACL packets it can hold (LE Read
/// Buffer Size, at the host's start) and when it freed packets of each connection (Number Of
/// Completed Packets). The replay gives the app's writes without response those buffers: each
/// takes as many packets as its ATT PDU needs at the controller's packet length, and the
/// capture's completions on the link free them at the capture's times. When the app's packets
/// fill the buffers, `canSendWriteWithoutResponse` turns false, and the completion that frees
/// room calls `peripheralIsReady(toSendWriteWithoutResponse:)`. Without LE Read Buffer Size in
/// the capture, nothing is modelled (the queue always has room).
struct TransmitQueue {
    /// The app's packets the controller still holds.
    var held = 0
    /// The link's next completion not yet applied.
    var next = 0
    /// `canSendWriteWithoutResponse` turned false: the ready callback is owed.
    var owed = false

    /// Frees what the link's completions up to `time` freed of the app's packets.
    mutating func complete(upTo time: Timestamp, _ completions: [Cassette.Completion]) {
        while next < completions.count, completions[next].time <= time {
            held = max(0, held - completions[next].packets)
            next += 1
        }
    }

    /// How many ACL packets of `length` bytes an ATT PDU of `attBytes` takes, with its L2CAP
    /// header (Core 6.0, Vol 3, Part A, §3.1: 4 bytes).
    static func packets(attBytes: Int, length: Int) -> Int {
        (attBytes + 4 + length - 1) / max(1, length)
    }
}

extension ClientPlayback {
    /// A write without response of `valueBytes` bytes went to the controller on `peripheral`'s
    /// link: whether the app can send another at once (``TransmitQueue``).
    func roomAfterWrite(of valueBytes: Int, on peripheral: CBPeripheral, _ address: BluetoothAddress) -> Bool {
        guard let buffers = cassette.controllerBuffers, let playback = links.playing[address] else { return true }
        let completions = cassette.completions[playback.episode.id] ?? []
        playback.transmit.complete(upTo: replay.now, completions)
        // The Write Command's opcode and handle, then the value.
        playback.transmit.held += TransmitQueue.packets(attBytes: 3 + valueBytes, length: buffers.length)
        guard playback.transmit.held >= buffers.packets else { return true }
        if !playback.transmit.owed {
            playback.transmit.owed = true
            scheduleReady(peripheral, address, playback, buffers)
        }
        return false
    }

    /// The ready callback at the first of the link's completions that leaves room, if the
    /// capture has one.
    private func scheduleReady(
        _ peripheral: CBPeripheral, _ address: BluetoothAddress, _ playback: LinkPlayback,
        _ buffers: Cassette.ControllerBuffers
    ) {
        let completions = cassette.completions[playback.episode.id] ?? []
        guard playback.transmit.next < completions.count else {
            return replay.comment(
                "\(address): the app's writes without response fill the controller's \(buffers.packets) buffers, and the capture shows none freed on this connection after \(Wording.sinceStart(seconds: replay.now.seconds(since: cassette.origin))): canSendWriteWithoutResponse stays false"
            )
        }
        replay.schedule(at: max(replay.now, completions[playback.transmit.next].time), for: peripheral) {
            [unowned self] peripheral in
            // The link the room was owed on is still the one playing.
            guard links.playing[address] === playback else { return }
            playback.transmit.complete(upTo: replay.now, completions)
            guard playback.transmit.held < buffers.packets else {
                return scheduleReady(peripheral, address, playback, buffers)
            }
            playback.transmit.owed = false
            replay.record(.peripheral(.isReadyToSendWriteWithoutResponse), [.init(.peripheral, "\(address)")])
            peripheral.deliver(.readyToSendWriteWithoutResponse)
        }
    }
}
