import ATT
import HCI
import Reports
import TestSupport
import Testing
import TraceFiles
import Wire

@testable import Lifecycle

/// The findings of hand-built records, fed as the command line feeds them (``CaptureAnalyzer``,
/// quick forms included). Each record's index is its position.
func diagnose(_ records: [OwnedRecord]) -> [Finding] {
    var analysis = CaptureAnalyzer()
    for (index, var record) in records.enumerated() {
        record.index = index
        record.withRecord { analysis.add($0) }
    }
    return analysis.findings
}

/// The findings of a capture, as `TraceAnalysis(path:)` gives them.
func diagnose(path: String) throws -> [Finding] { try TraceAnalysis(path: path).findings }

extension [Finding] {
    func of(_ rule: DiagnosisRule) -> [Finding] { filter { $0.rule == rule.name } }
}

/// A connection that completes on handle 0x40 (interval 50 ms, latency 0, timeout 420 ms).
private var connected: [OwnedRecord] {
    [
        command(Packets.createConnection, at: 100),
        event(Packets.commandStatus(0), at: 110),
        event(Packets.connectionComplete(0, handle: 0x40), at: 200),
    ]
}

/// SMP on handle `handle` (L2CAP channel 6).
private func smp(_ handle: UInt16, _ pdu: String) -> String { BothServersTests.smp(handle: handle, pdu) }

// Annotated HCI packets, Core 6.0, Vol 4, Part E.
/// LE Set PHY (0x2032): handle 0x40, All_PHYs 0, TX 2M, RX 2M, options 0.
private let setPHY = "3220 07 4000 00 02 02 0000"
/// LE PHY Update Complete (subevent 0x0C): status, handle 0x40, TX 2M, RX 2M.
private func phyUpdateComplete(_ status: UInt8) -> String { "3e 06 0c \(Packets.hexByte(status)) 4000 02 02" }
/// LE Connection Update (0x2013): handle 0x40, interval 24..40, latency 0, timeout 42, CE 0..0.
private let connectionUpdate = "1320 0e 4000 1800 2800 0000 2a00 0000 0000"
/// LE Connection Update Complete (subevent 0x03): success, handle 0x40, interval 24 (30 ms),
/// latency 0, timeout 200 (2 s).
private let connectionUpdateComplete = "3e 0a 03 00 4000 1800 0000 c800"
/// LE Enable Encryption (0x2019): handle 0x40, Random_Number, EDIV, LTK.
private let enableEncryption = "1920 1c 4000 0102030405060708 0900 00112233445566778899aabbccddeeff"
/// Encryption Change [v1] (0x08): status, handle 0x40, enabled.
private func encryptionChange(_ status: UInt8, enabled: UInt8) -> String {
    "08 04 \(Packets.hexByte(status)) 4000 \(Packets.hexByte(enabled))"
}
/// Encryption Change [v2] (0x59): success, handle 0x40, on, key size.
private func encryptionChangeV2(keySize: UInt8) -> String { "59 05 00 4000 01 \(Packets.hexByte(keySize))" }
/// L2CAP LE signalling (CID 5) on 0x40: Connection Parameter Update Request, identifier 1,
/// interval 6..6 (7.5 ms), latency 0, timeout 100 (1 s).
private let parameterRequest = "4000 1000 0c00 0500 12 01 0800 0600 0600 0000 6400"

@Suite struct DiagnosisLinkEndTests {
    @Test func aSupervisionTimeoutNamesTheLastPacketFromThePeer() throws {
        let path = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
        let report = try LifecycleAnalyzer.analyze(path: path).0
        let lost = try #require(report.connections.first { $0.disconnection?.reason == .connectionTimeout })
        // The last ACL record received before the disconnection, read independently.
        var lastReceived: Int?
        let reader = try CaptureReader(path: path)
        while let record = try reader.next(), record.index < lost.disconnection!.record {
            if record.kind == .acl, record.direction == .received { lastReceived = record.index }
        }
        let finding = try #require(try diagnose(path: path).of(.supervisionTimeout).first)
        #expect(finding.record == lost.disconnection?.record)
        #expect(finding.connection == lost.id)
        #expect(finding.severity == .error)
        #expect(finding.evidence.contains(try #require(lastReceived)))
        #expect(finding.summary.contains("frame \(lastReceived! + 1)"))
        #expect(finding.coreBluetooth?.contains("CBError.connectionTimeout (6)") == true)
    }

