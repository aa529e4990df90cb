import BLETrace

/// A capture read once through a ``CaptureAnalyzer``, with the progress line: the pass behind
/// `lifecycle`, `errors` and `diagnose` (the diagnosis gathered only for the findings:
/// `diagnose`, and `lifecycle`'s story).
struct AnalyzedCapture {
    var analysis: CaptureAnalyzer
    /// The first record's time, from which the text counts times.
    var origin: Timestamp?
    /// What stopped the reading of a damaged file; everything before it is in ``analysis``.
    var fault: (any Error)?
    /// With `diagnosing`: the keys and identity addresses the capture holds (counted on the
    /// records as the analysis reads them: an over-the-air capture's as HCI would carry them).
    var secrets: SecretsReport?
    /// With `diagnosing`: why the capture cannot tell the whole story, if it cannot.
    var fitness: [FitnessProblem] = []

    init(path: String, output: OutputOptions, air: AirCaptureOptions, diagnosing: Bool, given: GivenGATT? = nil) throws
    {
        let reader = try openAnalysis(path, air)
        var progress = output.progress(for: path, streamsOutput: false)
        var analysis = CaptureAnalyzer(diagnosing: diagnosing, given: given)
        var origin: Timestamp?
        let scanner = diagnosing ? SecretScanner() : nil
        // An over-the-air capture's links are attached at the end, as translated for the analysis.
        var fitness = diagnosing && !reader.isAir ? CaptureFitness(format: reader.format) : nil
        do {
            try reader.forEach { record in
                progress?.advance(record)
                if origin == nil { origin = record.timestamp }
                analysis.add(record)
                scanner?.add(copy record)
                fitness?.add(record)
            }
        } catch { fault = error }
        progress?.finish()
        analysis.attach(reader.airCapture)
        if diagnosing && reader.isAir {
            fitness = CaptureFitness(format: reader.format)
            fitness?.attach(reader.airCapture)
        }
        (self.analysis, self.origin, secrets) = (analysis, origin, scanner?.report)
        self.fitness = fitness?.problems ?? []
    }
}
