import CoreBluetoothCodes
import HCI
import TestSupport
import Testing
import Wire

@testable import Lifecycle

/// Feeds hand-built records through the decoder and the analyzer.
func analyze(_ records: [OwnedRecord]) -> LifecycleReport {
    var decoder = TraceDecoder()
    var analyzer = LifecycleAnalyzer()
    for record in records {
        record.withRecord { analyzer.add($0, decoder.decode($0)) }
    }
    return analyzer.report
}

/// Annotated HCI packets (no H4 byte), Core 6.0, Vol 4, Part E.
enum Packets {
    // LE Create Connection (0x200D), 25 bytes: scan interval/window, filter policy 0, peer type 1,
    // peer F0:F1:F2:F3:F4:05, own type 0, interval 24..40, latency 0, timeout 42, CE 0..0.
    static let createConnection = "0d20 19 6000 3000 00 01 05f4f3f2f1f0 00 1800 2800 0000 2a00 0000 0000"
    // The same, connecting to whoever is on the filter accept list (policy 1).
    static let createConnectionFilter = "0d20 19 6000 3000 01 00 000000000000 00 1800 2800 0000 2a00 0000 0000"
    static let createConnectionCancel = "0e20 00"
    static func commandStatus(_ status: UInt8, opcode: String = "0d20") -> String {
        "0f 04 \(hexByte(status)) 01 \(opcode)"
    }
    // LE Connection Complete: status, handle, role 0 (central), peer type 1, peer, interval 40,
    // latency 0, timeout 42, clock accuracy 0.
    static func connectionComplete(_ status: UInt8, handle: UInt16, role: UInt8 = 0) -> String {
        "3e 13 01 \(hexByte(status)) \(le16(handle)) \(hexByte(role)) 01 05f4f3f2f1f0 2800 0000 2a00 00"
    }
    static func disconnect(handle: UInt16, reason: UInt8 = 0x13) -> String {
        "0604 03 \(le16(handle)) \(hexByte(reason))"
    }
    static func disconnectionComplete(handle: UInt16, reason: UInt8) -> String {
        "05 04 00 \(le16(handle)) \(hexByte(reason))"
    }
    /// ACL carrying an ATT PDU in one L2CAP frame.
    static func att(handle: UInt16, _ pdu: String) -> String {
        let bytes = Wire.bytes(hex: pdu)!
        return "\(le16(handle)) \(le16(UInt16(bytes.count + 4))) \(le16(UInt16(bytes.count))) 0400 \(pdu)"
    }
    static func hexByte(_ value: UInt8) -> String { Wire.hex(value, digits: 2, prefixed: false) }
    static func le16(_ value: UInt16) -> String { hexByte(UInt8(value & 0xFF)) + hexByte(UInt8(value >> 8)) }
}

func command(_ hex: String, at time: Int64 = 0) -> OwnedRecord {
    OwnedRecord(kind: .command, direction: .sent, hex: hex, time: time)
}
func event(_ hex: String, at time: Int64 = 0) -> OwnedRecord {
    OwnedRecord(kind: .event, direction: .received, hex: hex, time: time)
}
func acl(_ hex: String, _ direction: Direction, at time: Int64 = 0) -> OwnedRecord {
    OwnedRecord(kind: .acl, direction: direction, hex: hex, time: time)
}

