#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import CBlueZ
import Foundation
import Glibc
import TestSupport
import Testing
import Wire

@testable import TraceFiles

/// The live source as a whole: opening each kind on this host, waiting with a deadline, stopping
/// from another thread. The data paths have their own suites (LiveH4StreamTests,
/// LiveMonitorChannelTests, LivePcapTests).
@Suite struct LiveSourceTests {
    static let hasBluetooth = FileManager.default.fileExists(atPath: "/sys/class/bluetooth")

    /// libpcap's monitor device on a host without Bluetooth: libpcap's own words, then ours.
    @Test(arguments: ["bluetooth-monitor", "bluetooth0", "hci0"])
    func aLibpcapDeviceOnAHostWithoutBluetoothSaysWhy(name: String) throws {
        do {
            let source = try LiveSource(parsing: name)
            #expect(Self.hasBluetooth)
            #expect([254, 201].contains(source.linkType))
        } catch let error as CaptureError {
            if Self.hasBluetooth {
                // With Bluetooth but without privileges, or without that controller.
                #expect("\(error)".contains("libpcap cannot capture from it"))
                return
            }
            let device = name == "hci0" ? "bluetooth0" : name
            #expect(
                "\(error)"
                    == "\(device): libpcap cannot capture from it: Can't create raw socket: Address family not supported by protocol; this host has no Bluetooth support (the kernel offers no AF_BLUETOOTH sockets: no bluetooth module is loaded, or this is a container or virtual machine without one)"
            )
        }
    }

    /// BlueZ's monitor channel on a host without Bluetooth: socket(2) fails with EAFNOSUPPORT.
    @Test func theMonitorChannelOnAHostWithoutBluetoothSaysWhy() throws {
        do {
            let source = try LiveSource(.monitorChannel)
            #expect(Self.hasBluetooth)
            #expect(source.linkType == 254)
        } catch let error as CaptureError {
            if Self.hasBluetooth {
                #expect("\(error)".contains("hci-monitor: opening BlueZ's HCI monitor channel failed"))
                return
            }
            #expect(
                "\(error)"
                    == "hci-monitor: opening BlueZ's HCI monitor channel failed: socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI): Address family not supported by protocol; this host has no Bluetooth support (the kernel offers no AF_BLUETOOTH sockets: no bluetooth module is loaded, or this is a container or virtual machine without one)"
            )
        }
    }

    @Test func aDeadlineWithNoDataReturnsNilAndTheSourceGoesOn() throws {
        let pair = try SocketPair(type: SOCK_STREAM)
        let source = try LiveSource(device: .unix(path: "test"), backend: .h4(LiveH4Stream(adopting: pair.take())))
        let started = ContinuousClock.now
        #expect(try source.next(until: .now + .milliseconds(50)) == nil)
        #expect(source.endReason == .deadlinePassed)
        #expect(ContinuousClock.now - started >= .milliseconds(50))
        #expect(ContinuousClock.now - started < .seconds(3))
        // Data arriving later is still read.
        pair.write(Self.reset)
        let record = try #require(try source.next(until: .now + .seconds(5)))
        #expect(record.kind == .command)
        #expect(record.index == 0)
        #expect(source.endReason == nil)
    }

    @Test func stopFromAnotherThreadWakesAWaitingRead() throws {
        let pair = try SocketPair(type: SOCK_STREAM)
        let source = try LiveSource(device: .unix(path: "test"), backend: .h4(LiveH4Stream(adopting: pair.take())))
        let stopper = source.stopper
        #expect(!stopper.isStopped)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { stopper.stop() }
        let started = ContinuousClock.now
        #expect(try source.next(until: .now + .seconds(10)) == nil)
        #expect(source.endReason == .stopped)
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(stopper.isStopped)
        // Final: data that arrives after the stop is not read.
        pair.write(Self.reset)
        #expect(try source.next(until: .now + .milliseconds(100)) == nil)
        #expect(source.endReason == .stopped)
    }

    @Test func packetsAlreadyReceivedAreReturnedBeforeAStopTakesEffect() throws {
        let pair = try SocketPair(type: SOCK_STREAM)
        let source = try LiveSource(device: .unix(path: "test"), backend: .h4(LiveH4Stream(adopting: pair.take())))
        // Both packets arrive in one read; the stop comes after the first is returned.
        pair.write(Self.reset + Self.resetComplete)
        let first = try #require(try source.next(until: .now + .seconds(5)))
        #expect(first.kind == .command)
        source.stop()
        let second = try #require(try source.next(until: .now + .seconds(5)))
        #expect(second.kind == .event)
        #expect(try source.next() == nil)
        #expect(source.endReason == .stopped)
    }

    @Test func aFaultIsThrownAgainOnEveryLaterCall() throws {
        let pair = try SocketPair(type: SOCK_STREAM)
        let source = try LiveSource(device: .unix(path: "test"), backend: .h4(LiveH4Stream(adopting: pair.take())))
        // An event cut short by the peer (a framing error is skipped, not a fault).
        pair.write([0x04, 0x0E])
        pair.closeWriter()
        let first = try #require(throws: DecodeError.self) { try source.next(until: .now + .seconds(5)) }
        let again = try #require(throws: DecodeError.self) { try source.next(until: .now + .seconds(5)) }
        #expect(first == again)
    }

    // MARK: - Hand-written HCI, from the Core specification

    /// HCI_Reset (OGF 0x03, OCF 0x0003: opcode 0x0C03), no parameters. Core 6.0, Vol 4, Part E, §7.3.2.
    static let reset = packet("01", "03 0C", "00")
    /// HCI_Command_Complete (0x0E) for it: 1 command credit, opcode 0x0C03, status success.
    static let resetComplete = packet("04", "0E 04", "01", "03 0C", "00")
    /// ACL on handle 0x0040, first automatically flushable fragment (PB 0b10), 10 bytes: an L2CAP
    /// frame of 6 bytes on CID 4 (ATT) holding Handle Value Notification (0x1B) of handle 0x002A,
    /// value 01 02 03.
    static let notification = packet("02", "40 20 0A 00", "06 00 04 00", "1B 2A 00", "01 02 03")
    static let stream = reset + resetComplete + notification
}

// MARK: - Helpers shared by the live suites

/// Every record until the source returns nil, throws, or `within` passes; bytes copied.
func collect(_ source: LiveSource, within: Duration = .seconds(5), limit: Int = 100) -> (
    records: [OwnedRecord], fault: (any Error)?
) {
    let deadline = ContinuousClock.now + within
    var records: [OwnedRecord] = []
    do {
        while records.count < limit, let record = try source.next(until: deadline) {
            records.append(OwnedRecord(record))
        }
    } catch {
        return (records, error)
    }
    return (records, nil)
}

/// A connected `AF_UNIX` socket pair: the test writes to one end, a source reads the other.
final class SocketPair: @unchecked Sendable {
    private var ends: [Int32] = [-1, -1]
    private var taken = false

    init(type: __socket_type) throws {
        guard socketpair(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw CaptureError.live("socketpair: \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        if !taken { close(ends[1]) }
        if ends[0] >= 0 { close(ends[0]) }
    }

    /// The reading end, handed over to whoever closes it.
    func take() -> Int32 {
        taken = true
        return ends[1]
    }

    /// Writes all of `bytes` (one datagram, for SOCK_SEQPACKET).
    func write(_ bytes: [UInt8]) {
        let written = bytes.withUnsafeBytes { Glibc.send(ends[0], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        precondition(written == bytes.count, "short write to the test socket")
    }

    func closeWriter() {
        close(ends[0])
        ends[0] = -1
    }
}
#endif
