#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import CBlueZ
import Foundation
import Glibc
import TestSupport
import Testing
import Wire

@testable import TraceFiles

/// The H4 relay between a host and a controller, over loopback: a scripted controller (a TCP
/// server) and a scripted host (a TCP client) talk through it, and both directions are recorded
/// with the direction of the side that wrote them.
@Suite struct LiveH4RelayTests {
    static let reset = LiveSourceTests.reset
    static let resetComplete = LiveSourceTests.resetComplete
    static let notification = LiveSourceTests.notification
    /// ACL from the host on handle 0x0040: ATT Write Command (0x52) to handle 0x002C, value 01 00.
    static let writeCommand = packet("02", "40 00 09 00", "05 00 04 00", "52 2C 00", "01 00")

    @Test func relaysBothWaysUnchangedAndRecordsEachSideWithItsDirection() throws {
        let controller = try LoopbackServer()
        let controllerGot = Box()
        let controllerDone = controller.run { client in
            // Reset in, its Command Complete out (split), a notification out, the host's write in.
            controllerGot.bytes += readExactly(client, Self.reset.count)
            sendAll(client, Array(Self.resetComplete.prefix(3)))
            usleep(10_000)
            sendAll(client, Array(Self.resetComplete.dropFirst(3)))
            usleep(10_000)
            sendAll(client, Self.notification)
            controllerGot.bytes += readExactly(client, Self.writeCommand.count)
        }
        let source = try LiveSource(parsing: "relay:127.0.0.1:0,tcp:127.0.0.1:\(controller.port)")
        let port = try #require(source.listeningPort)
        #expect(port != 0)
        #expect(source.linkType == 201)

        let hostGot = Box()
        let hostDone = DispatchSemaphore(value: 0)
        Thread {
            defer { hostDone.signal() }
            let client = connectLoopback(port)
            guard client >= 0 else { return }
            defer { close(client) }
            sendAll(client, Array(Self.reset.prefix(1)))
            usleep(10_000)
            sendAll(client, Array(Self.reset.dropFirst()))
            hostGot.bytes += readExactly(client, Self.resetComplete.count + Self.notification.count)
            sendAll(client, Self.writeCommand)
            usleep(200_000)
        }.start()

        let (records, fault) = collect(source)
        #expect(controllerDone.wait(timeout: .now() + 5) == .success)
        #expect(hostDone.wait(timeout: .now() + 5) == .success)
        #expect(fault == nil)
        #expect(source.endReason == .endOfStream)
        #expect(records.map(\.kind) == [.command, .event, .acl, .acl])
        #expect(records.map(\.direction) == [.sent, .received, .received, .sent])
        #expect(records.map(\.index) == [0, 1, 2, 3])
        #expect(
            records.map(\.bytes)
                == [Self.reset, Self.resetComplete, Self.notification, Self.writeCommand].map { Array($0.dropFirst()) })
        // Offsets count within each direction's stream.
        #expect(records.map(\.fileOffset) == [0, 0, 7, 4])
        // The link itself is untouched.
        #expect(controllerGot.bytes == Self.reset + Self.writeCommand)
        #expect(hostGot.bytes == Self.resetComplete + Self.notification)
    }

    @Test func waitingForTheHostEndsAtTheDeadlineOrAStop() throws {
        let controller = try LoopbackServer()
        _ = controller.run { _ in usleep(300_000) }
        let source = try LiveSource(parsing: "relay:127.0.0.1:0,tcp:127.0.0.1:\(controller.port)")
        #expect(try source.next(until: .now + .milliseconds(50)) == nil)
        #expect(source.endReason == .deadlinePassed)
        source.stop()
        #expect(try source.next(until: .now + .seconds(5)) == nil)
        #expect(source.endReason == .stopped)
    }

    @Test func aHostClosingMidPacketIsATruncationErrorNamingTheSide() throws {
        let controller = try LoopbackServer()
        // The controller takes the two bytes and stays connected, so the host's close comes first.
        let controllerDone = controller.run { client in
            _ = readExactly(client, 2)
            usleep(500_000)
        }
        let source = try LiveSource(parsing: "relay:127.0.0.1:0,tcp:127.0.0.1:\(controller.port)")
        let port = try #require(source.listeningPort)
        Thread {
            let client = connectLoopback(port)
            guard client >= 0 else { return }
            sendAll(client, Array(Self.reset.prefix(2)))
            usleep(50_000)
            close(client)
        }.start()
        let (records, fault) = collect(source)
        #expect(records.isEmpty)
        let error = try #require(fault as? DecodeError)
        #expect(error.recordIndex == 0)
        #expect(error.offset == 0)
        #expect(
            error.expected
                == "the rest of the 3-byte header of a command packet; the stream ended 1 byte into it (the host closed its stream mid-packet)"
        )
        #expect(controllerDone.wait(timeout: .now() + 5) == .success)
    }

    @Test func aFramingErrorSaysWhichSideWroteIt() throws {
        let controller = try LoopbackServer()
        let controllerDone = controller.run { client in
            _ = readExactly(client, Self.reset.count)
            sendAll(client, Self.resetComplete + [0x09])
            usleep(300_000)
        }
        let source = try LiveSource(parsing: "relay:127.0.0.1:0,tcp:127.0.0.1:\(controller.port)")
        let port = try #require(source.listeningPort)
        Thread {
            let client = connectLoopback(port)
            guard client >= 0 else { return }
            sendAll(client, Self.reset)
            usleep(300_000)
            close(client)
        }.start()
        let (records, fault) = collect(source)
        #expect(fault == nil)
        #expect(records.map(\.direction) == [.sent, .received])
        let error = try #require(source.framingErrors.first)
        #expect(error.offset == 7)
        #expect(error.expected.contains("not 0x09"))
        #expect(error.expected.hasSuffix("(in what the controller sent)"))
        #expect(controllerDone.wait(timeout: .now() + 5) == .success)
    }

    @Test func anUnreachableControllerFailsAtOnce() throws {
        let port = try LoopbackServer().port
        let error = try #require(throws: CaptureError.self) {
            try LiveSource(parsing: "relay:127.0.0.1:0,tcp:127.0.0.1:\(port)")
        }
        #expect("\(error)".hasPrefix("tcp:127.0.0.1:\(port): cannot connect: Connection refused"))
    }
}

final class Box: @unchecked Sendable {
    var bytes: [UInt8] = []
}

/// A blocking TCP connection to 127.0.0.1:`port`, or -1.
func connectLoopback(_ port: UInt16) -> Int32 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    if connected != 0 {
        close(descriptor)
        return -1
    }
    return descriptor
}

func sendAll(_ descriptor: Int32, _ bytes: [UInt8]) {
    var done = 0
    while done < bytes.count {
        let sent = bytes[done...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent <= 0 { return }
        done += sent
    }
}

/// Reads exactly `count` bytes, or what came before the peer closed or 5 s passed.
func readExactly(_ descriptor: Int32, _ count: Int) -> [UInt8] {
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: count)
    let deadline = ContinuousClock.now + .seconds(5)
    while result.count < count, ContinuousClock.now < deadline {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 100) >= 0 else { break }
        guard entry.revents != 0 else { continue }
        let got = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, count - result.count, 0) }
        if got <= 0 { break }
        result += buffer[0..<got]
    }
    return result
}
#endif
