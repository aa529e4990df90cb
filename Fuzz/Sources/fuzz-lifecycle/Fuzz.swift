import BLETrace
import FuzzSupport

/// The lifecycle analyser and its collectors (errors, GATT, traffic) fed decoded records: the
/// input is the records of a btsnoop H4 file (its header added when missing); the report is made
/// at the end, as `bletrace lifecycle`, `errors` and `gatt` do.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let path = MemoryFile.path(holding: UnsafeRawBufferPointer(start: data, count: count), after: btsnoopH4Header)
    var decoder = TraceDecoder()
    var analyzer = LifecycleAnalyzer()
    var errors = ErrorCollector()
    var gatt = GATTCollector()
    var traffic = TrafficHistogram(limit: 1_000)
    forEachRecord(path) { record in
        let decoded = decoder.decode(record)
        analyzer.add(record, decoded)
        errors.add(record, decoded, analyzer: analyzer)
        gatt.add(record, decoded, analyzer: analyzer)
        traffic.add(record, decoded, analyzer: analyzer)
    }
    let report = analyzer.report
    var sum = report.connections.count &+ report.scans.count &+ errors.errors.count &+ Int(traffic.peak)
    for connection in report.connections { sum &+= String(describing: connection).utf8.count }
    for error in errors.errors { sum &+= String(describing: error).utf8.count }
    if sum == 0x7fff_ffff { print(sum) }
    return 0
}
