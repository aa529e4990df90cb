import BLETraceCoreBluetooth
import Foundation
import TestSupport
import Testing

@testable import Flow
@testable import Replay

/// The fault sweep (issue 42): its points, its invariants (each fails on an app written to break
/// it), its reproducers, and the proof on reference apps: `fragile-setup` has a bug no capture of
/// ours shows, the sweep finds it, and `steadfast`, the same app without it, survives every fault.
@Suite struct FaultSweepTests {
    static let capture = "reconnect-supervision-timeout.btsnoop"

    func cassette(_ name: String = capture) throws -> Cassette {
        try Cassette.load(path: Fixtures.capture(name)).0
    }

    func sweep(
        _ app: String, _ families: [FaultSweep.Family] = .all, capture: String = capture, points: Int? = nil,
        replaysIdentical: Bool = false,
        expect: FlowExpectation? = nil
    ) async throws -> FaultSweep {
        let entry = try #require(ReferenceApps.named(app))
        return await FaultSweep.run(
            try cassette(capture), app: entry, families: families, points: points, replaysIdentical: replaysIdentical,
            expect: expect)
    }

    /// The sweep's run of one fault, replayed alone, and the invariants it breaks.
    func alone(_ faults: [Fault], app: String, capture: String = capture) async throws -> [FaultSweep.Failure] {
        let cassette = try cassette(capture)
        let entry = try #require(ReferenceApps.named(app))
        let reference = ReplayEngine(cassette: cassette)
        let referenceFlow = await reference.run(name: entry.name) { entry.make(for: cassette) }
        let engine = ReplayEngine(cassette: cassette)
        engine.faults = faults
        let flow = await engine.run(name: entry.name) { entry.make(for: cassette) }
        let before = FaultSweep.violations(referenceFlow, reference, nil, expect: nil, check: nil)
        return FaultSweep.violations(flow, engine, reference.finalState, expect: nil, check: nil).filter { failure in
            !before.contains { $0.invariant == failure.invariant && $0.subject == failure.subject }
        }
    }

