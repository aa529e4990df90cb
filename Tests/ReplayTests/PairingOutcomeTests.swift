import BLETraceCoreBluetooth
import CoreBluetoothCodes
import Foundation
import Lifecycle
import TestSupport
import Wire
import Testing

@testable import Replay

/// What the app hears when the peer refuses a request for security and the pairing that follows
/// fails, is cancelled on the phone, or succeeds; and the GAP name (Formats/corebluetooth.md,
/// "Peripheral (GATT client)"). Hand-built captures of one connection to F0:F1:F2:F3:F4:05.
@Suite struct PairingOutcomeTests {
    static let att = PerConnectionAnswersTests.att

    /// ACL on handle 0x0040 carrying the SMP PDU `pdu` (L2CAP channel 0x0006).
    static func smp(_ pdu: String) -> String {
        let count = Wire.bytes(hex: pdu)!.count
        return String(format: "4000 %02x00 %02x00 0600 ", count + 4, count) + pdu
    }

    /// Discovery finds Body Sensor Location (0x0003); the app's read of it is refused with
    /// Insufficient Authentication at +1.0; pairing starts, and a Pairing Failed (reason
    /// Unspecified) comes at +1.5 from `failedBy` (`.sent`: this host); the link ends at +3.0.
    static func refusedThenPairingFails(failedBy direction: Direction) -> Cassette {
        PerConnectionAnswersTests.cassette(
            PerConnectionAnswersTests.connectedAndDiscovered(service: "0d18", properties: "02", characteristic: "382a")
                + [
                    OwnedRecord(kind: .acl, direction: .sent, hex: att("0a 0300"), time: 1_000_000),
                    OwnedRecord(kind: .acl, direction: .received, hex: att("01 0a 0300 05"), time: 1_010_000),
                    OwnedRecord(kind: .acl, direction: .sent, hex: smp("01 03 00 01 10 07 07"), time: 1_100_000),
                    OwnedRecord(kind: .acl, direction: direction, hex: smp("05 08"), time: 1_500_000),
                    OwnedRecord(kind: .event, direction: .received, hex: "05 04 00 4000 16", time: 3_000_000),
                ])
    }

    @Test func aPairingThisHostCancelsEndsTheLinkWithNoCallbackForTheRequest() async throws {
        let cassette = Self.refusedThenPairingFails(failedBy: .sent)
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        #expect(flow.events.contains { $0.name == "readValue" })
        #expect(!flow.events.contains { $0.name == "didUpdateValueFor" })
        let disconnections = flow.events.filter { $0.name == "didDisconnectPeripheral" }
        #expect(disconnections.count == 1)
        #expect(disconnections.first?.argument("error") == "CBInternalError.pairingCancelled")
        #expect(disconnections.first?.time == 1.4)  // the capture's Pairing Failed, from its first record
        #expect(flow.comments.contains { $0.contains("this host cancelled the pairing") })
    }

    @Test func aPairingThatTimedOutIsNotTheOneALaterPairingCancelEnds() async throws {
        // As Syed-Bipul-Rahman's log: a refusal, a pairing that never finishes (SMP's 30 s timer
        // runs out 30 s after its request), then a refused write whose pairing this host cancels.
        let cassette = PerConnectionAnswersTests.cassette(
            PerConnectionAnswersTests.connectedAndDiscovered(service: "0d18", properties: "0a", characteristic: "382a")
                + [
                    OwnedRecord(kind: .acl, direction: .sent, hex: Self.att("0a 0300"), time: 1_000_000),
                    OwnedRecord(kind: .acl, direction: .received, hex: Self.att("01 0a 0300 05"), time: 1_010_000),
                    OwnedRecord(kind: .acl, direction: .sent, hex: Self.smp("01 03 00 01 10 07 07"), time: 1_100_000),
                    OwnedRecord(kind: .acl, direction: .sent, hex: Self.att("12 0300 01"), time: 33_000_000),
                    OwnedRecord(kind: .acl, direction: .received, hex: Self.att("01 12 0300 05"), time: 33_010_000),
                    OwnedRecord(kind: .acl, direction: .sent, hex: Self.smp("01 03 00 01 10 07 07"), time: 33_100_000),
                    OwnedRecord(kind: .acl, direction: .sent, hex: Self.smp("05 08"), time: 33_500_000),
                    OwnedRecord(kind: .event, direction: .received, hex: "05 04 00 4000 16", time: 40_000_000),
                ])
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        // The read gets SMP's timeout at the timer's end (+31.1; times count from the first record) ...
        let read = try #require(flow.events.first { $0.name == "didUpdateValueFor" })
        #expect(read.argument("error") == "CBATTError.insufficientEncryption")
        #expect(read.time.map { abs($0 - 31.0) < 0.001 } == true)
        // ... and the second pairing's cancel ends the link, the write with no callback.
        #expect(!flow.events.contains { $0.name == "didWriteValueFor" })
        let disconnection = try #require(flow.events.first { $0.name == "didDisconnectPeripheral" })
        #expect(disconnection.argument("error") == "CBInternalError.pairingCancelled")
    }

