import Wire

extension DiagnosisCollector {
    /// A bonded reconnect that restored no subscription (issue 43 §5): connection `c` to a peer
    /// whose earlier connection of this host's subscribed (its last CCCD write for a descriptor
    /// left notifications or indications on) and bonded, encrypted again with the bond (no
    /// pairing of its own), with no CCCD write of this host's client and no notification or
    /// indication from the peer for the rest of the link.
    func notificationsNotRestored(_ report: LifecycleReport) -> [Finding] {
        var findings: [Finding] = []
        // The last bonded connection with subscriptions left on, by peer.
        var subscribed: [BluetoothAddress: (connection: Connection, on: [Connection.Subscription])] = [:]
        // The peers a connection bonded with.
        var bonded: Set<BluetoothAddress> = []
        for c in report.connections where c.transport == .le && c.completion?.status == .success {
            guard let peer = c.peer else { continue }
            let encrypted = c.changes.first { if case .encryption(true, _) = $0.kind { true } else { false } }
            if let earlier = subscribed[peer], c.pairings.isEmpty, c.subscriptions.isEmpty, c.att.notifications == 0,
                c.att.indications == 0,
                let encrypted, let end = c.disconnection?.time ?? report.lastTime
            {
                findings.append(
                    Finding(
                        rule: .notificationsNotRestored, record: encrypted.record, time: encrypted.time, connection: c,
                        evidence: [encrypted.record] + earlier.on.map(\.record)
                            + (c.disconnection.map { [$0.record] } ?? []),
                        facts: .notificationsNotRestored(
                            c, earlier: earlier.connection.id, subscriptions: earlier.on, encrypted: encrypted.record,
                            waited: end.seconds(since: encrypted.time))))
            }
            if c.pairings.contains(where: { $0.bonding == true && $0.outcome == .encrypted }) { bonded.insert(peer) }
            // The subscriptions left on at the end, per descriptor.
            var last: [UInt16: Connection.Subscription] = [:]
            for subscription in c.subscriptions { last[subscription.descriptorHandle] = subscription }
            let on = last.values.filter { $0.mode != .off }.sorted { $0.record < $1.record }
            if bonded.contains(peer) && encrypted != nil && !on.isEmpty {
                subscribed[peer] = (c, on)
            } else if !c.subscriptions.isEmpty {
                subscribed[peer] = nil
            }
        }
        return findings
    }
}