@Suite struct LifecycleAnalyzerTests {
    @Test func followsAnAttemptToItsConnectionAndAPeerDisconnection() {
        let report = analyze([
            command(Packets.createConnection, at: 100),
            event(Packets.commandStatus(0), at: 110),
            event(Packets.connectionComplete(0, handle: 0x40), at: 200),
            acl(Packets.att(handle: 0x40, "02f700"), .sent, at: 300),  // Exchange MTU Request 247
            acl(Packets.att(handle: 0x40, "031700"), .received, at: 310),  // Response 23
            acl(Packets.att(handle: 0x40, "1b0300aabb"), .received, at: 400),  // notification
            event(Packets.disconnectionComplete(handle: 0x40, reason: 0x13), at: 5_000_200),
        ])
        #expect(report.connections.count == 1)
        let connection = report.connections[0]
        #expect(connection.peer == BluetoothAddress("F0:F1:F2:F3:F4:05"))
        #expect(connection.role == .central)
        #expect(connection.attempt?.time.microseconds == 100)
        #expect(connection.completion?.time.microseconds == 200)
        #expect(connection.handle == 0x40)
        #expect(connection.mtu == 23)
        #expect(connection.att.requests == 1)
        #expect(connection.att.notifications == 1)
        #expect(connection.disconnection?.reason == .remoteUserTerminatedConnection)
        #expect(connection.disconnection?.initiator == .remote)
        #expect(
            connection.cbError
                == Mapped<ConnectionError?>(value: .cb(CBError(.peripheralDisconnected)), evidence: .reported))
        #expect(connection.outcome == .disconnected)
        #expect(connection.duration == 5.0)
    }

    @Test func aDisconnectionTheHostAskedForCarriesNoError() {
        let report = analyze([
            event(Packets.connectionComplete(0, handle: 1)),
            command(Packets.disconnect(handle: 1, reason: 0x13)),
            // Bumble's controller reports the host's 0x13 here; a real one would say 0x16.
            event(Packets.disconnectionComplete(handle: 1, reason: 0x13)),
        ])
        #expect(report.connections[0].disconnection?.initiator == .local)
        #expect(report.connections[0].cbError == Mapped(value: nil, evidence: .documented))
    }

    @Test func reasonConnectionTerminatedByLocalHostIsLocalEvenWithoutTheCommand() {
        let report = analyze([
            event(Packets.connectionComplete(0, handle: 1)),
            event(Packets.disconnectionComplete(handle: 1, reason: 0x16)),
        ])
        #expect(report.connections[0].disconnection?.initiator == .local)
    }

    @Test func reconnectLoopsOnOneHandleAreSeparateConnections() {
        var records: [OwnedRecord] = []
        for round in 0..<3 {
            let base = Int64(round) * 1_000_000
            records += [
                command(Packets.createConnection, at: base),
                event(Packets.connectionComplete(0, handle: 0x40), at: base + 100),
                event(Packets.disconnectionComplete(handle: 0x40, reason: 0x08), at: base + 500_000),
            ]
        }
        let report = analyze(records)
        #expect(report.connections.count == 3)
        #expect(report.connections.allSatisfy { $0.handle == 0x40 && $0.disconnection?.reason == .connectionTimeout })
        #expect(report.connections.map { $0.completion?.time.microseconds } == [100, 1_000_100, 2_000_100])
        #expect(report.connections.allSatisfy { $0.cbError?.value == .cb(CBError(.connectionTimeout)) })
    }

    @Test func interleavedConnectionsKeepTheirOwnTraffic() {
        let report = analyze([
            event(Packets.connectionComplete(0, handle: 1)),
            event(Packets.connectionComplete(0, handle: 2)),
            acl(Packets.att(handle: 2, "1b0300aa"), .received),
            acl(Packets.att(handle: 1, "1d0300aa"), .received),
            acl(Packets.att(handle: 2, "1b0300bb"), .received),
            event(Packets.disconnectionComplete(handle: 1, reason: 0x08)),
        ])
        #expect(report.connections.map(\.att.notifications) == [0, 2])
        #expect(report.connections.map(\.att.indications) == [1, 0])
        #expect(report.connections.map(\.outcome) == [.disconnected, .open])
    }

    @Test func anAttemptThatNeverCompletesStaysPending() {
        let report = analyze([command(Packets.createConnection), event(Packets.commandStatus(0))])
        #expect(report.connections.map(\.outcome) == [.pending])
    }

    @Test func aCancelledAttemptIsCancelledWithOrWithoutItsCompletion() {
        let withCompletion = analyze([
            command(Packets.createConnection), command(Packets.createConnectionCancel),
            event(Packets.connectionComplete(0x02, handle: 0)),
        ])
        #expect(withCompletion.connections.map(\.outcome) == [.cancelled])
        #expect(withCompletion.connections[0].cbError == nil)
        // Bumble's virtual controller never sends the completion.
        let without = analyze([command(Packets.createConnection), command(Packets.createConnectionCancel)])
        #expect(without.connections.map(\.outcome) == [.cancelled])
    }

    @Test func aRefusedAttemptFailsWithItsStatus() {
        let report = analyze([command(Packets.createConnection), event(Packets.commandStatus(0x0C))])
        #expect(report.connections[0].outcome == .failed)
        #expect(report.connections[0].completion?.status == .commandDisallowed)
        #expect(report.connections[0].cbError?.value == .cb(CBError(.unknown)))
    }

    /// 0x3E on the completion: the app is told what the replay's default reading says, nothing
    /// (iOS tries again by itself), where the analysis once said didFailToConnect(connectionFailed).
    @Test func aFailedToBeEstablishedCompletionTellsTheAppWhatTheDefaultReadingDoes() {
        let report = analyze([command(Packets.createConnection), event(Packets.connectionComplete(0x3E, handle: 0))])
        let connection = report.connections[0]
        #expect(connection.outcome == .failed)
        #expect(connection.failedEstablishment == connection.completion?.time && connection.completion != nil)
        #expect(EstablishmentFailure.default == .retry)
        #expect(connection.cbError == nil, "no didFailToConnect: iOS tries again and calls nothing")
        // The Android side is unchanged: its app hears of the failure.
        #expect(connection.android != nil)
    }

    /// A link that completes and is lost with 0x3E before its first exchange is a failed
    /// establishment too, where the analysis once gave didDisconnectPeripheral(connectionFailed).
    @Test func aLinkLostWith0x3EBeforeItsFirstExchangeTellsTheAppNothing() {
        let report = analyze([
            command(Packets.createConnection), event(Packets.connectionComplete(0, handle: 1)),
            event(Packets.disconnectionComplete(handle: 1, reason: 0x3E)),
        ])
        let connection = report.connections[0]
        #expect(connection.failedEstablishment == connection.disconnection?.time && connection.disconnection != nil)
        #expect(connection.cbError == nil)
        // Any other reason is told as before.
        let timeout = analyze([
            command(Packets.createConnection), event(Packets.connectionComplete(0, handle: 1)),
            event(Packets.disconnectionComplete(handle: 1, reason: 0x08)),
        ]).connections[0]
        #expect(timeout.failedEstablishment == nil)
        #expect(timeout.cbError?.value == .cb(CBError(.connectionTimeout)))
    }

    @Test func aFilterAcceptListAttemptLearnsItsPeerFromTheCompletion() {
        let report = analyze([command(Packets.createConnectionFilter), event(Packets.connectionComplete(0, handle: 3))])
        #expect(report.connections[0].attempt?.usesFilterAcceptList == true)
        #expect(report.connections[0].peer == BluetoothAddress("F0:F1:F2:F3:F4:05"))
    }

    @Test func trafficBeforeAnyConnectionEventMeansTheConnectionBeganBeforeTheCapture() {
        let report = analyze([
            acl(Packets.att(handle: 0x41, "0a0300"), .sent),
            event(Packets.disconnectionComplete(handle: 0x41, reason: 0x16)),
        ])
        #expect(report.connections.count == 1)
        #expect(report.connections[0].beganBeforeCapture)
        #expect(report.connections[0].att.requests == 1)
        #expect(report.connections[0].outcome == .disconnected)
    }

    @Test func aDisconnectionDuringDiscoveryKeepsTheCountsSoFar() {
        let report = analyze([
            event(Packets.connectionComplete(0, handle: 1)),
            acl(Packets.att(handle: 1, "10 0100 ffff 0028"), .sent),  // Read By Group Type Request
            event(Packets.disconnectionComplete(handle: 1, reason: 0x08)),
        ])
        #expect(report.connections[0].att.requests == 1)
        #expect(report.connections[0].disconnection?.reason == .connectionTimeout)
    }

    @Test func androidDebugRecordsOnHandle0EDCAreNotAConnection() {
        let report = analyze([acl(Packets.att(handle: 0x0EDC, "0a0300"), .received)])
        #expect(report.connections.isEmpty)
    }
}

