// ATT codec hot path: decode (and, for lists, iterate) typical PDUs from borrowed bytes, and
// encode each of them into a caller-provided buffer. Each benchmark runs its body
// `scaledIterations` times (scalingFactor .kilo: an iteration of some 10 µs, short enough that
// some iterations run between two preemptions on a busy machine, so the fastest is the code's own
// time), so the reported figures are per PDU.
import Benchmark
import BenchSupport

/// Decodes `bytes` as one ATT PDU; a failure would be a bug in the inputs.
@inline(__always)
func decode(_ bytes: UnsafeRawBufferPointer) -> ATTPDU {
    do { return try ATTPDU.decode(bytes) } catch { fatalError("benchmark input does not decode: \(error)") }
}

nonisolated(unsafe) let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, .instructions]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: metrics,
        timeUnits: .nanoseconds,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 100_000,
        thresholds: codecThresholds)

    func decodeBenchmark(_ name: String, _ input: [UInt8]) {
        let pinned = PinnedBytes(input)
        Benchmark("ATT_decode_\(name)") { benchmark in
            let bytes = pinned.view
            for _ in benchmark.scaledIterations {
                blackHole(decode(bytes))
            }
        }
    }

    // The reference of this target's times (Benchmarks/ratios.json): a fixed loop over the bytes
    // of the 20-byte notification, measured in the same run.
    let reference = PinnedBytes(Packets.notification20)
    Benchmark("reference_hash_notification_20B") { benchmark in
        let bytes = reference.view
        for iteration in benchmark.scaledIterations {
            blackHole(referenceHash(bytes, seed: UInt64(iteration)))
        }
    }

    decodeBenchmark("notification_20B", Packets.notification20)
    decodeBenchmark("notification_244B", Packets.notification244)
    decodeBenchmark("Error_Response", Packets.errorResponse)
    decodeBenchmark("Write_Request", Packets.writeRequest)

    // Lists: decode, then walk every entry, so the lazy views are measured too.
    let readByType = PinnedBytes(Packets.readByTypeResponse6)
    Benchmark("ATT_decode_iterate_Read_By_Type_Response_6_pairs") { benchmark in
        let bytes = readByType.view
        for _ in benchmark.scaledIterations {
            guard case .readByTypeResponse(let list) = decode(bytes) else { fatalError() }
            var sum: UInt32 = 0
            for pair in list { sum &+= UInt32(pair.handle) &+ UInt32(pair.value.count) }
            blackHole(sum)
        }
    }
    let readByGroupType = PinnedBytes(Packets.readByGroupTypeResponse)
    Benchmark("ATT_decode_iterate_Read_By_Group_Type_Response_3_groups") { benchmark in
        let bytes = readByGroupType.view
        for _ in benchmark.scaledIterations {
            guard case .readByGroupTypeResponse(let list) = decode(bytes) else { fatalError() }
            var sum: UInt32 = 0
            for group in list { sum &+= UInt32(group.handle) &+ UInt32(group.groupEnd) &+ UInt32(group.value.count) }
            blackHole(sum)
        }
    }
    let findInformation = PinnedBytes(Packets.findInformationResponse)
    Benchmark("ATT_decode_iterate_Find_Information_Response_4_pairs") { benchmark in
        let bytes = findInformation.view
        for _ in benchmark.scaledIterations {
            guard case .findInformationResponse(let list) = decode(bytes) else { fatalError() }
            var sum: UInt32 = 0
            for entry in list { sum &+= UInt32(entry.handle); blackHole(entry.type) }
            blackHole(sum)
        }
    }

    // Encode: each PDU, decoded once, written back into a reused buffer.
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 512, alignment: 16)
    func encodeBenchmark(_ name: String, _ input: [UInt8]) {
        let pinned = PinnedBytes(input)
        Benchmark("ATT_encode_\(name)") { benchmark in
            let pdu = decode(pinned.view)
            for _ in benchmark.scaledIterations {
                var writer = ByteWriter(output)
                do { try pdu.encode(into: &writer) } catch { fatalError("\(error)") }
                blackHole(writer.count)
            }
        }
    }

    encodeBenchmark("notification_20B", Packets.notification20)
    encodeBenchmark("notification_244B", Packets.notification244)
    encodeBenchmark("Error_Response", Packets.errorResponse)
    encodeBenchmark("Write_Request", Packets.writeRequest)
    encodeBenchmark("Read_By_Type_Response_6_pairs", Packets.readByTypeResponse6)
    encodeBenchmark("Read_By_Group_Type_Response_3_groups", Packets.readByGroupTypeResponse)
    encodeBenchmark("Find_Information_Response_4_pairs", Packets.findInformationResponse)
}

/// Tolerances for `swift package benchmark thresholds check` against the stored allocation
/// counts (Thresholds/*.json): no time is stored, time is gated as a ratio to the reference
/// (Benchmarks/README.md, "The gate").
nonisolated(unsafe) let codecThresholds: [BenchmarkMetric: BenchmarkThresholds] = [
    // The harness allocates a few times per measured iteration of 1,000 operations, and
    // that varies run to run; one allocation per PDU would add 1,000.
    .mallocCountTotal: .init(absolute: [.p50: 64, .p90: 64])
]
