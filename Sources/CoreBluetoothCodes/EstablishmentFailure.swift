/// What iOS tells the app when a connection fails to be established (HCI 0x3E, Connection Failed
/// to be Established: on the LE Connection Complete, or as the reason of a link that drops before
/// its first exchange). The evidence is thin, so both readings are kept; ``default`` is the one
/// `bletrace replay` plays and the one `errors`, `lifecycle` and `diagnose` report, so that the
/// reports and the replay tell one story (Formats/corebluetooth.md, "What iOS does on its own").
public enum EstablishmentFailure: String, Hashable, Sendable, CaseIterable {
    /// iOS's Bluetooth daemon tries again by itself while the app's `connect` stands, and calls
    /// nothing (reported: a bluetoothd log shows three failed completions after one request,
    /// Apple Developer Forums thread 761865).
    case retry
    /// `didFailToConnect` with `CBError.connectionFailed` (10), and `didDisconnectPeripheral`
    /// with it for a link that drops with 0x3E: the code exists, no report pairs it with 0x3E.
    case fail

    /// The reading the replay plays unless told otherwise, and the one every report gives.
    public static let `default`: Self = .retry

    /// The error the app's callback carries under this reading, nil when no callback comes.
    public var error: Mapped<CBError>? {
        switch self {
        case .retry: nil
        case .fail: Self.failError
        }
    }

    /// The error of the ``fail`` reading (hypothesis: no public report pairs 0x3E with code 10).
    public static let failError = Mapped(value: CBError(.connectionFailed), evidence: .hypothesis)

    /// The reports' words for a failed establishment under ``retry``, with the other reading
    /// named: `callback` is the delegate method ``fail`` calls; `namingError` false leaves out
    /// the error, for a report that gives it beside the words (`bletrace errors`, `explain`).
    public static func retried(failing callback: String, namingError: Bool = true) -> String {
        "no callback: iOS tries again by itself while the app's connect stands [reported]; --establishment-failure fail gives \(callback)"
            + (namingError ? " with CBError.connectionFailed (10) [hypothesis]" : "")
    }
}