/// Real captures, with facts counted by tshark 4.0 (the shared folder's captures/public/SOURCES.md).
@Suite struct LifecycleOnRealCapturesTests {
    @Test func theBundledReconnectCaptureHasATimeoutThenALocalDisconnectOnOneHandle() throws {
        let (report, fault) = try LifecycleAnalyzer.analyze(
            path: Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        #expect(fault == nil)
        #expect(report.connections.count == 2)
        #expect(report.connections.map(\.handle) == [1, 1])
        #expect(
            report.connections.map(\.disconnection?.reason) == [.connectionTimeout, .remoteUserTerminatedConnection])
        #expect(report.connections.map(\.disconnection?.initiator) == [.remote, .local])
        #expect(report.connections.map(\.mtu) == [247, 247])
        #expect(report.connections.map(\.att.notifications) == [3, 1])
    }

    @Test(.sharedCaptures) func jkbmsReconnectsSixTimesReusingHandle0x0040() throws {
        let (report, _) = try LifecycleAnalyzer.analyze(path: Fixtures.publicCapture("syssi-jkbms-can-rs485.btsnoop"))
        let le = report.connections.filter { $0.transport == .le && $0.completion?.status == .success }
        #expect(le.count == 6)
        #expect(le.allSatisfy { $0.handle == 0x0040 })
    }

    @Test(.sharedCaptures) func lightsappEndsOneConnectionWith0x3E() throws {
        let (report, _) = try LifecycleAnalyzer.analyze(path: Fixtures.publicCapture("mchwalisz-lightsapp.btsnoop"))
        let reasons = report.connections.compactMap(\.disconnection?.reason).map(\.rawValue).sorted()
        #expect(reasons == [0x16, 0x16, 0x16, 0x3E])
        let failed = report.connections.first { $0.disconnection?.reason == .connectionFailedToBeEstablished }
        // Lost before its first exchange: iOS tries again and tells the app nothing.
        #expect(failed?.failedEstablishment != nil)
        #expect(failed != nil && failed?.cbError == nil)
    }

    @Test(.sharedCaptures) func theMacOSPacketLoggerFileHas62CancelledAttempts() throws {
        let (report, _) = try LifecycleAnalyzer.analyze(path: Fixtures.publicCapture("fotonick-hciparse-test00.pklg"))
        let cancelled = report.connections.filter { $0.completion?.status == .unknownConnectionIdentifier }
        #expect(cancelled.count == 62)
        #expect(cancelled.allSatisfy { $0.outcome == .cancelled })
    }

    @Test(.sharedCaptures) func aCaptureThatStartsMidConnectionHasItsConnectionAnyway() throws {
        let (report, _) = try LifecycleAnalyzer.analyze(path: Fixtures.publicCapture("syssi-jkbms-b5a24s.btsnoop"))
        let first = try #require(report.connections.first)
        #expect(first.beganBeforeCapture)
        #expect(first.disconnection?.reason == .connectionTerminatedByLocalHost)
    }
}
