import Wire

extension DiagnosisCollector {
    /// A peer whose database changed between two of its connections with no Service Changed
    /// (issue 43 §5), for a peer bonded with this host: the full discoveries of its primary
    /// services on two connections (``ServiceLayout``, the later one compared with the latest
    /// before it) found different services, the later connection was encrypted with a bond an
    /// earlier one made, and the peer sent no Service Changed indication on either connection or
    /// on any between. The finding is at the later discovery's end; its evidence is both
    /// discoveries and the encryption.
    func databaseChanged(_ report: LifecycleReport) -> [Finding] {
        var findings: [Finding] = []
        // Per peer: the connection of its latest full discovery, and whether a Service Changed
        // came since that discovery began.
        var last: [BluetoothAddress: (connection: Connection, layout: ServiceLayout, told: Bool)] = [:]
        var bonded: Set<BluetoothAddress> = []
        for c in report.connections
        where c.transport == .le && (c.completion?.status == .success || c.beganBeforeCapture) {
            guard let peer = c.peer else { continue }
            let link = links[c.id]
            let told = link?.serviceChanges.isEmpty == false
            let layout = link?.layout ?? ServiceLayout()
            // Only a peer bonded before, on a link encrypted with the bond: where iOS keeps the
            // database (the replay's GATT cache reads the same: CassetteRecorder).
            if let earlier = last[peer], layout.isComplete, !earlier.told, !told, bonded.contains(peer),
                let encrypted = c.encryptionWithBond,
                case let changes = layout.changes(since: earlier.layout), !changes.isEmpty,
                let record = layout.completeRecord, let time = layout.completeTime
            {
                findings.append(
                    Finding(
                        rule: .databaseChanged, record: record, time: time, connection: c,
                        evidence: [earlier.layout.record, earlier.layout.completeRecord, layout.record].compactMap {
                            $0
                        }
                            + [encrypted.record],
                        facts: .databaseChanged(
                            c, earlier: earlier.connection.id, encrypted: encrypted.record, changes: changes),
                        values: ["changes": Double(changes.count)]))
            }
            if c.bonded { bonded.insert(peer) }
            if layout.isComplete {
                last[peer] = (
                    c, layout,
                    told
                        && layout.record.map { record in
                            link?.serviceChanges.contains { $0.record > record } ?? false
                        } ?? false
                )
            } else if told, let earlier = last[peer] {
                last[peer] = (earlier.connection, earlier.layout, true)
            }
        }
        return findings
    }
}
