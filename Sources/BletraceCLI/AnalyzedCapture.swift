import BLETrace

/// Reads the capture at `path` in one ``AnalysisPass`` (an over-the-air capture as `air` says),
/// its records handed to `collector`, with the progress line: how every analysis command reads
/// a capture.
func readCapture<Collector: RecordCollector & ~Copyable>(
    _ path: String, output: OutputOptions, air: AirCaptureOptions, analysis: CaptureAnalyzer,
    selection: TraceSelection, streamsOutput: Bool = false, into collector: inout Collector
) throws -> AnalysisPass {
    try readCapture(
        openAnalysis(path, air), output: output, analysis: analysis, selection: selection,
        streamsOutput: streamsOutput, into: &collector)
}

/// ``readCapture(_:output:air:analysis:selection:streamsOutput:into:)`` of a capture already
/// opened.
func readCapture<Collector: RecordCollector & ~Copyable>(
    _ reader: AnalysisReader, output: OutputOptions, analysis: CaptureAnalyzer, selection: TraceSelection,
    streamsOutput: Bool = false, into collector: inout Collector
) -> AnalysisPass {
    var pass = AnalysisPass(reader: reader, analysis: analysis, selection: selection)
    var shown = Progressed(
        progress: output.progress(for: reader.path, streamsOutput: streamsOutput), inner: collector)
    pass.run(&shown)
    collector = shown.inner
    return pass
}

/// A collector that moves the progress line on before handing each record to `inner`.
private struct Progressed<Inner: RecordCollector & ~Copyable>: RecordCollector, ~Copyable {
    var progress: ProgressLine?
    var inner: Inner

    mutating func add(_ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer) {
        progress?.advance(record)
        inner.add(record, quick, &analysis)
    }

    mutating func finish(_ analysis: borrowing CaptureAnalyzer) {
        progress?.finish()
        inner.finish(analysis)
    }
}

/// A capture read once through an ``AnalysisPass``: the pass behind `lifecycle`, `errors` and
/// `diagnose` (the diagnosis gathered only for the findings: `diagnose`, and `lifecycle`'s
/// story), with what `diagnose` says before its findings.
struct AnalyzedCapture {
    var pass: AnalysisPass
    var analysis: CaptureAnalyzer { pass.analysis }
    /// The first record's time, from which the text counts times.
    var origin: Timestamp? { pass.origin }
    /// What stopped the reading of a damaged file; everything before it is in ``analysis``.
    var fault: (any Error)? { pass.fault }
    /// With `diagnosing`: the keys and identity addresses the capture holds (counted on the
    /// records as the analysis reads them: an over-the-air capture's as HCI would carry them).
    var secrets: SecretsReport?
    /// With `diagnosing`: why the capture cannot tell the whole story, if it cannot.
    var fitness: [FitnessProblem] = []

    init(
        path: String, output: OutputOptions, air: AirCaptureOptions, diagnosing: Bool, given: GivenGATT? = nil,
        selection: TraceSelection
    ) throws {
        let reader = try openAnalysis(path, air)
        var checks = CaptureChecks(
            scanner: diagnosing ? SecretScanner() : nil,
            fitness: diagnosing && !reader.isAir ? CaptureFitness(format: reader.format) : nil)
        pass = readCapture(
            reader, output: output, analysis: CaptureAnalyzer(diagnosing: diagnosing, given: given),
            selection: selection, into: &checks)
        secrets = checks.scanner?.report
        guard diagnosing else { return }
        // An over-the-air capture's links are those the analysis translated.
        if reader.isAir {
            var air = CaptureFitness(format: reader.format)
            air.attach(reader.airCapture)
            fitness = air.problems
        } else {
            fitness = checks.fitness?.problems ?? []
        }
    }
}

/// What `diagnose` checks of every record beside the analysis: the secrets it holds, and whether
/// it can tell the story (an HCI capture's records; an over-the-air one's links are attached at
/// the end instead).
private struct CaptureChecks: RecordCollector {
    let scanner: SecretScanner?
    var fitness: CaptureFitness?

    mutating func add(_ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer) {
        scanner?.add(copy record)
        fitness?.add(record)
    }
}
