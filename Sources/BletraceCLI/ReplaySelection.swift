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
        // Every record goes through the pass's analysis, so that a record of another peer's
        // connection is known as one even when the recorder (whose own analysis sees only the
        // records kept) never sees that connection.
        var pass = AnalysisPass(
            reader: try AnalysisReader(path: path, air: air),
            analysis: CaptureAnalyzer(diagnosing: false, wholeRecords: true), selection: criteria)
        var cut = CutRecorder(criteria: criteria)
        pass.run(&cut)
        var cassette = cut.recorder.cassette()
        // (As Cassette.load says: an iPhone's own capture holds iOS's MTU exchange.)
        cassette.hostIsApple = pass.format == .packetLogger
        if let given { cassette.completeDatabases(given: given) }
        return (cassette, pass.fault, pass.peerMatchesNothing)
    }
}

/// The cassette recorder of the records a selection keeps.
private struct CutRecorder: RecordCollector {
    let criteria: TraceSelection
    var recorder = CassetteRecorder()

    init(criteria: TraceSelection) { self.criteria = criteria }

    mutating func add(_ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer) {
        if criteria.keeps(record, analysis.decoded, analysis.lifecycle, origin: analysis.origin!) {
            recorder.add(record, analysis.decoded)
        }
    }
}
