import BLETrace
import FuzzSupport

/// The analysis pass with every collector of `lifecycle`, `errors`, `diagnose`, `gatt` and the
/// traffic histogram: the input is the records of a btsnoop H4 file (its header added when
/// missing); the reports are made at the end, as the commands make them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let path = MemoryFile.path(holding: UnsafeRawBufferPointer(start: data, count: count), after: btsnoopH4Header)
    guard var pass = try? AnalysisPass(path: path) else { return 0 }
    var collectors = Collectors()
    pass.run(&collectors)
    let report = pass.report
    let errors = pass.errors
    let findings = pass.findings
    var sum = report.connections.count &+ report.scans.count &+ errors.count &+ Int(collectors.traffic.peak)
    for connection in report.connections { sum &+= String(describing: connection).utf8.count }
    for error in errors { sum &+= String(describing: error).utf8.count }
    for finding in findings { sum &+= String(describing: finding).utf8.count }
    for entry in pass.gatt(collectors.gatt.entries) { sum &+= entry.database.services.count }
    if sum == 0x7fff_ffff { print(sum) }
    return 0
}

/// The GATT listing and the traffic histogram, side by side in one pass.
struct Collectors: RecordCollector {
    var gatt = GATTCollector()
    var traffic = TrafficHistogram(limit: 1_000)

    mutating func add(_ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer) {
        gatt.add(record, quick, &analysis)
        traffic.add(record, quick, &analysis)
    }
}
