import HCI
import TraceFiles
import Wire

/// Pairings as SMP shows them (``Pairing``), for the ``LifecycleAnalyzer``: per connection, the
/// Pairing Request of the pairing under way until its Pairing Response, and the last refusal for
/// security of the peer's server (what a pairing that follows answers); per peer, the last
/// connection on which it paired.
struct PairingTracker {
    private var pendingRequest: [Int: SMPPairingFeatures] = [:]
    private var securityRefusal: [Int: Int] = [:]
    private var pairedOn: [BluetoothAddress: Int] = [:]

    /// The peer's server refused a request of connection `id` for security, in `record`.
    mutating func refusedForSecurity(on id: Int, record: Int) {
        securityRefusal[id] = record
    }

    /// An SMP command on connection `id` to `peer`: begins, goes on with or ends the last of its
    /// `pairings`.
    mutating func observe(
        _ smp: SMPPDU, on id: Int, peer: BluetoothAddress?, pairings: inout [Pairing], _ record: CaptureRecord
    ) {
        let side: Pairing.Side = record.direction == .sent ? .host : .peer
        func begin() {
            var pairing = Pairing(time: record.timestamp, record: record.index, startedBy: side)
            pairing.causeRecord = securityRefusal[id]
            if let peer {
                pairing.pairedBeforeOn = pairedOn[peer].flatMap { $0 == id ? nil : $0 }
                pairedOn[peer] = id
            }
            pairings.append(pairing)
        }
        let underWay = pairings.last.map { $0.outcome == .unfinished && $0.endRecord == nil } ?? false
        switch smp.command {
        case .securityRequest:
            if !underWay {
                begin()
                pairings[pairings.count - 1].securityRequested = true
            }
        case .pairingRequest(let features):
            // A Pairing Request after a Security Request continues that pairing.
            let last = pairings.last
            if !(underWay && last?.securityRequested == true && last?.method == nil) { begin() }
            pendingRequest[id] = features
            let index = pairings.count - 1
            pairings[index].bonding = features.authenticationRequirements.bonding
            (pairings[index].requestRecord, pairings[index].requestMaxKeySize) =
                (record.index, features.maximumEncryptionKeySize)
        case .pairingResponse(let features):
            guard let request = pendingRequest.removeValue(forKey: id), let index = pairings.indices.last else { break }
            pairings[index].method = Pairing.method(initiator: request, responder: features)
            pairings[index].secureConnections =
                request.authenticationRequirements.secureConnections
                && features.authenticationRequirements.secureConnections
            pairings[index].bonding =
                request.authenticationRequirements.bonding && features.authenticationRequirements.bonding
            (pairings[index].responseRecord, pairings[index].responseMaxKeySize) =
                (record.index, features.maximumEncryptionKeySize)
        case .pairingFailed(let reason):
            if !underWay { begin() }
            let index = pairings.count - 1
            pairings[index].outcome = .failed
            pairings[index].failedBy = side
            pairings[index].failureReason = reason.rawValue
            pairings[index].endTime = record.timestamp
            pairings[index].endRecord = record.index
            pendingRequest[id] = nil
        default:
            break
        }
    }

    /// Encryption turned on, in `record`, on a connection: the pairing under way, if any, ended
    /// with it.
    static func encrypted(_ pairings: inout [Pairing], _ record: CaptureRecord) {
        guard let last = pairings.indices.last, pairings[last].outcome == .unfinished else { return }
        pairings[last].outcome = .encrypted
        pairings[last].endTime = record.timestamp
        pairings[last].endRecord = record.index
    }
}