    @Test func aPairingThePeerFailsGivesTheOperationTheRefusal() async throws {
        let cassette = Self.refusedThenPairingFails(failedBy: .received)
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        let read = try #require(flow.events.first { $0.name == "didUpdateValueFor" })
        #expect(read.argument("error") == "CBATTError.insufficientAuthentication")
        #expect(flow.comments.contains { $0.contains("pairing failed in the capture") })
    }

    @Test func theInternalErrorBridgesToItsDomainWithTheFrameworksText() {
        let error = CBInternalError(.pairingCancelled) as NSError
        #expect(error.domain == "CBInternalErrorDomain")
        #expect(error.code == 17)
        #expect(error.localizedDescription == "Pairing was cancelled.")
        #expect((CBInternalError(.micFailure) as NSError).code == 31)
        #expect(CBInternalError(errorCode: 999).description == "CBInternalError(999)")
    }

    @Test func theMappingGivesAFailedPairingTheRefusalThatLedToIt() {
        #expect(
            CoreBluetoothMapping.pairingFailureError(reason: 0x08, refusal: 0x0F).value
                == CBATTError(.insufficientEncryption))
        #expect(CoreBluetoothMapping.pairingFailureError(reason: 0x08, refusal: 0x05).evidence == .reported)
        #expect(CoreBluetoothMapping.pairingFailureError(reason: 0x08).value == CBATTError(.insufficientAuthentication))
    }

    @Test func theNameFollowsTheGAPDeviceNameTheSystemReads() async throws {
        // Generic Access with Device Name at 0x0003, read by the captured stack at +0.5: "new-name".
        let cassette = PerConnectionAnswersTests.cassette(
            PerConnectionAnswersTests.connectedAndDiscovered(service: "0018", properties: "02", characteristic: "002a")
                + [
                    OwnedRecord(kind: .acl, direction: .sent, hex: Self.att("0a 0300"), time: 500_000),
                    OwnedRecord(kind: .acl, direction: .received, hex: Self.att("0b 6e65772d6e616d65"), time: 510_000),
                    OwnedRecord(kind: .event, direction: .received, hex: "05 04 00 4000 13", time: 2_000_000),
                ])
        final class NameApp: NSObject, BluetoothApp, CBCentralManagerDelegate, CBPeripheralDelegate {
            var central: CBCentralManager?
            var peripheral: CBPeripheral?
            var names: [String?] = []
            func didFinishLaunching(_ launch: Launch) { central = CBCentralManager(delegate: self, queue: nil) }
            func centralManagerDidUpdateState(_ central: CBCentralManager) {
                guard central.state == .poweredOn,
                    let found = central.retrievePeripherals(withIdentifiers: [
                        CBPeer.identifier(for: BluetoothAddress("F0:F1:F2:F3:F4:05")!)
                    ]).first
                else { return }
                peripheral = found
                found.delegate = self
                central.connect(found)
            }
            func peripheralDidUpdateName(_ peripheral: CBPeripheral) { names.append(peripheral.name) }
        }
        let app = NameApp()
        let flow = await ReplayEngine(cassette: cassette).run(app, name: "names")
        #expect(app.names == ["new-name"])
        let update = try #require(flow.events.first { $0.name == "didUpdateName" })
        #expect(update.argument("name") == "new-name")
        #expect(update.time == 0.41)
    }
}

