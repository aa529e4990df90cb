import CoreBluetoothCodes
import HCI
import TestSupport
import Testing
import Wire

@testable import Lifecycle

/// What real logs hold and our own recordings do not (issue "Field logs read right"), each as the
/// smallest capture that shows it, built from annotated HCI packets (Core 6.0, Vol 4, Part E).
@Suite struct FieldLogShapesTests {
    /// Read Remote Supported Features Complete (0x0B), a BR/EDR-only event: success, handle 0x0B.
    static let remoteFeatures = "0b 0b 00 0b00 ffffffffffffffff"
    /// Encryption Change (0x08), an event of either transport: success, handle 0x0B, on.
    static let encryptionOn = "08 04 00 0b00 01"

    // MARK: 1. Repeated and stray events

    @Test func aDisconnectionTheControllerRepeatsIsFoldedIntoTheFirst() {
        var records = [
            command(Packets.createConnection, at: 100),
            event(Packets.commandStatus(0), at: 110),
            event(Packets.connectionComplete(0, handle: 0x40), at: 200),
        ]
        // Thirteen identical Disconnection Complete events at one timestamp.
        records += Array(
            repeating: event(Packets.disconnectionComplete(handle: 0x40, reason: 0x08), at: 9_000), count: 13)
        let report = analyze(records)
        #expect(report.connections.count == 1)
        #expect(report.connections[0].disconnection?.repeats == 12)
        #expect(report.connections[0].disconnection?.time.microseconds == 9_000)
        #expect(report.strayDisconnections.isEmpty)
        let summary = LifecycleSummary(connections: report.connections, scans: [], errors: [])
        #expect(summary.le.total == 1 && summary.le.disconnected == 1)
        #expect(summary.repeatedDisconnections == 12)
    }

    @Test func aDisconnectionForAHandleNeverSeenIsStrayAndOpensNoConnection() {
        let analysis = Self.analysis([
            event(Packets.disconnectionComplete(handle: 0x0003, reason: 0x00), at: 10),
            event(Packets.disconnectionComplete(handle: 0x0004, reason: 0x13), at: 20),
        ])
        let report = analysis.lifecycle.report
        #expect(report.connections.isEmpty)
        #expect(report.strayDisconnections.map(\.handle) == [0x0003, 0x0004])
        #expect(report.strayDisconnections.map(\.record) == [0, 1])
        // Not an unexpected error, not a finding.
        #expect(analysis.errors.errors.isEmpty)
        #expect(analysis.findings.isEmpty)
    }

    @Test func aStrayDisconnectionTheControllerRepeatsIsOneStray() {
        // A log that begins with thirteen identical Disconnection Complete events, reason 0x00.
        let report = analyze(
            Array(repeating: event(Packets.disconnectionComplete(handle: 0x0003, reason: 0x00), at: 10), count: 13))
        #expect(report.connections.isEmpty)
        #expect(report.strayDisconnections.count == 1)
        #expect(report.strayDisconnections.first?.repeats == 12)
    }

    @Test func aDisconnectionRepeatedWithAnotherReasonAfterItsLinkEndedIsStray() {
        let report = analyze([
            event(Packets.connectionComplete(0, handle: 0x40), at: 200),
            event(Packets.disconnectionComplete(handle: 0x40, reason: 0x08), at: 300),
            event(Packets.disconnectionComplete(handle: 0x40, reason: 0x13), at: 400),
        ])
        #expect(report.connections.count == 1)
        #expect(report.connections[0].disconnection?.repeats == 0)
        #expect(report.strayDisconnections.map(\.reason) == [.remoteUserTerminatedConnection])
    }

    @Test func aHandleReusedByTheNextConnectionIsNotARepeat() {
        let report = analyze([
            event(Packets.connectionComplete(0, handle: 0x40), at: 200),
            event(Packets.disconnectionComplete(handle: 0x40, reason: 0x08), at: 300),
            event(Packets.connectionComplete(0, handle: 0x40), at: 400),
            event(Packets.disconnectionComplete(handle: 0x40, reason: 0x08), at: 500),
        ])
        #expect(report.connections.count == 2)
        #expect(report.connections.allSatisfy { $0.disconnection?.repeats == 0 && $0.outcome == .disconnected })
    }

    // MARK: 2. Links of both transports

    @Test func aLinkSeenOnlyInEventsOfEitherTransportIsNotAssumedLE() throws {
        let report = analyze([
            event(Self.encryptionOn, at: 100),
            event(Packets.disconnectionComplete(handle: 0x0B, reason: 0x13), at: 200),
        ])
        let connection = try #require(report.connections.first)
        #expect(report.connections.count == 1)
        #expect(connection.transport == .unknown)
        #expect(connection.beganBeforeCapture)
        // CoreBluetooth makes LE links only: no error is named for a link that may not be one.
        #expect(connection.cbError == nil)
        let summary = LifecycleSummary(connections: report.connections, scans: [], errors: [])
        #expect(summary.le.total == 0 && summary.brEdr.total == 0 && summary.unknownTransport.total == 1)
    }

