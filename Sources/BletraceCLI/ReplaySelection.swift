import BLETrace

/// What `--peer`, `--transport`, `--from` and `--to` mean for a replay: the cassette is the
/// capture cut to them (``TraceSelection/keeps(_:_:_:origin:)``), as if the cut were the whole
/// capture.
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
    func cassette(path: String, air: AirOptions = AirOptions(), given: GivenGATT? = nil) throws -> (
        Cassette, fault: (any Error)?, peerMatchesNothing: Bool
    ) {
        let reader = try AnalysisReader(path: path, air: air)
        let criteria = self.criteria
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
                if criteria.keeps(record, decoded, analyzer, origin: origin!) { recorder.add(record, decoded) }
            }
        } catch {
            fault = error
        }
        var cassette = recorder.cassette()
        if let given { cassette.completeDatabases(given: given) }
        return (cassette, fault, criteria.peerMatchesNothing(analyzer.connections, names: analyzer.scanning.names))
    }
}
