import CoreBluetoothCodes

/// The rules where the evidence of what iOS does is thin or split: each reading is a choice of
/// the replay (`bletrace replay --establishment-failure`, `--pairing-cancel`; ``Platform`` in
/// `ReplayOptions`), and Formats/corebluetooth.md, "What iOS does on its own", names the default
/// and why.
extension Platform {
    /// What iOS tells the app when a connection fails to be established (HCI 0x3E: on the
    /// completion, or as the reason of a link that drops before its first exchange). One type
    /// for the replay and the reports (`errors`, `lifecycle`, `diagnose`), whose words follow
    /// its `EstablishmentFailure.default`.
    public typealias EstablishmentFailure = CoreBluetoothCodes.EstablishmentFailure

    /// What a pairing cancelled on the phone (this host sends SMP Pairing Failed while iOS
    /// pairs for a request the peer refused for security) does. The two accounts found disagree.
    public enum PairingCancel: String, Hashable, Sendable, CaseIterable {
        /// The default: iOS ends the link; the request gets no callback and
        /// `didDisconnectPeripheral` carries `CBInternalErrorDomain` 17 (a developer's forum reply).
        case endsLink = "ends-link"
        /// The request's own callback gets `CBInternalErrorDomain` 17 and the link stays up
        /// (lists.apple.com bluetooth-dev, 2016).
        case failsRequest = "fails-request"
    }
}