    @Test func aSupervisionTimeoutShortlyAfterAParameterUpdateNamesTheUpdate() throws {
        let findings = diagnose(
            connected + [
                event(connectionUpdateComplete, at: 1_000_000),  // record 3
                event(Packets.disconnectionComplete(handle: 0x40, reason: 0x08), at: 1_500_000),  // record 4
            ])
        let finding = try #require(findings.of(.supervisionTimeout).first)
        #expect(finding.record == 4)
        #expect(finding.evidence == [3, 4])
        #expect(finding.summary.contains("after a connection parameter update (frame 4"))
    }

    @Test func anLLResponseTimeoutNamesTheProcedureWhoseCompletionCarriesIt() throws {
        let findings = diagnose(
            connected + [
                command(setPHY, at: 300),  // 3
                event(Packets.commandStatus(0, opcode: "3220"), at: 310),  // 4
                event(phyUpdateComplete(0x22), at: 40_000_300),  // 5
                event(Packets.disconnectionComplete(handle: 0x40, reason: 0x22), at: 40_000_400),  // 6
            ])
        let finding = try #require(findings.of(.llResponseTimeout).first)
        #expect(finding.record == 6)
        #expect(finding.evidence == [3, 5, 6])
        #expect(finding.summary.contains("PHY update"))
    }

    @Test func anLLResponseTimeoutNamesAProcedureStartedAndNeverCompleted() throws {
        let findings = diagnose(
            connected + [
                command(connectionUpdate, at: 300),  // 3
                event(Packets.commandStatus(0, opcode: "1320"), at: 310),  // 4
                event(Packets.disconnectionComplete(handle: 0x40, reason: 0x22), at: 40_000_400),  // 5
            ])
        let finding = try #require(findings.of(.llResponseTimeout).first)
        #expect(finding.evidence == [3, 5])
        #expect(finding.summary.contains("connection update procedure started at frame 4 never completed"))
        // A procedure that completed is not blamed.
        let completed = diagnose(
            connected + [
                command(connectionUpdate, at: 300), event(Packets.commandStatus(0, opcode: "1320"), at: 310),
                event(connectionUpdateComplete, at: 400),
                event(Packets.disconnectionComplete(handle: 0x40, reason: 0x22), at: 40_000_400),
            ])
        #expect(completed.of(.llResponseTimeout).first?.evidence == [6])
    }

    @Test(.sharedCaptures) func lightsappsConnectionFailedToBeEstablishedFollowsItsRemoteFeatures() throws {
        let path = Fixtures.publicCapture("mchwalisz-lightsapp.btsnoop")
        let report = try LifecycleAnalyzer.analyze(path: path).0
        let failed = report.connections.filter {
            $0.disconnection?.reason == .connectionFailedToBeEstablished
                || $0.completion?.status == .connectionFailedToBeEstablished
        }
        let findings = try diagnose(path: path).of(.failedToEstablish)
        #expect(findings.count == failed.count && !findings.isEmpty)
        for (finding, connection) in zip(findings, failed) {
            #expect(finding.record == connection.disconnection?.record ?? connection.completion?.record)
            #expect(finding.summary.contains("remote features"))
            // The remote features completion with 0x3E is among the evidence, before the end.
            #expect(finding.evidence.count >= 3)
            // iOS's daemon retries by itself and tells the app nothing (ios-truth-review F-1).
            #expect(finding.coreBluetooth?.hasPrefix("no callback: iOS tries again by itself") == true)
            #expect(finding.coreBluetooth?.contains("--establishment-failure fail") == true)
            #expect(!finding.lookAt.contains("does not retry"))
        }
    }