    @Test func aBREDROnlyEventTellsTheLinksTransport() {
        let report = analyze([
            event(Self.encryptionOn, at: 100),
            event(Self.remoteFeatures, at: 150),
            event(Packets.disconnectionComplete(handle: 0x0B, reason: 0x13), at: 200),
        ])
        #expect(report.connections.map(\.transport) == [.classic])
        #expect(report.connections[0].cbError == nil)
    }

    @Test func attOnItsFixedChannelTellsALinkIsLE() {
        let report = analyze([
            // A continuation fragment first: it says nothing of the transport.
            acl("4010 0200 aabb", .received, at: 50),
            acl(Packets.att(handle: 0x40, "1b0300aa"), .received, at: 100),
            event(Packets.disconnectionComplete(handle: 0x40, reason: 0x08), at: 200),
        ])
        #expect(report.connections.map(\.transport) == [.le])
        #expect(report.connections[0].cbError?.value == .cb(CBError(.connectionTimeout)))
    }

    @Test func aFailedEventForAnUnknownHandleShowsNoLink() {
        // Encryption Change with Unknown Connection Identifier (0x02).
        let report = analyze([event("08 04 02 0b00 00", at: 100)])
        #expect(report.connections.isEmpty)
    }

    // MARK: 3. The parameters of the connection

    @Test func theConnectionKeepsItsCompletionsParametersAndEachUpdateIsAChange() {
        var records = [
            event(Packets.connectionComplete(0, handle: 0x40), at: 200),  // 0: interval 40, latency 0, timeout 42
            // 1: LE Connection Update Complete: interval 24 (30 ms), latency 4, timeout 200 (2 s).
            event("3e 0a 03 00 4000 1800 0400 c800", at: 300),
        ]
        records[1].index = 1
        let report = analyze(records)
        let connection = report.connections[0]
        #expect(connection.interval == 40 && connection.latency == 0 && connection.supervisionTimeout == 42)
        #expect(connection.changes.map(\.kind) == [.parameters(interval: 24, latency: 4, supervisionTimeout: 200)])
        #expect(connection.parameters(after: 0)! == (40, 0, 42))
        #expect(connection.parameters()! == (24, 4, 200))
    }

    // MARK: 4. Who ended the link

    @Test func aDisconnectThisHostSentEndsTheLinkWhateverTheCompletionSays() throws {
        var records = [
            command(Packets.createConnection, at: 100),  // 0
            event(Packets.commandStatus(0), at: 110),  // 1
            event(Packets.connectionComplete(0, handle: 0x40), at: 200),  // 2
            command(Packets.disconnect(handle: 0x40), at: 1_000_000),  // 3
            event(Packets.commandStatus(0, opcode: "0604"), at: 1_000_100),  // 4
            // 5: the peer never acknowledged the terminate: LL Response Timeout.
            event(Packets.disconnectionComplete(handle: 0x40, reason: 0x22), at: 41_000_000),
        ]
        for index in records.indices { records[index].index = index }
        let report = analyze(records)
        let connection = report.connections[0]
        #expect(connection.disconnection?.initiator == .local)
        #expect(connection.disconnection?.request?.record == 3)
        #expect(connection.disconnection?.request?.time.microseconds == 1_000_000)
        #expect(connection.disconnection?.reason == .llResponseTimeout)
        // The app asked: no error.
        #expect(connection.cbError?.value == .some(nil))
        // No finding blames the accessory's link layer.
        #expect(diagnose(records).of(.llResponseTimeout).isEmpty)
        // Without the host's Disconnect, the same completion is the link's loss.
        let lost = Array(records[0...2]) + [records[5]]
        #expect(!diagnose(lost).of(.llResponseTimeout).isEmpty)
    }

    // MARK: 9. What iOS would not have done

    /// Hand-built records fed as the command line feeds them, each record's index its position.
    static func analysis(_ records: [OwnedRecord]) -> CaptureAnalyzer {
        var analysis = CaptureAnalyzer()
        for (index, var record) in records.enumerated() {
            record.index = index
            record.withRecord { analysis.add($0) }
        }
        return analysis
    }

    static func errors(_ records: [OwnedRecord]) -> [TraceError] { analysis(records).errors.errors }

