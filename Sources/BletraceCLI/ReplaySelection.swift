import BLETrace

/// What `--peer`, `--transport`, `--from` and `--to` mean for a replay: the cassette is the
/// capture cut to them, as if the cut were the whole capture.
///
/// - `--from`/`--to`: only the records from that many seconds after the first record to that many
///   (as `decode` shows them); the replay's clock, and so the flow's times and the times of
///   `--terminate-at` and the others, count from the first record kept.
/// - `--peer`: the records about another device are left out: those of its connections (by
///   handle, and the completion that opened it), the connects to it, and its advertising. What
///   belongs to no device (the host's own commands: scanning, advertising, its controller's
///   set-up) stays, so the app plays against a host that only ever met that peer.
/// - `--transport`: the records of the other transport's connections are left out.
extension SelectionOptions {
    /// The cassette of the records of `path` these options keep, the fault that ended the
    /// reading early, if one did, and whether `--peer` names no device of the capture.
    func cassette(path: String, air: AirOptions = AirOptions()) throws -> (Cassette, fault: (any Error)?, peerMatchesNothing: Bool) {
        let reader = try AnalysisReader(path: path, air: air)
        var recorder = CassetteRecorder()
        // Every record goes through an analysis of its own, so that a record of another peer's
        // connection is known as one even when the recorder never sees that connection.
        var analyzer = LifecycleAnalyzer()
        var decoder = TraceDecoder()
        var origin: Timestamp?
        var fault: (any Error)?
        do {
            while let record = try reader.next() {
                let decoded = decoder.decode(record)
                analyzer.add(record, decoded)
                if origin == nil { origin = record.timestamp }
                if keeps(record, decoded, analyzer, origin: origin!) { recorder.add(record, decoded) }
            }
        } catch {
            fault = error
        }
        return (recorder.cassette(), fault, peerMatchesNothing(analyzer.connections, names: analyzer.scanning.names))
    }

    /// Whether the cut keeps `record`.
    func keeps(_ record: CaptureRecord, _ decoded: DecodedRecord, _ analyzer: LifecycleAnalyzer, origin: Timestamp) -> Bool {
        guard contains(record.timestamp, origin: origin) else { return false }
        guard peer != nil || transport != nil else { return true }
        let subject = Self.subject(of: record, decoded, analyzer)
        if let address = subject.peer, !matches(peer: address, name: analyzer.scanning.name(of: address)) { return false }
        if let transport = subject.transport, !matches(transport) { return false }
        return true
    }

    /// The device a record is about, and the transport of its connection, where it is about one.
    static func subject(of record: CaptureRecord, _ decoded: DecodedRecord, _ analyzer: LifecycleAnalyzer)
        -> (peer: BluetoothAddress?, transport: Connection.Transport?)
    {
        switch decoded.packet {
        case .event(.le(.connectionComplete(let complete))): return (complete.peerAddress, .le)
        case .event(.connectionComplete(_, _, let address, _)): return (address, .classic)
        case .command(.leCreateConnection(let create)) where create.initiatorFilterPolicy == 0: return (create.peerAddress, .le)
        case .command(.leExtendedCreateConnection(let create)) where create.initiatorFilterPolicy == 0: return (create.peerAddress, .le)
        case .event(.le(.unknown(let subevent, _))) where subevent.rawValue == 0x02 || subevent.rawValue == 0x0D:
            // An advertising report: the device it heard (the first, for a report of several).
            guard case .le(let meta)? = try? HCIEventParameters.decode(record.bytes) else { return (nil, nil) }
            switch meta {
            case .advertisingReport(let reports): return (reports.first { _ in true }?.address, nil)
            case .extendedAdvertisingReport(let reports): return (reports.first { _ in true }?.address, nil)
            default: return (nil, nil)
            }
        default: break
        }
        guard let handle = decoded.handle else { return (nil, nil) }
        let connection = analyzer.openConnection(on: handle) ?? analyzer.connections.last { $0.handle == handle }
        return (connection?.peer, connection?.transport)
    }
}