    @Test func anATTRequestUnansweredFor30SecondsThenTheHostsDisconnection() throws {
        let findings = diagnose(
            connected + [
                acl(Packets.att(handle: 0x40, "0a 1000"), .sent, at: 1_000_000),  // 3: Read Request 0x0010
                command(Packets.disconnect(handle: 0x40), at: 31_000_000),  // 4
                event(Packets.disconnectionComplete(handle: 0x40, reason: 0x16), at: 31_100_000),  // 5
            ])
        let finding = try #require(findings.of(.attTimeout).first)
        #expect(finding.evidence == [3, 5])
        #expect(finding.summary.contains("Read Request of 0x0010 from this host's client"))
        // Answered, or ended long before 30 s: no finding.
        let early = diagnose(
            connected + [
                acl(Packets.att(handle: 0x40, "0a 1000"), .sent, at: 1_000_000),
                command(Packets.disconnect(handle: 0x40), at: 5_000_000),
                event(Packets.disconnectionComplete(handle: 0x40, reason: 0x16), at: 5_100_000),
            ])
        #expect(early.of(.attTimeout).isEmpty)
    }

    @Test func pinOrKeyMissingOnAPeerBondedBeforeIsTheRemovedPairingInformation() throws {
        let findings = diagnose(
            connected + [
                acl(smp(0x40, "01 03 00 01 10 07 07"), .sent, at: 300),  // 3 Pairing Request, bonding
                acl(smp(0x40, "02 03 00 01 10 07 07"), .received, at: 310),  // 4 Pairing Response
                event(encryptionChange(0, enabled: 1), at: 400),  // 5
                event(Packets.disconnectionComplete(handle: 0x40, reason: 0x16), at: 500),  // 6
                command(Packets.createConnection, at: 1_000),  // 7
                event(Packets.commandStatus(0), at: 1_010),  // 8
                event(Packets.connectionComplete(0, handle: 0x40), at: 1_100),  // 9
                command(enableEncryption, at: 1_200),  // 10
                event(Packets.commandStatus(0, opcode: "1920"), at: 1_210),  // 11
                event(encryptionChange(0x06, enabled: 0), at: 1_300),  // 12
                event(Packets.disconnectionComplete(handle: 0x40, reason: 0x06), at: 1_400),  // 13
            ])
        let finding = try #require(findings.of(.bondMissing).first)
        #expect(findings.of(.bondMissing).count == 1)
        #expect(finding.connection == 1)
        #expect(finding.evidence == [3, 12, 13])
        #expect(finding.summary.contains("paired on connection 1"))
        #expect(finding.coreBluetooth?.contains("peerRemovedPairingInformation (14)") == true)
    }

    @Test(arguments: [(UInt8(0x3D), DiagnosisRule.micFailure), (0x3B, .unacceptableParameters)])
    func aReasonOfItsOwnIsNamed(_ reason: UInt8, _ rule: DiagnosisRule) throws {
        let findings = diagnose(
            connected + [
                acl(parameterRequest, .received, at: 300),  // 3
                event(Packets.disconnectionComplete(handle: 0x40, reason: reason), at: 400),  // 4
            ])
        let finding = try #require(findings.of(rule).first)
        #expect(finding.record == 4)
        if rule == .unacceptableParameters { #expect(finding.evidence == [3, 4]) }
        // Other reasons do not make it.
        #expect(
            diagnose(connected + [event(Packets.disconnectionComplete(handle: 0x40, reason: 0x13), at: 400)]).of(rule)
                .isEmpty)
    }

