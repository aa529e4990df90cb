import CBlueZ
import Foundation
import Glibc
import TestSupport
import Testing
import TraceFiles

/// `bletrace capture` on a damaged live H4 stream: a framing error is reported and
/// skipped, never fatal; a peer that goes away mid-packet leaves a valid file.
@Suite struct LiveRobustnessTests {
    static let reset: [UInt8] = [0x01, 0x03, 0x0C, 0x00]
    static let resetComplete: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
    static let notification: [UInt8] = [
        0x02, 0x01, 0x20, 0x09, 0x00, 0x05, 0x00, 0x04, 0x00, 0x1B, 0x10, 0x00, 0x00, 0x48,
    ]

    @Test func aMalformedStreamOverTCPIsReportedAndTheRecordsAroundItKept() throws {
        let server = try LoopbackServer()
        let done = server.serve([Self.reset, [0x00, 0x42, 0x02], Self.resetComplete, Self.notification])
        let output = try Fixtures.temporaryFile([], name: "live.btsnoop")
        let result = try bletrace("capture", "-i", "tcp:127.0.0.1:\(server.port)", "-w", output)
        done.wait()
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("3 records written to \(output)"))
        #expect(
            result.stderr.contains(
                "1 framing error in the H4 stream, 3 bytes skipped; the first: tcp:127.0.0.1:\(server.port): hci at byte offset 4: expected an H4 packet indicator"
            ), "\(result.stderr)")
        let (records, fault) = try Fixtures.readAll(output)
        #expect(fault == nil)
        #expect(records.map(\.kind) == [.command, .event, .acl])
        #expect(records[2].bytes == Array(Self.notification.dropFirst()))
    }

    @Test func aPeerThatClosesMidPacketLeavesAValidFile() throws {
        let server = try LoopbackServer()
        let done = server.serve([Self.reset, Self.resetComplete, Array(Self.notification.prefix(6))])
        let output = try Fixtures.temporaryFile([], name: "live.pcapng")
        let result = try bletrace("capture", "-i", "tcp:127.0.0.1:\(server.port)", "-w", output)
        done.wait()
        #expect(result.status == 1)
        #expect(result.stderr.contains("2 records written to \(output)"))
        #expect(result.stderr.contains("the peer closed the stream mid-packet"), "\(result.stderr)")
        let (records, fault) = try Fixtures.readAll(output)
        #expect(fault == nil)
        #expect(records.map(\.kind) == [.command, .event])
    }

    @Test func aMalformedStreamOverAPtyIsSkippedToo() throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        try #require(openpty(&master, &slave, nil, nil, nil) == 0)
        defer { close(master) }
        let name = String(cString: ttyname(slave))
        // Raw before anything is written, so the line discipline translates nothing.
        var settings = termios()
        tcgetattr(slave, &settings)
        cfmakeraw(&settings)
        tcsetattr(slave, TCSANOW, &settings)
        let output = try Fixtures.temporaryFile([], name: "pty.btsnoop")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bletracePath)
        process.arguments = ["capture", "-i", name, "-w", output, "--count", "3", "--duration", "20"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        usleep(300_000)
        let bytes = Self.reset + [0xEE, 0x00] + Self.resetComplete + Self.notification
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        process.waitUntilExit()
        close(slave)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 1, "\(stderr)")
        #expect(stderr.contains("1 framing error in the H4 stream, 2 bytes skipped"), "\(stderr)")
        let (records, fault) = try Fixtures.readAll(output)
        #expect(fault == nil)
        #expect(records.map(\.kind) == [.command, .event, .acl])
    }
}
