// HCI layer hot path: event decode (LE Connection Complete, Number Of Completed Packets) and
// ACL reassembly of one L2CAP frame arriving in 3 fragments. Per-operation figures
// (scalingFactor .kilo: iterations of some 10 µs, short enough that some run between two
// preemptions on a busy machine).
import Benchmark
import BenchSupport

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .instructions],
        timeUnits: .nanoseconds,
        scalingFactor: .kilo,
        maxDuration: .seconds(3),
        maxIterations: 100_000,
        // Allocations only: time is gated as a ratio to the reference (Benchmarks/README.md).
        thresholds: [
            // The harness allocates a few times per measured iteration of 1,000 operations, and
            // that varies run to run; one allocation per PDU would add 1,000.
            .mallocCountTotal: .init(absolute: [.p50: 64, .p90: 64])
        ])

    let connectionComplete = PinnedBytes(Packets.leConnectionCompleteEvent)
    // The reference of this target's times (Benchmarks/ratios.json): a fixed loop over the bytes
    // of the LE Connection Complete event, measured in the same run.
    Benchmark("reference_hash_LE_Connection_Complete") { benchmark in
        let bytes = connectionComplete.view
        for iteration in benchmark.scaledIterations {
            blackHole(referenceHash(bytes, seed: UInt64(iteration)))
        }
    }
    Benchmark("HCI_decode_LE_Connection_Complete_HCIEvent") { benchmark in
        let bytes = connectionComplete.view
        for _ in benchmark.scaledIterations {
            do { blackHole(try HCIEvent.decode(bytes)) } catch { fatalError("\(error)") }
        }
    }
    Benchmark("HCI_decode_LE_Connection_Complete_HCIEventParameters") { benchmark in
        let bytes = connectionComplete.view
        for _ in benchmark.scaledIterations {
            do { blackHole(try HCIEventParameters.decode(bytes)) } catch { fatalError("\(error)") }
        }
    }
    let completed = PinnedBytes(Packets.numberOfCompletedPacketsEvent)
    Benchmark("HCI_decode_Number_Of_Completed_Packets") { benchmark in
        let bytes = completed.view
        for _ in benchmark.scaledIterations {
            do {
                guard case .numberOfCompletedPackets(let list) = try HCIEventParameters.decode(bytes) else {
                    fatalError()
                }
                for entry in list { blackHole(entry) }
            } catch { fatalError("\(error)") }
        }
    }

    // A 60-byte ATT notification (L2CAP frame of 67 bytes) over 27-byte ACL packets: 3 fragments.
    let fragments = Packets.aclFragments(
        handle: 0x0040, received: true,
        att: Packets.attNotification(0x002A, Array(repeating: 0xAB, count: 60)), maxData: 27
    ).map(PinnedBytes.init)
    precondition(fragments.count == 3)
    Benchmark("ACL_reassembly_PDU_in_3_fragments") { benchmark in
        var reassembler = ACLReassembler()
        let packets = fragments.map { fragment in
            do { return try ACLPacket.decode(fragment.view) } catch { fatalError("\(error)") }
        }
        // The slot's buffer is allocated on the handle's first fragmented frame; not per PDU.
        _ = packets.map { reassembler.push($0, direction: .received) }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for fragment in fragments {
                do {
                    let packet = try ACLPacket.decode(fragment.view)
                    blackHole(reassembler.push(packet, direction: .received).frame)
                } catch { fatalError("\(error)") }
            }
        }
    }
}