    @Test func theHostHangingUpRightAfterARefusalNamesTheRequestAndTheError() throws {
        let path = Fixtures.capture("att-errors.btsnoop")
        let analysis = try TraceAnalysis(path: path)
        let connection = try #require(analysis.lifecycle.connections.first { $0.disconnection?.initiator == .local })
        let last = try #require(
            analysis.errors.last { $0.server == .peer && !$0.expected && $0.time <= connection.disconnection!.time })
        let finding = try #require(analysis.findings.of(.gaveUpAfterRefusal).first)
        #expect(finding.evidence == [last.record, connection.disconnection!.record])
        #expect(finding.summary.contains(last.name) && finding.summary.contains(last.requestName!))
        // More than 2 s after the refusal, it is not giving up.
        let late = diagnose(
            connected + [
                acl(Packets.att(handle: 0x40, "12 1500 01"), .sent, at: 300),
                acl(Packets.att(handle: 0x40, "01 12 1500 03"), .received, at: 310),
                command(Packets.disconnect(handle: 0x40), at: 3_000_000),
                event(Packets.disconnectionComplete(handle: 0x40, reason: 0x16), at: 3_000_100),
            ])
        #expect(late.of(.gaveUpAfterRefusal).isEmpty)
    }

    @Test func theCommandLinesPassAndTraceAnalysisAgreeOnEveryBundledCapture() throws {
        for name in [
            "reconnect-supervision-timeout.btsnoop", "att-errors.btsnoop", "pairing-retry.btsnoop",
            "service-changed.btsnoop",
            "reconnect-answers-differ.btsnoop", "peer-also-client.btsnoop",
        ] {
            let path = Fixtures.capture(name)
            var analysis = CaptureAnalyzer()
            let reader = try CaptureReader(path: path)
            while let record = try reader.next() { analysis.add(record) }
            #expect(analysis.findings == (try diagnose(path: path)), "\(name)")
        }
    }
}

@Suite struct DiagnosisSecurityTests {
    @Test func aPairingFailedNamesItsReasonAndWhoSentIt() throws {
        let findings = diagnose(
            connected + [
                acl(smp(0x40, "01 04 00 0d 10 07 07"), .sent, at: 320),  // 3 Pairing Request
                acl(smp(0x40, "02 04 00 0d 10 07 07"), .received, at: 330),  // 4 Pairing Response
                acl(smp(0x40, "05 0c"), .received, at: 400),  // 5 Pairing Failed: Numeric Comparison Failed
            ])
        let finding = try #require(findings.of(.pairingFailed).first)
        #expect(finding.record == 5)
        #expect(finding.evidence == [3, 5])
        #expect(finding.summary.contains("the peer sent Pairing Failed"))
        #expect(finding.summary.contains(SMPPairingFailedReason(rawValue: 0x0C).description))
    }

    @Test func aPairingThatNeverFinishesBeforeTheLinkEnds() throws {
        let findings = diagnose(
            connected + [
                acl(smp(0x40, "0b 0d"), .received, at: 300),  // 3 Security Request
                event(Packets.disconnectionComplete(handle: 0x40, reason: 0x13), at: 30_000_000),  // 4
            ])
        let finding = try #require(findings.of(.pairingUnfinished).first)
        #expect(finding.evidence == [3, 4])
        #expect(finding.summary.contains("started by the peer (Security Request)"))
    }

    @Test func aRefusalForSecurityNeverRetriedInAttErrors() throws {
        let analysis = try TraceAnalysis(path: Fixtures.capture("att-errors.btsnoop"))
        let refused = analysis.errors.filter {
            $0.server == .peer && $0.retryRecord == nil
                && SecurityRefusal.asksForSecurity(ATTErrorCode(rawValue: $0.code))
        }
        let findings = analysis.findings.of(.securityRefusalNotRetried)
        #expect(!refused.isEmpty)
        #expect(findings.map(\.record) == refused.map(\.record))
    }

    @Test func aRefusalForSecurityThatIOSRetriedIsNoFinding() throws {
        let analysis = try TraceAnalysis(path: Fixtures.capture("pairing-retry.btsnoop"))
        #expect(analysis.errors.contains { $0.retryRecord != nil })
        #expect(analysis.findings.of(.securityRefusalNotRetried).isEmpty)
    }

