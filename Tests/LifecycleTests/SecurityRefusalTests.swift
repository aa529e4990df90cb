import Lifecycle
import Testing
import Wire

/// The one decision of what iOS makes of a request refused for security (``SecurityRefusal``),
/// step by step.
@Suite struct SecurityRefusalTests {
    static func at(_ seconds: Double) -> Timestamp { Timestamp(rawValue: Int64(seconds * 1_000_000)) }

    static func decide(_ steps: [SecurityRefusal.Step]) -> SecurityRefusal.Outcome? {
        var refusal = SecurityRefusal()
        for step in steps { if let outcome = refusal.observe(step) { return outcome } }
        return nil
    }

    @Test func aRetryCountsOnlyOnAnEncryptedLink() {
        #expect(
            Self.decide([.pairingMessage(Self.at(1)), .encrypted(Self.at(2)), .answeredAgain(Self.at(3), record: 9)])
                == .retried(record: 9, time: Self.at(3)))
        #expect(Self.decide([.answeredAgain(Self.at(3), record: 9)]) == .refused(.noRetry))
        #expect(
            Self.decide([.pairingMessage(Self.at(1)), .answeredAgain(Self.at(3), record: 9)]) == .refused(.noRetry))
    }

    @Test func smpsTimerRunsThirtySecondsFromThePairingsLastMessage() {
        let pairing: [SecurityRefusal.Step] = [.pairingMessage(Self.at(1)), .pairingMessage(Self.at(2))]
        // 29.999 s after the last message: still going.
        #expect(Self.decide(pairing + [.elapsed(Self.at(31.999))]) == nil)
        // At 30 s exactly, whatever comes.
        #expect(Self.decide(pairing + [.elapsed(Self.at(32))]) == .timedOut(Self.at(32)))
        #expect(Self.decide(pairing + [.linkEnded(Self.at(40))]) == .timedOut(Self.at(32)))
        #expect(Self.decide(pairing + [.captureEnded(Self.at(32))]) == .timedOut(Self.at(32)))
        // Encryption ends the pairing, and its timer.
        #expect(Self.decide(pairing + [.encrypted(Self.at(3)), .elapsed(Self.at(60))]) == nil)
    }

    @Test func whoFailedThePairingDecidesWhatTheAppHears() {
        #expect(
            Self.decide([.pairingMessage(Self.at(1)), .pairingFailed(Self.at(2), record: 5, byHost: true)])
                == .cancelled(record: 5, time: Self.at(2)))
        #expect(
            Self.decide([.pairingMessage(Self.at(1)), .pairingFailed(Self.at(2), record: 5, byHost: false)])
                == .refused(.pairingFailed(record: 5)))
        #expect(
            Self.decide([.pairingMessage(Self.at(1)), .encryptionFailed(Self.at(2))]) == .refused(.encryptionFailed))
    }

    @Test func aPairingStillGoingAtTheEndLeavesTheRequestWaiting() {
        #expect(Self.decide([.pairingMessage(Self.at(1)), .linkEnded(Self.at(5))]) == .unfinished(linkEnded: true))
        #expect(Self.decide([.pairingMessage(Self.at(1)), .captureEnded(Self.at(5))]) == .unfinished(linkEnded: false))
        // No pairing, or one that finished: the capture shows no retry.
        #expect(Self.decide([.linkEnded(Self.at(5))]) == .refused(.noRetry))
        #expect(
            Self.decide([.pairingMessage(Self.at(1)), .encrypted(Self.at(2)), .captureEnded(Self.at(5))])
                == .refused(.noRetry))
    }
}