    @Test func theSweepFindsTheBugNoCaptureShowsAndTheFixedAppSurvives() async throws {
        // Without a fault both apps end the capture the same: subscribed.
        let fragile = try await sweep("fragile-setup")
        let steadfast = try await sweep("steadfast")
        #expect(fragile.reference == steadfast.reference)
        #expect(!fragile.reference.subscribed.isEmpty)
        // A link lost during discovery leaves the fragile app disconnected for good.
        let lostDuringSetup = fragile.failures.filter { $0.family == .linkLoss && $0.worst == .noReconnect }
        #expect(!lostDuringSetup.isEmpty, "\(fragile.text(capture: Self.capture, app: "fragile-setup") { "\($0)" })")
        #expect(steadfast.survived, "\(steadfast.text(capture: Self.capture, app: "steadfast") { "\($0)" })")
        // The same points but for the second losses, placed where each app reconnected: the apps
        // make the same requests.
        #expect(
            steadfast.runs.filter { $0.family != .reconnectLoss }.map(\.faults)
                == fragile.runs.filter { $0.family != .reconnectLoss }.map(\.faults))
    }

    @Test func theFixedAppSurvivesEveryFaultOnEveryBundledCentralCapture() async throws {
        let names = try FileManager.default.contentsOfDirectory(
            atPath: Fixtures.packageRoot.appendingPathComponent("Captures").path
        )
        .filter { $0.hasSuffix(".btsnoop") }.sorted()
        #expect(names.count > 20)
        for name in names {
            let result = try await sweep("steadfast", capture: name, points: 4)
            #expect(result.survived, "\(name): \(result.text(capture: name, app: "steadfast") { "\($0)" })")
        }
    }

    /// What Formats/faults.md says the sweep finds in each reference app: the invariants each
    /// breaks, and the kinds of fault that break them.
    @Test(arguments: [
        (
            "heart-rate",
            [
                FaultSweep.Invariant.noReconnect: [FaultSweep.Family.timeout],
                .subscriptionsLost: [.attError, .pairing], .invalidObject: [.serviceChanged],
            ]
        ),
        (
            "restoring",
            [
                .noReconnect: [.timeout, .reset], .subscriptionsLost: [.attError, .pairing],
                .invalidObject: [.serviceChanged],
            ]
        ),
        (
            "forgetful",
            [
                .noReconnect: [.timeout, .reset], .subscriptionsLost: [.attError, .pairing],
                .invalidObject: [.serviceChanged],
            ]
        ),
        (
            "naive",
            [.noReconnect: [.timeout], .subscriptionsLost: [.attError, .pairing], .invalidObject: [.serviceChanged]]
        ),
        ("reconnecting", [.noReconnect: [.reset]]),
        ("sdk-timeout", [.invalidObject: [.reset]]),
        ("explorer", [.invalidObject: [.serviceChanged]]),
        ("steadfast", [:]),
    ])
    func theSweepFindsWhatTheDocumentationSaysInEachReferenceApp(
        _ app: String, _ claims: [FaultSweep.Invariant: [FaultSweep.Family]]
    ) async throws {
        let result = try await sweep(app)
        var found: [FaultSweep.Invariant: Set<FaultSweep.Family>] = [:]
        for run in result.failures {
            for failure in run.failures { found[failure.invariant, default: []].insert(run.family) }
        }
        #expect(Set(found.keys) == Set(claims.keys), "\(app): \(found)")
        for (invariant, families) in claims {
            #expect(Set(families).isSubset(of: found[invariant] ?? []), "\(app) \(invariant): \(found)")
        }
    }

    @Test func eachFailuresReproducerBreaksTheSameInvariantsAlone() async throws {
        let fragile = try await sweep("fragile-setup")
        let failures = fragile.failures.filter { $0.sameAs == nil }
        #expect(failures.count >= 5)
        for run in failures.prefix(8) {
            let again = try await alone(run.faults.map { try Fault(parsing: $0.description) }, app: "fragile-setup")
            #expect(again == run.failures, "\(run.name)")
        }
    }

    @Test func aSecondLossDuringTheReconnectFindsWhatOneLossDoesNot() async throws {
        // After the subscription, one loss leaves fragile-setup reconnecting; a second one while
        // it sets the new link up leaves it disconnected.
        let single = try await sweep("fragile-setup", [.linkLoss])
        let twice = try await sweep("fragile-setup", [.reconnectLoss])
        let failing = twice.failures.filter { $0.faults.count == 2 }
        #expect(!failing.isEmpty)
        for run in failing {
            #expect(single.runs.contains { $0.fault == run.fault && $0.survived }, "\(run.fault) alone survives")
            let again = try await alone(run.faults, app: "fragile-setup")
            #expect(again == run.failures, "\(run.name)")
        }
        #expect(
            twice.runs.contains { $0.faults.last?.kind == .linkLoss(0x3E) },
            "the reconnection failing to be established")
        let steadfast = try await sweep("steadfast", [.reconnectLoss])
        #expect(!steadfast.runs.isEmpty && steadfast.survived)
    }

    @Test func everyFailureHasADivergenceFromTheRunWithoutTheFault() async throws {
        let fragile = try await sweep("fragile-setup", [.linkLoss])
        for run in fragile.failures where run.sameAs == nil {
            let divergence = try #require(run.divergence, "\(run.fault)")
            #expect(divergence.lines.contains { $0.hasPrefix("- ") || $0.hasPrefix("+ ") })
        }
    }

    @Test func failuresComeMostSeriousFirst() async throws {
        let heartRate = try await sweep("heart-rate")
        let worst = heartRate.failures.map { $0.worst! }
        #expect(worst == worst.sorted())
        #expect(Set(worst).count >= 2, "heart-rate breaks more than one invariant: \(Set(worst))")
    }

    // MARK: Invariants, each broken by an app written to break it

    @Test func heartRateTakesANilErrorForItsOwnCancelAndStaysDisconnected() async throws {
        // ATT's transaction timeout ends a link with no error on iOS (Formats/corebluetooth.md):
        // an app that reconnects only when there is one never comes back.
        let heartRate = try await sweep("heart-rate", [.timeout])
        #expect(heartRate.failures.contains { $0.worst == .noReconnect })
        let withError = try await FaultSweep.run(
            cassette(), app: try #require(ReferenceApps.named("heart-rate")), families: [.timeout],
            platform: Platform(attTimeoutError: CBError(.connectionTimeout)))
        #expect(!withError.failures.contains { $0.worst == .noReconnect }, "with an error, it reconnects")
    }

    @Test func usingAnInvalidatedAttributeIsCaught() async throws {
        let heartRate = try await sweep("heart-rate", [.serviceChanged])
        #expect(heartRate.failures.contains { $0.worst == .invalidObject })
    }

    @Test func aSubscriptionNotMadeAgainIsCaught() async throws {
        let heartRate = try await sweep("heart-rate", [.attError])
        #expect(heartRate.failures.contains { run in run.failures.contains { $0.invariant == .subscriptionsLost } })
    }

    /// Discovers the services again as soon as the link is lost, before connecting: iOS drops a
    /// request on a peripheral that is not connected, and the app waits for ever.
    final class DiscoversWhenDisconnected: NSObject, BluetoothApp, Launchable, CBCentralManagerDelegate,
        CBPeripheralDelegate
    {
        var central: CBCentralManager?
        var peripheral: CBPeripheral?
        var known: [UUID] = []
        required override init() {}
        func didFinishLaunching(_ launch: Launch) {
            known = launch.knownPeripherals
            central = CBCentralManager(delegate: self, queue: nil)
        }
        func centralManagerDidUpdateState(_ central: CBCentralManager) {
            guard central.state == .poweredOn, let first = central.retrievePeripherals(withIdentifiers: known).first
            else { return }
            peripheral = first
            first.delegate = self
            central.connect(first)
        }
        func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
            peripheral.discoverServices(nil)
        }
        func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
            for service in peripheral.services ?? [] { peripheral.discoverCharacteristics(nil, for: service) }
        }
        func centralManager(
            _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?
        ) {
            peripheral.discoverServices(nil)
            central.connect(peripheral)
        }
        func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
            central.connect(peripheral)
        }
    }

    @Test func aRequestOnALostLinkIsCaught() async throws {
        // A capture whose link never drops: without a fault, the app breaks nothing.
        let result = await FaultSweep.run(
            try cassette("att-errors.btsnoop"), app: ReferenceApps.Entry(DiscoversWhenDisconnected.self),
            families: [.linkLoss])
        #expect(result.referenceFailures.isEmpty)
        #expect(
            result.failures.contains { $0.worst == .requestDropped }, "\(result.text(capture: "", app: "") { "\($0)" })"
        )
    }

    @Test func aPatternEveryRunMustMatchIsChecked() async throws {
        // Every run must end subscribed: the pattern's last line after a gap.
        let pattern = try FlowExpectation(
            parsing:
                "...\nperipheral didUpdateNotificationStateFor peripheral=F0:F1:F2:F3:F4:05 characteristic=2A37 isNotifying=true error=nil\n...\n"
        )
        let fragile = try await sweep("fragile-setup", [.linkLoss], expect: pattern)
        #expect(fragile.failures.contains { run in run.failures.contains { $0.invariant == .expectation } })
        let steadfast = try await sweep("steadfast", [.linkLoss], expect: pattern)
        #expect(steadfast.survived)
    }

    @Test func aChecksMessagesAreFailures() async throws {
        let entry = try #require(ReferenceApps.named("steadfast"))
        let result = await FaultSweep.run(try cassette(), app: entry, families: [.reset]) { faults, _, _ in
            ["checked \(faults)"]
        }
        #expect(!result.runs.isEmpty)
        #expect(result.runs.allSatisfy { $0.failures.first?.invariant == .check })
    }

    // MARK: Points

    @Test func identicalPointsShareAnOutcomeThatReplayingThemConfirms() async throws {
        let fast = try await sweep("fragile-setup", [.linkLoss, .notifications])
        let slow = try await sweep("fragile-setup", [.linkLoss, .notifications], replaysIdentical: true)
        #expect(fast.replayed < slow.replayed, "some points are identical")
        #expect(fast.runs.map(\.fault) == slow.runs.map(\.fault))
        #expect(fast.runs.map(\.failures) == slow.runs.map(\.failures))
    }

    @Test func pointsAreWhereEachFaultApplies() async throws {
        let result = try await sweep("steadfast")
        let requests = result.runs.filter { $0.fault.hitsRequest }
        #expect(requests.allSatisfy { if case .request = $0.fault.point { true } else { false } })
        // A subscription's refusals include 0xFD, a discovery's do not.
        #expect(result.runs.contains { $0.fault.kind == .attError(0xFD) && $0.after.contains("setNotifyValue") })
        #expect(!result.runs.contains { $0.fault.kind == .attError(0xFD) && $0.after.contains("discover") })
        // A failed establishment only before a connection completes.
        #expect(result.runs.filter { $0.fault.kind == .linkLoss(0x3E) }.count == 2)
        #expect(!result.runs.contains { $0.family == .bondLost }, "the capture never shows a link encrypted")
        let limited = try await sweep("steadfast", [.linkLoss], points: 2)
        #expect(limited.runs.filter { $0.fault.kind == .linkLoss(0x08) }.count == 2)
    }
}
