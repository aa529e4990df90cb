#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import Foundation
import Glibc
import TestSupport
import Testing
import TraceFiles

/// `bletrace capture` against an H4 stream served over loopback, as a virtual controller would.
@Suite struct CaptureTests {
    // Hand-written H4 packets (Core 6.0, Vol 4, Part A and Part E):
    // a Reset command, its Command Complete, and an ACL packet carrying an ATT notification of
    // handle 0x0010 with value 0x0048 on connection handle 0x0001.
    static let reset: [UInt8] = [0x01, 0x03, 0x0C, 0x00]
    static let resetComplete: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
    static let notification: [UInt8] = [
        0x02, 0x01, 0x20, 0x09, 0x00, 0x05, 0x00, 0x04, 0x00, 0x1B, 0x10, 0x00, 0x00, 0x48,
    ]

    @Test func capturesAnH4StreamIntoAFileUntilTheCount() throws {
        let server = try LoopbackServer()
        let done = server.serve(
            [Self.reset, Self.resetComplete + Self.notification.prefix(5), Array(Self.notification.dropFirst(5))],
            holdOpen: .seconds(3))
        let output = try Fixtures.temporaryFile([], name: "live.btsnoop")
        let result = try bletrace("capture", "-i", "tcp:127.0.0.1:\(server.port)", "-w", output, "--count", "3")
        done.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("3 records written to \(output)"))
        let (records, fault) = try Fixtures.readAll(output)
        #expect(fault == nil)
        #expect(records.map(\.kind) == [.command, .event, .acl])
        #expect(records.map(\.direction) == [.sent, .received, .received])
        #expect(records[2].bytes == Array(Self.notification.dropFirst()))
        #expect(try CaptureReader(path: output).format == .btsnoop(datalink: 1002))
    }

    @Test func aCaptureEndedBySIGTERMLeavesAValidFileWithEveryRecord() throws {
        let server = try LoopbackServer()
        let done = server.serve([Self.reset, Self.resetComplete], holdOpen: .seconds(10))
        let output = try Fixtures.temporaryFile([], name: "live.pcapng")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bletracePath)
        process.arguments = ["capture", "-i", "tcp:127.0.0.1:\(server.port)", "-w", output]
        process.standardError = Pipe()
        try process.run()
        // Wait (at most 5 s) until both records are on disk, then stop the capture.
        let give = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < give, ((try? Fixtures.readAll(output))?.records.count ?? 0) < 2 { usleep(20_000) }
        let beforeStop = try Fixtures.readAll(output)
        #expect(beforeStop.records.count == 2)
        #expect(beforeStop.fault == nil)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let (records, fault) = try Fixtures.readAll(output)
        #expect(fault == nil)
        #expect(records.map(\.kind) == [.command, .event])
        _ = done.wait(timeout: .now() + 10)
    }

    @Test func noBluetoothOnThisHostIsAClearError() throws {
        guard !FileManager.default.fileExists(atPath: "/sys/class/bluetooth") else { return }
        let result = try bletrace("capture", "--monitor", "-w", try Fixtures.temporaryFile([], name: "x.btsnoop"))
        #expect(result.status == 1)
        #expect(result.stderr.contains("Address family not supported by protocol"))
    }

    @Test func aSourceIsRequiredAndOnlyOne() throws {
        #expect(try bletrace("capture", "-w", "x.btsnoop").status == 2)
        #expect(try bletrace("capture", "--monitor", "-i", "hci0", "-w", "x.btsnoop").status == 2)
    }
}
#endif