    @Test func aShortKeyFromEncryptionChangeV2OrReadEncryptionKeySize() throws {
        let v2 = diagnose(connected + [event(encryptionChangeV2(keySize: 7), at: 300)])
        #expect(v2.of(.shortKey).map(\.record) == [3])
        #expect(v2.of(.shortKey).first?.values["key_size"] == 7)
        // Read Encryption Key Size (0x1408): Command Complete, status 0, handle 0x40, size 10.
        let read = diagnose(connected + [command("0814 02 4000", at: 300), event("0e 07 01 0814 00 4000 0a", at: 310)])
        #expect(read.of(.shortKey).map(\.record) == [4])
        #expect(diagnose(connected + [event(encryptionChangeV2(keySize: 16), at: 300)]).of(.shortKey).isEmpty)
    }

    @Test func aPeerThatPairsAgainOnItsNextConnection() throws {
        let pairing: (Int64) -> [OwnedRecord] = { t in
            [
                acl(smp(0x40, "01 03 00 01 10 07 07"), .sent, at: t),
                acl(smp(0x40, "02 03 00 01 10 07 07"), .received, at: t + 10),
                event(encryptionChange(0, enabled: 1), at: t + 20),
            ]
        }
        let findings = diagnose(
            // 3-6
            connected + pairing(300) + [event(Packets.disconnectionComplete(handle: 0x40, reason: 0x13), at: 500)]
                + [
                    command(Packets.createConnection, at: 1_000), event(Packets.commandStatus(0), at: 1_010),
                    event(Packets.connectionComplete(0, handle: 0x40), at: 1_100),
                ]  // 7-9
                + pairing(1_200))  // 10-12
        let finding = try #require(findings.of(.bondNotKept).first)
        #expect(finding.record == 10)
        #expect(finding.evidence == [3, 10])
        #expect(finding.summary.contains("after pairing on connection 1"))
    }
}

@Suite struct DiagnosisGATTTests {
    @Test func requestsOutsideTheDatabaseAreTheErrorsMarkedSo() throws {
        for name in ["att-errors.btsnoop", "service-changed.btsnoop"] {
            let analysis = try TraceAnalysis(path: Fixtures.capture(name))
            let marked = analysis.errors.filter {
                $0.coreBluetooth?.callback.hasPrefix("no callback: the attribute is not in the database") == true
            }
            #expect(!marked.isEmpty)
            #expect(analysis.findings.of(.outsideDatabase).map(\.record).sorted() == marked.map(\.record))
        }
    }