    /// A connection on 0x40 whose discovery found a CCCD at 0x0004 (Find Information).
    static var connectedWithCCCD: [OwnedRecord] {
        [
            event(Packets.connectionComplete(0, handle: 0x40), at: 100),
            acl(Packets.att(handle: 0x40, "04 0300 0500"), .sent, at: 200),  // Find Information 0x0003-0x0005
            acl(Packets.att(handle: 0x40, "05 01 0400 0229"), .received, at: 210),  // 0x0004: 2902
        ]
    }

    @Test func aRefusedWriteTurningOffNotificationsThatWereNotOnReachesNoCallback() throws {
        let refused = Self.errors(
            Self.connectedWithCCCD + [
                acl(Packets.att(handle: 0x40, "12 0400 0000"), .sent, at: 300),  // Write Request: off
                acl(Packets.att(handle: 0x40, "01 12 0400 08"), .received, at: 310),  // Insufficient Authorization
            ])
        let error = try #require(refused.first { $0.layer == .att })
        #expect(error.coreBluetooth?.callback.hasPrefix("no callback: iOS would not have made this write") == true)
        // Turning off what was on is a write iOS makes: its refusal reaches the app.
        let afterOn = Self.errors(
            Self.connectedWithCCCD + [
                acl(Packets.att(handle: 0x40, "12 0400 0100"), .sent, at: 300),  // on
                acl(Packets.att(handle: 0x40, "13"), .received, at: 310),
                acl(Packets.att(handle: 0x40, "12 0400 0000"), .sent, at: 400),  // off
                acl(Packets.att(handle: 0x40, "01 12 0400 08"), .received, at: 410),
            ])
        let onError = try #require(afterOn.first { $0.layer == .att })
        #expect(onError.coreBluetooth?.callback == "peripheral(_:didUpdateNotificationStateFor:error:)")
    }

