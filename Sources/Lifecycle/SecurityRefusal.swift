import ATT
import HCI
import Wire

/// What iOS makes of a request the peer's server refused for security (Insufficient
/// Authentication 0x05, Insufficient Encryption 0x0F, Insufficient Encryption Key Size 0x0C),
/// decided from what the capture shows after the refusal. iOS does not pass such a refusal to
/// the app: it pairs (or encrypts with the bond it has) and sends the request again, and the app
/// sees only how that ended (Formats/corebluetooth.md, "Security").
///
/// This is the one place the decision is made: `bletrace errors` (``ErrorCollector``), and so
/// `lifecycle` and `diagnose`, and the replay's client playback feed it the same steps, the
/// collector as the records stream by, the replay from the cassette, and both act on its
/// ``Outcome``. The errors iOS reports for the outcomes are `CoreBluetoothMapping`'s
/// (``CoreBluetoothMapping/pairingTimeoutError``, ``CoreBluetoothMapping/pairingCancelledError``).
///
/// ```swift
/// var refusal = SecurityRefusal()
/// for step in steps { if let outcome = refusal.observe(step) { return outcome } }
/// ```
package struct SecurityRefusal: Hashable, Sendable {
    /// What happened on the refusal's link after it, in capture order.
    package enum Step: Hashable, Sendable {
        /// An SMP message of a pairing (Pairing or Security Request, Pairing Response, Confirm,
        /// Random, Public Key, DHKey Check, Keypress Notification): each restarts SMP's
        /// 30-second timer (Core 6.0, Vol 3, Part H, §3.4).
        case pairingMessage(Timestamp)
        /// SMP Pairing Failed, sent by this host (`byHost`: it cancelled the pairing, a user's
        /// Cancel) or by the peer, at capture record `record`.
        case pairingFailed(Timestamp, record: Int, byHost: Bool)
        /// Encryption Change to on.
        case encrypted(Timestamp)
        /// Encryption Change or Key Refresh Complete with an error status.
        case encryptionFailed(Timestamp)
        /// The same request answered again by the peer, at record `record`.
        case answeredAgain(Timestamp, record: Int)
        /// The link ended.
        case linkEnded(Timestamp)
        /// The capture ended.
        case captureEnded(Timestamp)
        /// Nothing on the link, but time went by (a record of another link): SMP's timer may
        /// have run out.
        case elapsed(Timestamp)

        var time: Timestamp {
            switch self {
            case .pairingMessage(let time), .pairingFailed(let time, _, _), .encrypted(let time),
                .encryptionFailed(let time),
                .answeredAgain(let time, _), .linkEnded(let time), .captureEnded(let time), .elapsed(let time):
                time
            }
        }
    }

    /// How the request ends for the app.
    package enum Outcome: Hashable, Sendable {
        /// iOS paired and sent the request again: the app gets the answer at record `record`,
        /// not the refusal.
        case retried(record: Int, time: Timestamp)
        /// The app gets the refusal's error: the peer failed the pairing (``Refused/pairingFailed(record:)``),
        /// the link's encryption failed, or the capture shows no retry (as when pairing fails or
        /// is declined).
        case refused(Refused)
        /// This host cancelled the pairing (a user's Cancel) at record `record`: iOS ends the
        /// link there, and the request gets no callback.
        case cancelled(record: Int, time: Timestamp)
        /// The pairing neither finished nor failed, and SMP's 30-second timer ran out at `time`
        /// with the link up: the app gets ``CoreBluetoothMapping/pairingTimeoutError``.
        case timedOut(Timestamp)
        /// The pairing was still going when the link ended (`linkEnded`) or the capture did: the
        /// request waits for it, and a link that ends takes it along with no callback.
        case unfinished(linkEnded: Bool)
    }

    /// Why the app gets the refusal itself.
    package enum Refused: Hashable, Sendable {
        case pairingFailed(record: Int)
        case encryptionFailed
        case noRetry
    }

    /// SMP's timer (Core 6.0, Vol 3, Part H, §3.4).
    package static let pairingTimeout: Int64 = 30_000_000

    /// The latest pairing message, while a pairing is under way.
    private var lastMessage: Timestamp?
    private var encrypted = false

    package init() {}

    /// When SMP's timer runs out for the pairing under way, if one is.
    package var deadline: Timestamp? {
        guard !encrypted, let lastMessage else { return nil }
        return lastMessage.adding(microseconds: Self.pairingTimeout)
    }

    /// Takes the next step; returns the outcome once it is decided (then no further step is
    /// needed).
    package mutating func observe(_ step: Step) -> Outcome? {
        if let deadline, step.time >= deadline { return .timedOut(deadline) }
        switch step {
        case .pairingMessage(let time):
            lastMessage = time
        case .pairingFailed(let time, let record, let byHost):
            return byHost ? .cancelled(record: record, time: time) : .refused(.pairingFailed(record: record))
        case .encrypted:
            encrypted = true
        case .encryptionFailed:
            return .refused(.encryptionFailed)
        case .answeredAgain(let time, let record):
            // Sent again on a link not yet encrypted: not iOS's retry, which follows the pairing.
            return encrypted ? .retried(record: record, time: time) : .refused(.noRetry)
        case .linkEnded, .captureEnded:
            if lastMessage != nil, !encrypted {
                if case .linkEnded = step { return .unfinished(linkEnded: true) }
                return .unfinished(linkEnded: false)
            }
            return .refused(.noRetry)
        case .elapsed:
            break
        }
        return nil
    }

    /// Whether an ATT error is a refusal for security, which iOS answers by pairing: Insufficient
    /// Authentication, Insufficient Encryption, Insufficient Encryption Key Size.
    package static func asksForSecurity(_ code: ATTErrorCode) -> Bool {
        code.rawValue == 0x05 || code.rawValue == 0x0C || code.rawValue == 0x0F
    }

    /// SMP commands of a pairing under way, which restart its timer (Core 6.0, Vol 3, Part H,
    /// §3.4): Pairing Request and Response, Confirm, Random, Public Key, DHKey Check, Keypress
    /// Notification, Security Request.
    package static func isPairingMessage(_ code: SMPCode) -> Bool {
        switch code {
        case .pairingRequest, .pairingResponse, .pairingConfirm, .pairingRandom, .pairingPublicKey, .pairingDHKeyCheck,
            .pairingKeypressNotification, .securityRequest:
            true
        default: false
        }
    }
}