    @Test func serviceChangedFollowedByRediscovery() throws {
        let path = Fixtures.capture("service-changed.btsnoop")
        let analysis = try TraceAnalysis(path: path)
        let change = try #require(
            analysis.lifecycle.connections[0].changes.first {
                if case .serviceChanged = $0.kind { true } else { false }
            })
        let finding = try #require(analysis.findings.of(.rediscoveryAfterServiceChanged).first)
        #expect(finding.record == change.record)
        // The first discovery request this host sent after the indication, read independently.
        var decoder = TraceDecoder()
        var rediscovery: Int?
        let reader = try CaptureReader(path: path)
        while let record = try reader.next() {
            let decoded = decoder.decode(record)
            guard record.index > change.record, rediscovery == nil, record.direction == .sent, let pdu = decoded.att
            else { continue }
            if [.readByGroupTypeRequest, .readByTypeRequest, .findInformationRequest, .findByTypeValueRequest].contains(
                pdu.opcode)
            {
                rediscovery = record.index
            }
        }
        #expect(finding.evidence == [change.record, try #require(rediscovery)])
        #expect(analysis.findings.of(.serviceChangedIgnored).isEmpty)
    }

    @Test func serviceChangedWithNoRediscoveryBeforeTheLinkEnds() throws {
        // service-changed up to the confirmation of the indication (its frames 83-84), then the
        // link ends.
        let path = Fixtures.capture("service-changed.btsnoop")
        var records: [OwnedRecord] = []
        let reader = try CaptureReader(path: path)
        while let record = try reader.next(), record.index < 84 { records.append(OwnedRecord(record)) }
        let end = records.last!.timestamp.microseconds + 1_000
        records.append(event(Packets.disconnectionComplete(handle: 0x0001, reason: 0x13), at: end))
        let findings = diagnose(records)
        let finding = try #require(findings.of(.serviceChangedIgnored).first)
        #expect(finding.record == 82)
        #expect(findings.of(.rediscoveryAfterServiceChanged).isEmpty)
    }

    @Test func discoveryRepeatedOnTheConnectionsOfReconnectAnswersDiffer() throws {
        let analysis = try TraceAnalysis(path: Fixtures.capture("reconnect-answers-differ.btsnoop"))
        let discovering = analysis.lifecycle.connections.filter {
            $0.discoveryProcedures.contains { $0.kind == .services }
        }
        #expect(discovering.count >= 2)
        let finding = try #require(analysis.findings.of(.discoveryRepeated).first)
        #expect(finding.connection == discovering[1].id)
        #expect(finding.evidence == discovering.map { $0.discoveryProcedures.first { $0.kind == .services }!.record! })
        #expect(finding.values["discoveries"] == Double(discovering.count))
        // One connection that discovers is no repetition.
        #expect(try diagnose(path: Fixtures.capture("service-changed.btsnoop")).of(.discoveryRepeated).isEmpty)
    }

    @Test func refusedWritesAndSubscriptionsAreTheUnexpectedRefusalsOfThePeersServer() throws {
        let writes = try TraceAnalysis(path: Fixtures.capture("att-errors.btsnoop"))
        let refusedWrites = writes.errors.filter {
            $0.server == .peer && !$0.expected && $0.requestOpcode == 0x12
                && !SecurityRefusal.asksForSecurity(ATTErrorCode(rawValue: $0.code))
                && $0.coreBluetooth?.callback == "peripheral(_:didWriteValueFor:error:)"
        }
        #expect(!refusedWrites.isEmpty)
        #expect(writes.findings.of(.writeRefused).map(\.record) == refusedWrites.map(\.record))

        let subscriptions = try TraceAnalysis(path: Fixtures.capture("reconnect-answers-differ.btsnoop"))
        let refused = subscriptions.errors.filter {
            $0.coreBluetooth?.callback == "peripheral(_:didUpdateNotificationStateFor:error:)"
        }
        #expect(refused.count == 1)
        let finding = try #require(subscriptions.findings.of(.subscriptionRefused).first)
        #expect(finding.record == refused[0].record)
        // The later connections' accepted subscriptions make none.
        #expect(subscriptions.findings.of(.subscriptionRefused).count == 1)
    }
}

