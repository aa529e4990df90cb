import ATT
import TraceFiles
import Wire

/// Subscriptions, for the ``LifecycleAnalyzer``: writes of Client Characteristic Configuration
/// descriptors (Core 6.0, Vol 3, Part G, §3.3.3.3) that took effect, on either server of a
/// connection: a Write Request once its Write Response confirms it, a Write Command at once.
struct SubscriptionTracker {
    /// A write of a descriptor: its handle, the value written (bit 0 notifications, bit 1
    /// indications) and its record.
    typealias Write = (handle: UInt16, value: UInt16, record: Int)

    /// A Write Request per connection and server, until its Write Response confirms it.
    private var pending: [Key: Write] = [:]
    private struct Key: Hashable {
        var connection: Int
        var server: GATTServer
    }
    /// The refusal the last record carried, if it refused a write of a descriptor of the peer's
    /// server (``LifecycleAnalyzer/lastRefusedSubscription``).
    var lastRefused: LifecycleAnalyzer.RefusedSubscription?

    /// An ATT request or answer of `server` on `connection` (open on `handle`), answering
    /// `answered` if it is an answer.
    mutating func observe(
        _ pdu: ATTPDU, server: GATTServer, answering answered: ATTRequest?, on connection: inout Connection,
        handle: UInt16, att: ATTTracker, _ record: CaptureRecord
    ) {
        let key = Key(connection: connection.id, server: server)
        switch pdu {
        case .writeRequest(let attribute, let value)
        where att.attribute(attribute, on: handle, server: server)?.uuid == .clientCharacteristicConfiguration
            && value.count >= 1:
            pending[key] = (attribute, UInt16(value[0]) | (value.count > 1 ? UInt16(value[1]) << 8 : 0), record.index)
        case .writeResponse:
            guard let write = pending.removeValue(forKey: key) else { break }
            subscribe(write, at: record.timestamp, server: server, on: &connection, handle: handle, att: att)
        case .errorResponse:
            if answered?.opcode == .writeRequest, let write = pending.removeValue(forKey: key), server == .peer {
                let last = connection.subscriptions.last { $0.descriptorHandle == write.handle }
                lastRefused = LifecycleAnalyzer.RefusedSubscription(
                    value: write.value, wasSubscribed: last.map { $0.mode != .off } ?? false)
            }
        default:
            break
        }
    }

    /// A Write Command of `value` to `attribute` of `server` on `connection`: a subscription at
    /// once, if the attribute is a Client Characteristic Configuration descriptor.
    mutating func command(
        _ attribute: UInt16, value: UInt16, server: GATTServer, on connection: inout Connection, handle: UInt16,
        att: ATTTracker, _ record: CaptureRecord
    ) {
        guard att.attribute(attribute, on: handle, server: server)?.uuid == .clientCharacteristicConfiguration
        else { return }
        subscribe(
            (attribute, value, record.index), at: record.timestamp, server: server, on: &connection, handle: handle,
            att: att)
    }

    /// Connection `id` ended: its writes still unconfirmed never took effect.
    mutating func ended(connection id: Int) {
        pending[Key(connection: id, server: .peer)] = nil
        pending[Key(connection: id, server: .local)] = nil
    }

    /// A write that took effect: a subscription of the client of `server`'s peer.
    private func subscribe(
        _ write: Write, at time: Timestamp, server: GATTServer, on connection: inout Connection, handle: UInt16,
        att: ATTTracker
    ) {
        let mode: Connection.Subscription.Mode =
            switch write.value & 0x3 {
            case 1: .notify
            case 2: .indicate
            case 3: .both
            default: .off
            }
        // The characteristic is the nearest value handle below its descriptor.
        var owner: (UInt16, BluetoothUUID)?
        var candidate = write.handle
        while owner == nil, candidate > 1, write.handle - candidate < 32 {
            candidate -= 1
            if let info = att.attribute(candidate, on: handle, server: server), info.role == .characteristicValue {
                owner = (candidate, info.uuid)
            }
        }
        let subscription = Connection.Subscription(
            time: time, record: write.record, descriptorHandle: write.handle,
            characteristicHandle: owner?.0, uuid: owner?.1, mode: mode)
        if server == .peer {
            connection.subscriptions.append(subscription)
        } else {
            connection.peerSubscriptions.append(subscription)
        }
    }
}
