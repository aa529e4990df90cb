// Containers (Formats/containers.md): the generated 1,000,000-record capture (60 MB) compressed
// with gzip, and in a sysdiagnose-shaped .tar.gz, unpacked by CaptureContainer.open (zlib through
// the streaming inflater, the tar walker, the member written to a temporary file in chunks), then
// read once through CaptureReader as every command reads it. Peak resident memory is the point:
// it must stay flat (a few MiB of buffers), not grow with the member. The compressed files are
// made once beside the capture with gzip and tar (the tar holds the btsnoop in logs/Bluetooth/, where
// a sysdiagnose keeps its PacketLogger files). One iteration = one whole container.
import Benchmark
import BenchGate
import BenchSupport
import BLETrace
import Foundation

let benchmarks: @Sendable () -> Void = {
    guard BenchCapture.isThere(for: "Containers") else { return }
    let gzip = BenchCapture.path + ".gz"
    let folder = (BenchCapture.path as NSString).deletingLastPathComponent
    let sysdiagnose = folder + "/sysdiagnose_bench.tar.gz"
    if access(gzip, R_OK) != 0 || access(sysdiagnose, R_OK) != 0 {
        let script = """
            set -e
            gzip -c "$0" > "$1.partial" && mv "$1.partial" "$1"
            work=$(mktemp -d); mkdir -p "$work/sysdiagnose_bench/logs/Bluetooth"
            cp "$0" "$work/sysdiagnose_bench/logs/Bluetooth/hci.btsnoop"
            tar --format=pax -czf "$2.partial" -C "$work" sysdiagnose_bench && mv "$2.partial" "$2"
            rm -rf "$work"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, BenchCapture.path, gzip, sysdiagnose]
        do { try process.run() } catch { fatalError("cannot make the containers: \(error)") }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { fatalError("gzip or tar failed") }
    }

    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, processCPU, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds,
        maxDuration: .seconds(30),
        maxIterations: 5,
        // Allocations only: the unpacking threads make them 145-356 from run to run, where one
        // allocation a record would add 1,000,000. Time is gated as a ratio to the framing pass
        // (Benchmarks/ratios.json).
        thresholds: [.mallocCountTotal: .init(absolute: [.p50: 256, .p90: 256])])

    for (name, path) in [
        ("gzip_1M_records_unpack_and_read", gzip), ("sysdiagnose_tar_gz_1M_records_unpack_and_read", sysdiagnose),
    ] {
        Benchmark(name) { benchmark in
            benchmark.measuringCPU {
                do {
                    guard let container = try CaptureContainer.open(path: path) else {
                        fatalError("\(path) is not a container")
                    }
                    defer { container.close() }
                    guard let member = container.defaultMember else { fatalError("\(path) holds no capture") }
                    let reader = try CaptureReader(path: member.extractedPath)
                    var records = 0
                    try reader.forEach { _ in records &+= 1 }
                    blackHole(records)
                } catch { fatalError("\(error)") }
            }
        }
    }
}