@Suite struct DiagnosisParameterTests {
    @Test(arguments: [
        // interval min, max (1.25 ms units), latency, timeout (10 ms units): what breaks, worked
        // out by hand from the guidelines' numbers
        (UInt16(12), UInt16(12), UInt16(0), UInt16(200), [String]()),  // both 15 ms, 2 s
        (24, 36, 0, 600, []),  // 30-45 ms, 6 s
        (12, 24, 0, 600, []),  // 15-30 ms: max exactly 15 ms above min
        (20, 40, 0, 400, ["not a multiple of 15 ms"]),  // min 25 ms
        (8, 24, 0, 400, ["under 15 ms", "not a multiple of 15 ms"]),  // min 10 ms
        (24, 48, 31, 600, ["latency 31 is over 30"]),  // 60 ms × 32 = 1.92 s; × 3 = 5.76 s < 6 s
        (24, 48, 0, 100, ["not between 2 s and 6 s"]),  // 1 s
        (24, 48, 0, 700, ["not between 2 s and 6 s"]),  // 7 s
        (24, 400, 4, 600, ["over 2 s", "not above 3"]),  // 500 ms × 5 = 2.5 s; × 3 = 7.5 s > 6 s
        (24, 48, 10, 200, []),  // 60 ms × 11 = 660 ms; × 3 = 1.98 s < 2 s
        (24, 60, 10, 200, ["not above 3"]),  // 75 ms × 11 = 825 ms; × 3 = 2.475 s > 2 s
    ])
    func appleGuidelines(_ min: UInt16, _ max: UInt16, _ latency: UInt16, _ timeout: UInt16, _ expected: [String]) {
        let broken = DiagnosisCollector.appleGuidelineViolations(
            intervalMin: min, intervalMax: max, latency: latency, timeout: timeout, requested: true
        ).map(\.words)
        #expect(broken.count == expected.count, "\(broken)")
        for phrase in expected { #expect(broken.contains { $0.contains(phrase) }, "\(phrase) in \(broken)") }
    }

    @Test func aLinkIsCheckedWithoutTheRulesOfARequestsTwoBounds() {
        // 25 ms: no multiple of 15 ms, but a link has one interval, not a range.
        #expect(
            DiagnosisCollector.appleGuidelineViolations(
                intervalMin: 20, intervalMax: 20, latency: 0, timeout: 400, requested: false
            ).isEmpty)
        #expect(
            DiagnosisCollector.appleGuidelineViolations(
                intervalMin: 20, intervalMax: 20, latency: 0, timeout: 400, requested: true
            ).count == 2)
    }

    @Test(.sharedCaptures) func lightsappsPeerAsksForAnIntervalMinThatIsNoMultipleOf15ms() throws {
        let findings = try diagnose(path: Fixtures.publicCapture("mchwalisz-lightsapp.btsnoop")).of(
            .requestedParameters)
        #expect(!findings.isEmpty)
        for finding in findings {
            let min = try #require(finding.values["interval_min_ms"])
            #expect(min.truncatingRemainder(dividingBy: 15) != 0)
            #expect(finding.summary.contains("not a multiple of 15 ms"))
            #expect(finding.summary.contains("L2CAP Connection Parameter Update Request"))
        }
    }

    @Test func anLERemoteConnectionParameterRequestIsChecked() throws {
        // LE Remote Connection Parameter Request (subevent 0x06): handle 0x40, interval 6..6
        // (7.5 ms), latency 0, timeout 100 (1 s).
        let findings = diagnose(connected + [event("3e 0b 06 4000 0600 0600 0000 6400", at: 300)])
        let finding = try #require(findings.of(.requestedParameters).first)
        #expect(finding.record == 3)
        #expect(finding.summary.contains("LE Remote Connection Parameter Request"))
    }

    @Test func whatTheLinkRanWithInTheBundledCaptures() throws {
        let analysis = try TraceAnalysis(path: Fixtures.capture("reconnect-supervision-timeout.btsnoop"))
        let findings = analysis.findings.of(.linkParameters)
        let outside = analysis.lifecycle.connections.filter { c in
            guard let timeout = c.supervisionTimeout else { return false }
            return Double(timeout) * 10 < 2000 || Double(timeout) * 10 > 6000
        }
        #expect(!outside.isEmpty)
        #expect(findings.map(\.record) == outside.map(\.completion!.record))
        #expect(findings.allSatisfy { $0.summary.contains("not between 2 s and 6 s") })
    }
}