    @Test func whatFollowsAPairingThisHostCancelledReachesNoCallback() throws {
        let pairingRequest = BothServersTests.smp(handle: 0x40, "01 03 00 0d 10 07 07")
        let pairingFailed = BothServersTests.smp(handle: 0x40, "05 08")
        let errors = Self.errors([
            event(Packets.connectionComplete(0, handle: 0x40), at: 100),
            acl(Packets.att(handle: 0x40, "12 0300 01"), .sent, at: 1_000),  // 1: Write Request
            acl(Packets.att(handle: 0x40, "01 12 0300 05"), .received, at: 1_010),  // 2: Insufficient Authentication
            acl(pairingRequest, .sent, at: 1_100),  // 3
            acl(pairingFailed, .sent, at: 2_000),  // 4: this host cancels: iOS ends the link here
            acl(Packets.att(handle: 0x40, "12 0300 01"), .sent, at: 3_000),  // 5: the capture's host goes on
            acl(Packets.att(handle: 0x40, "01 12 0300 05"), .received, at: 3_010),  // 6
        ])
        let cancel = try #require(errors.first { $0.layer == .smp })
        #expect(cancel.coreBluetooth?.name == "pairingCancelled")
        let later = try #require(errors.last { $0.layer == .att })
        #expect(later.record == 6)
        #expect(
            later.coreBluetooth?.callback.hasPrefix(
                "no callback: iOS had ended this link when this host cancelled a pairing (frame 5)") == true)
    }

    @Test func aSearchForSecondaryServicesEndedByUnsupportedGroupTypeIsNoErrorOfTheApps() throws {
        let errors = Self.errors([
            event(Packets.connectionComplete(0, handle: 0x40), at: 100),
            acl(Packets.att(handle: 0x40, "10 0100 ffff 0128"), .sent, at: 200),  // Read By Group Type, 0x2801
            acl(Packets.att(handle: 0x40, "01 10 0100 10"), .received, at: 210),  // Unsupported Group Type
        ])
        let error = try #require(errors.first)
        #expect(error.expected)
        #expect(
            error.coreBluetooth?.callback.hasPrefix("no callback: the captured host searched for secondary services")
                == true)
    }

    // MARK: 7. ATT as apps use it

    @Test func aCCCDEnabledByWriteCommandIsASubscription() {
        // A Write Command turning notifications on.
        let records = Self.connectedWithCCCD + [acl(Packets.att(handle: 0x40, "52 0400 0100"), .sent, at: 300)]
        let subscriptions = Self.analysis(records).lifecycle.report.connections[0].subscriptions
        #expect(subscriptions.map(\.descriptorHandle) == [0x0004])
        #expect(subscriptions.map(\.mode) == [.notify])
        #expect(subscriptions.map(\.record) == [3])
    }

    /// A discovery that finds service 180D (0x0001-0x0005) with characteristic 2A38 at 0x0003
    /// (read), on handle 0x40, this host the client; MTU 23.
    static var discovered: [OwnedRecord] {
        [
            event(Packets.connectionComplete(0, handle: 0x40), at: 100),
            acl(Packets.att(handle: 0x40, "10 0100 ffff 0028"), .sent, at: 200),
            acl(Packets.att(handle: 0x40, "11 06 0100 0500 0d18"), .received, at: 210),
            acl(Packets.att(handle: 0x40, "08 0100 0500 0328"), .sent, at: 220),
            acl(Packets.att(handle: 0x40, "09 07 0200 02 0300 382a"), .received, at: 230),
        ]
    }

    @Test func aLongReadIsOneValueOfItsFullLength() throws {
        let first = String(repeating: "11", count: 22)  // a full Read Response at MTU 23
        let rest = "2233"
        let records =
            Self.discovered + [
                acl(Packets.att(handle: 0x40, "0a 0300"), .sent, at: 1_000),
                acl(Packets.att(handle: 0x40, "0b " + first), .received, at: 1_010),
                acl(Packets.att(handle: 0x40, "0a 0300"), .sent, at: 1_020),  // another request between
                acl(Packets.att(handle: 0x40, "0b " + first), .received, at: 1_030),
                acl(Packets.att(handle: 0x40, "0c 0300 1600"), .sent, at: 1_040),  // Read Blob from 22
                acl(Packets.att(handle: 0x40, "0d " + rest), .received, at: 1_050),
            ]
        let value = try #require(
            Self.gattEntries(records).first?.database.services.first?.characteristics.first?.lastValue)
        #expect(value.bytes == Wire.bytes(hex: first + rest))
        #expect(value.record == records.count - 1)
    }

    /// The GATT collector's entries after `records`.
    static func gattEntries(_ records: [OwnedRecord]) -> [GATTCollector.Entry] {
        var collector = GATTCollector()
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        for (index, var record) in records.enumerated() {
            record.index = index
            record.withRecord { record in
                let decoded = decoder.decode(record)
                analyzer.add(record, decoded)
                collector.add(record, decoded, analyzer: analyzer)
            }
        }
        return collector.entries
    }

    @Test func attributesFoundOutsideEveryDiscoveredServiceAreKept() throws {
        // No service discovery: a characteristic search and a Find Information over cached ranges.
        let found = [
            event(Packets.connectionComplete(0, handle: 0x40), at: 100),
            acl(Packets.att(handle: 0x40, "08 0010 0020 0328"), .sent, at: 200),
            acl(Packets.att(handle: 0x40, "09 07 1000 12 1100 382a"), .received, at: 210),
            acl(Packets.att(handle: 0x40, "04 1200 1200"), .sent, at: 220),
            acl(Packets.att(handle: 0x40, "05 01 1200 0229"), .received, at: 230),
        ]
        let database = try #require(Self.gattEntries(found).first?.database)
        #expect(database.services.isEmpty)
        #expect(database.outside.map(\.handle) == [0x10, 0x12])
        #expect(database.outside.first?.valueHandle == 0x11 && database.outside.first?.properties == [.read, .notify])
        #expect(database.outside.last?.uuid == BluetoothUUID(UInt16(0x2902)))
        // Service discovery that finds their service later places them in it.
        let placed = try #require(
            Self.gattEntries(
                found + [
                    acl(Packets.att(handle: 0x40, "10 0100 ffff 0028"), .sent, at: 300),
                    acl(Packets.att(handle: 0x40, "11 06 0f00 1200 0d18"), .received, at: 310),
                ]
            ).first?.database)
        #expect(placed.outside.isEmpty)
        let characteristic = try #require(placed.services.first?.characteristics.first)
        #expect(characteristic.valueHandle == 0x11 && characteristic.uuid == BluetoothUUID(UInt16(0x2A38)))
        #expect(characteristic.descriptors.map(\.handle) == [0x12])
    }

    @Test func discoverySpansSecondaryAndIncludedServiceSearches() throws {
        let report = analyze(
            Self.discovered + [
                acl(Packets.att(handle: 0x40, "10 0100 ffff 0128"), .sent, at: 300),  // secondary services
                acl(Packets.att(handle: 0x40, "01 10 0100 0a"), .received, at: 310),
                acl(Packets.att(handle: 0x40, "08 0100 0500 0228"), .sent, at: 320),  // included services
                acl(Packets.att(handle: 0x40, "01 08 0100 0a"), .received, at: 900),
            ])
        let connection = try #require(report.connections.first)
        #expect(
            connection.discoveryProcedures.map(\.kind) == [
                .services, .characteristics, .secondaryServices, .includedServices,
            ])
        #expect(connection.discoveryEnd?.microseconds == 900)
    }
}
