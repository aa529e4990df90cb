import HCI
import Wire

/// One pairing on a connection, as SMP on L2CAP channel 6 shows it (Core 6.0, Vol 3, Part H):
/// who started it, the method the two sides' features select, how it ended, and what led to it.
///
/// CoreBluetooth shows apps no pairing: iOS pairs when the peer refuses a request for security
/// and sends the request again, and the app sees only that request's result
/// (Formats/corebluetooth.md, "Pairing").
public struct Pairing: Hashable, Sendable, Codable {
    /// Who sent a packet: this host or the peer.
    public enum Side: String, Hashable, Sendable, Codable { case host, peer }

    /// The pairing method, Core 6.0, Vol 3, Part H, §2.3.5.1 (Tables 2.6-2.8).
    public enum Method: String, Hashable, Sendable, Codable {
        case justWorks = "Just Works", passkeyEntry = "Passkey Entry"
        case numericComparison = "Numeric Comparison", outOfBand = "OOB"
    }

    /// How the pairing ended.
    public enum Outcome: String, Hashable, Sendable, Codable {
        /// Encryption came on after it.
        case encrypted
        /// A Pairing Failed ended it.
        case failed
        /// Neither by the end of the connection or of the capture.
        case unfinished
    }

    /// The first SMP packet of the pairing (Security Request or Pairing Request).
    public var time: Timestamp
    public var record: Int
    /// Who started it: the side that sent the Security Request (a peripheral asking) or else
    /// the Pairing Request.
    public var startedBy: Side
    /// Started by the peripheral's Security Request.
    public var securityRequested = false
    /// From Pairing Request and Response, when both are in the capture.
    package var method: Method?
    public var secureConnections: Bool?
    /// Both sides asked to bond (Bonding_Flags 01 in both AuthReq fields).
    public var bonding: Bool?
    /// The Pairing Request and Pairing Response: their records and the Maximum Encryption Key
    /// Size each allows (7 to 16 bytes, §3.5.1, §3.5.2).
    public var requestRecord: Int?
    public var requestMaxKeySize: UInt8?
    public var responseRecord: Int?
    public var responseMaxKeySize: UInt8?
    /// The key size the two agreed on: the smaller of the two maximums (§2.3.4), once both
    /// messages are in the capture.
    public var keySize: UInt8? {
        guard let requestMaxKeySize, let responseMaxKeySize else { return nil }
        return min(requestMaxKeySize, responseMaxKeySize)
    }
    public var outcome: Outcome = .unfinished
    /// When and in which record it ended (encryption on, or Pairing Failed).
    public var endTime: Timestamp?
    public var endRecord: Int?
    /// Pairing Failed: who sent it and why (§3.5.5).
    public var failedBy: Side?
    public var failureReason: UInt8?
    public var failureName: String? { failureReason.map { SMPPairingFailedReason(rawValue: $0).description } }
    /// The ATT refusal (Insufficient Authentication, Encryption or Encryption Key Size) of the
    /// peer's server that came last before it on the connection, if any: the record of the
    /// Error Response.
    public var causeRecord: Int?
    /// The connection (``Connection/id``) of the same peer that paired before: pairing again means
    /// that the bond of the earlier one was not kept (or none was made).
    public var pairedBeforeOn: Int?

    public init(time: Timestamp, record: Int, startedBy: Side) {
        self.time = time
        self.record = record
        self.startedBy = startedBy
    }

    /// The method two sides' Pairing Request (initiator) and Pairing Response (responder)
    /// select: OOB when the OOB flags say so, Just Works when neither asks for MITM protection,
    /// else by the IO capabilities (§2.3.5.1).
    package static func method(initiator: SMPPairingFeatures, responder: SMPPairingFeatures) -> Method {
        let secure =
            initiator.authenticationRequirements.secureConnections
            && responder.authenticationRequirements.secureConnections
        let oob =
            secure
            ? initiator.oobDataFlag == 1 || responder.oobDataFlag == 1
            : initiator.oobDataFlag == 1 && responder.oobDataFlag == 1
        if oob { return .outOfBand }
        guard initiator.authenticationRequirements.mitm || responder.authenticationRequirements.mitm else {
            return .justWorks
        }
        let a = initiator.ioCapability.rawValue, b = responder.ioCapability.rawValue
        // NoInputNoOutput (3) on either side, or an unknown capability: no user interaction.
        guard a <= 4, b <= 4, a != 3, b != 3 else { return .justWorks }
        let pair = Set([a, b])
        switch pair {
        case [0], [0, 1]: return .justWorks  // DisplayOnly with DisplayOnly or DisplayYesNo
        case [1]: return secure ? .numericComparison : .justWorks  // DisplayYesNo with DisplayYesNo
        case [1, 4], [4]: return secure ? .numericComparison : .passkeyEntry
        default: return .passkeyEntry  // a keyboard on one side and a display or keyboard on the other
        }
    }
}