@Suite struct DiagnosisTrafficTests {
    @Test func latenciesAreThoseOfEveryRequestAndItsAnswer() throws {
        let path = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
        // Pair each request this host sent with the next answer received, independently.
        var decoder = TraceDecoder()
        var pending: Timestamp?
        var latencies: [Double] = []
        var firstDisconnection: Int?
        let reader = try CaptureReader(path: path)
        while let record = try reader.next() {
            let decoded = decoder.decode(record)
            if case .event(.disconnectionComplete) = decoded.packet, firstDisconnection == nil {
                firstDisconnection = record.index
            }
            guard firstDisconnection == nil, let pdu = decoded.att else { continue }
            if record.direction == .sent, pdu.opcode.method == .request { pending = record.timestamp }
            if record.direction == .received, pdu.opcode.method == .response, let start = pending {
                latencies.append(record.timestamp.seconds(since: start))
                pending = nil
            }
        }
        let finding = try #require(try diagnose(path: path).of(.traffic).first { $0.connection == 0 })
        #expect(finding.values["requests"] == Double(latencies.count))
        let ms = { (value: Double) in (value * 1_000_000).rounded() / 1000 }
        #expect(finding.values["latency_ms_min"] == ms(latencies.min()!))
        #expect(finding.values["latency_ms_max"] == ms(latencies.max()!))
    }

    @Test func gapsLongerThanHalfTheSupervisionTimeoutAreCounted() throws {
        // Timeout 42 (420 ms): gaps over 210 ms count.
        let findings = diagnose(
            connected + [
                acl(Packets.att(handle: 0x40, "1b 1000 01"), .received, at: 1_000_000),  // 3
                acl(Packets.att(handle: 0x40, "1b 1000 02"), .received, at: 1_100_000),  // 4: 100 ms
                acl(Packets.att(handle: 0x40, "1b 1000 03"), .received, at: 1_400_000),  // 5: 300 ms
                acl(Packets.att(handle: 0x40, "1b 1000 04"), .received, at: 1_900_000),  // 6: 500 ms
            ])
        let finding = try #require(findings.of(.traffic).first)
        #expect(finding.values["gaps"] == 2)
        #expect(finding.values["longest_gap_s"] == 0.5)
        #expect(finding.values["notifications"] == 4)
        #expect(finding.evidence == [2, 5, 6])
    }
}

/// The rules on the recorded captures of pairing mid-way, a cancelled pairing, power-off with a
/// request pending and an unconfirmed indication (Captures/README.md gives their frames).
@Suite struct DiagnosisOnRecordedCapturesTests {
    @Test func aPairingThisHostCancelledIsAFailedPairingWhoseLinkIOSEnds() throws {
        let findings = try diagnose(path: Fixtures.capture("pairing-cancelled.btsnoop"))
        let failed = try #require(findings.of(.pairingFailed).first)
        #expect(failed.record + 1 == 93)
        #expect(failed.evidence.contains(83 - 1))  // the Pairing Request, frame 83
        #expect(failed.summary.contains("this host sent Pairing Failed, Passkey Entry Failed (0x01)"))
        #expect(failed.coreBluetooth?.contains("CBInternalErrorDomain 17") == true)
        // The hang-up 58 ms later is iOS's, not an app giving up on the refusal.
        #expect(findings.of(.gaveUpAfterRefusal).isEmpty)
        #expect(findings.of(.securityRefusalNotRetried).first.map { $0.record + 1 } == 82)
    }

    @Test func anIndicationNeverConfirmedEndsTheLinkAfterATTsTimeout() throws {
        let findings = try diagnose(path: Fixtures.capture("unconfirmed-indication.btsnoop"))
        let timeout = try #require(findings.of(.attTimeout).first)
        #expect(timeout.record + 1 == 101)
        #expect(timeout.evidence.map { $0 + 1 } == [97, 101])
        #expect(timeout.summary.contains("Handle Value Indication of 0x001b from this host's server"))
        #expect(timeout.coreBluetooth?.contains("no disconnection callback") == true)
    }

    @Test func aPairingMidwayThatSucceedsRaisesNoSecurityFinding() throws {
        let findings = try diagnose(path: Fixtures.capture("pairing-midway.btsnoop"))
        #expect(findings.filter { $0.severity != .info }.isEmpty, "\(findings.map(\.rule))")
    }
}