/// A pairing that a refusal for security led to and that never finishes: SMP's 30-second timer
/// (Core 6.0, Vol 3, Part H, §3.4) runs out, and iOS gives the operation Insufficient Encryption
/// (reported: an Apple Developer Forums reply, Formats/corebluetooth.md).
@Suite struct PairingTimeoutTests {
    /// The read refused with Insufficient Authentication at +1.0; this host's Pairing Request at
    /// +1.1 and the peer's Pairing Response at +1.2, then nothing; the link ends at `end`
    /// microseconds (the peer's 0x13).
    static func records(linkEndsAt end: Int64) -> [OwnedRecord] {
        PerConnectionAnswersTests.connectedAndDiscovered(service: "0d18", properties: "02", characteristic: "382a") + [
            OwnedRecord(kind: .acl, direction: .sent, hex: PairingOutcomeTests.att("0a 0300"), time: 1_000_000),
            OwnedRecord(
                kind: .acl, direction: .received, hex: PairingOutcomeTests.att("01 0a 0300 05"), time: 1_010_000),
            OwnedRecord(
                kind: .acl, direction: .sent, hex: PairingOutcomeTests.smp("01 03 00 01 10 07 07"), time: 1_100_000),
            OwnedRecord(
                kind: .acl, direction: .received, hex: PairingOutcomeTests.smp("02 03 00 01 10 07 07"), time: 1_200_000),
            OwnedRecord(kind: .event, direction: .received, hex: "05 04 00 4000 13", time: end),
        ]
    }

    static func errors(_ records: [OwnedRecord]) -> [TraceError] {
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        var collector = ErrorCollector()
        for (index, var owned) in records.enumerated() {
            owned.index = index
            owned.withRecord { record in
                let decoded = decoder.decode(record)
                analyzer.add(record, decoded)
                collector.add(record, decoded, analyzer: analyzer)
            }
        }
        return collector.errors
    }

    @Test func aPairingThatNeverFinishesGivesTheOperationInsufficientEncryptionAtSMPsTimeout() async throws {
        let records = Self.records(linkEndsAt: 40_000_000)
        let cassette = PerConnectionAnswersTests.cassette(records)
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        let read = try #require(flow.events.first { $0.name == "didUpdateValueFor" })
        #expect(read.argument("error") == "CBATTError.insufficientEncryption")
        // 30 s after the Pairing Response (+1.2), counted from the capture's first record (+0.1).
        #expect(read.time == 31.1)
        #expect(flow.comments.contains { $0.contains("SMP's 30-second timeout") })
        // `errors` says the same.
        let refusal = try #require(Self.errors(records).first { $0.layer == .att && $0.code == 0x05 })
        #expect(refusal.coreBluetooth?.name == "insufficientEncryption")
        #expect(refusal.coreBluetooth?.code == 15)
        #expect(refusal.coreBluetooth?.callback == "peripheral(_:didUpdateValueFor:error:)")
    }

    @Test func aLinkThatEndsBeforeTheTimeoutDropsTheRequestWithNoCallback() async throws {
        let records = Self.records(linkEndsAt: 20_000_000)
        let cassette = PerConnectionAnswersTests.cassette(records)
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        #expect(!flow.events.contains { $0.name == "didUpdateValueFor" })
        #expect(flow.events.contains { $0.name == "didDisconnectPeripheral" })
        #expect(flow.comments.contains { $0.contains("still going when it ended") })
        let refusal = try #require(Self.errors(records).first { $0.layer == .att && $0.code == 0x05 })
        #expect(refusal.coreBluetooth?.callback.hasPrefix("no callback") == true)
    }
}

/// What iOS makes of a refusal for security is decided once (``SecurityRefusal``), for `bletrace
/// errors` and for the replay: on every shape of what follows the refusal, the callback `errors`
/// names is the one the mirror's flow has, with the same error, or neither has one.
@Suite struct OneSecurityDecisionTests {
    static let smp = PairingOutcomeTests.smp
    static let att = PairingOutcomeTests.att

