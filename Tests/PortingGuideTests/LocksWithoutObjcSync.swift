// Formats/porting.md, "objc_sync_enter": a lock of its own instead of the object's monitor.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Testing

/// Sendable because every access to `packets` holds the lock (the compiler cannot see that).
final class PacketQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var packets: [Data] = []

    func append(_ packet: Data) {
        lock.withLock { packets.append(packet) }
    }

    func drain() -> [Data] {
        lock.withLock {
            defer { packets.removeAll() }
            return packets
        }
    }
}

@Suite struct LocksWithoutObjcSyncTests {
    @Test func appendsFromManyThreadsAreAllKept() {
        let queue = PacketQueue()
        DispatchQueue.concurrentPerform(iterations: 100) { index in queue.append(Data([UInt8(index)])) }
        #expect(queue.drain().count == 100)
        #expect(queue.drain().isEmpty)
    }
}