    /// What follows the read refused with Insufficient Authentication at +1.01.
    enum Shape: String, CaseIterable, Sendable {
        case pairedThenSentAgain, peerFailsThePairing, hostCancelsThePairing, smpTimerRunsOut, linkEndsDuringThePairing
        case captureEndsDuringThePairing, encryptionFails, sentAgainWithNoPairing, nothingButTheLinksEnd

        var after: [OwnedRecord] {
            let pairing = [
                OwnedRecord(kind: .acl, direction: .sent, hex: smp("01 03 00 01 10 07 07"), time: 1_100_000),
                OwnedRecord(kind: .acl, direction: .received, hex: smp("02 03 00 01 10 07 07"), time: 1_200_000),
            ]
            func event(_ hex: String, at time: Int64) -> OwnedRecord {
                OwnedRecord(kind: .event, direction: .received, hex: hex, time: time)
            }
            let disconnected = "05 04 00 4000 13"
            let readAgain = [
                OwnedRecord(kind: .acl, direction: .sent, hex: att("0a 0300"), time: 2_000_000),
                OwnedRecord(kind: .acl, direction: .received, hex: att("0b 42"), time: 2_010_000),
            ]
            return switch self {
            case .pairedThenSentAgain: pairing + [event("08 04 00 4000 01", at: 1_500_000)] + readAgain
            case .peerFailsThePairing:
                pairing + [OwnedRecord(kind: .acl, direction: .received, hex: smp("05 08"), time: 1_500_000)]
            case .hostCancelsThePairing:
                pairing + [OwnedRecord(kind: .acl, direction: .sent, hex: smp("05 08"), time: 1_500_000)]
            case .smpTimerRunsOut: pairing + [event(disconnected, at: 40_000_000)]
            case .linkEndsDuringThePairing: pairing + [event(disconnected, at: 5_000_000)]
            case .captureEndsDuringThePairing: pairing
            case .encryptionFails:
                pairing + [event("08 04 06 4000 00", at: 1_500_000), event(disconnected, at: 40_000_000)]
            case .sentAgainWithNoPairing: readAgain
            case .nothingButTheLinksEnd: [event(disconnected, at: 5_000_000)]
            }
        }

        /// The read's error in the app's callback ("" for its value), or nil for no callback.
        var error: String? {
            switch self {
            case .pairedThenSentAgain: ""
            case .peerFailsThePairing, .encryptionFails, .sentAgainWithNoPairing, .nothingButTheLinksEnd:
                "CBATTError.insufficientAuthentication"
            case .smpTimerRunsOut: "CBATTError.insufficientEncryption"
            case .hostCancelsThePairing, .linkEndsDuringThePairing, .captureEndsDuringThePairing: nil
            }
        }
    }

    @Test(arguments: Shape.allCases)
    func errorsAndTheReplayTellTheSameStory(_ shape: Shape) async throws {
        let records =
            PerConnectionAnswersTests.connectedAndDiscovered(service: "0d18", properties: "02", characteristic: "382a")
            + [
                OwnedRecord(kind: .acl, direction: .sent, hex: Self.att("0a 0300"), time: 1_000_000),
                OwnedRecord(kind: .acl, direction: .received, hex: Self.att("01 0a 0300 05"), time: 1_010_000),
            ] + shape.after
        let refusal = try #require(PairingTimeoutTests.errors(records).first { $0.layer == .att && $0.code == 0x05 })
        let cb = try #require(refusal.coreBluetooth)
        let cassette = PerConnectionAnswersTests.cassette(records)
        let flow = await ReplayEngine(cassette: cassette).run(MirrorApp(cassette: cassette), name: "mirror")
        let read = flow.events.first { $0.name == "didUpdateValueFor" }
        switch shape.error {
        case "":
            #expect(cb.callback.hasPrefix("no callback: iOS paired and sent the request again"))
            #expect(read?.argument("error") == "nil")
        case let error?:
            #expect(cb.callback == "peripheral(_:didUpdateValueFor:error:)")
            #expect("CBATTError.\(cb.name ?? "?")" == error)
            #expect(read?.argument("error") == error)
        case nil:
            #expect(cb.callback.hasPrefix("no callback"))
            #expect(read == nil)
        }
    }
}
