/// A rule of `bletrace diagnose`: its kebab-case name and the severity of what it finds. Each is
/// described in Formats/diagnose.md (what it detects, why, and its source).
public struct DiagnosisRule: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var severity: Finding.Severity

    public init(_ name: String, _ severity: Finding.Severity) {
        self.name = name
        self.severity = severity
    }

    public var description: String { name }

    // Why each link ended.
    /// Disconnection 0x08, after silence from the peer or shortly after a parameter update.
    public static let supervisionTimeout = DiagnosisRule("link-ended-supervision-timeout", .error)
    /// Disconnection 0x22 after a link-layer procedure the peer did not answer.
    public static let llResponseTimeout = DiagnosisRule("link-ended-ll-response-timeout", .error)
    /// Status or reason 0x3E: the connection was never established.
    public static let failedToEstablish = DiagnosisRule("link-failed-to-establish", .error)
    /// A request unanswered for 30 s, then the host's disconnection.
    public static let attTimeout = DiagnosisRule("link-ended-att-timeout", .error)
    /// PIN or Key Missing (0x06) or a failed encryption: the peer no longer has the bond.
    public static let bondMissing = DiagnosisRule("link-ended-bond-missing", .error)
    /// Disconnection 0x3D: a packet failed its integrity check.
    public static let micFailure = DiagnosisRule("link-ended-mic-failure", .error)
    /// Disconnection 0x3B: connection parameters one side would not accept.
    public static let unacceptableParameters = DiagnosisRule("link-ended-unacceptable-parameters", .error)
    /// This host cancelled a connection attempt at Android's 30-s direct-connection timeout.
    public static let connectTimedOut = DiagnosisRule("connect-timed-out", .error)
    /// A connection attempt that never completed, to a peer the capture's scans never heard
    /// advertising connectably, or last heard 30 s or more before.
    public static let connectToUnheardPeer = DiagnosisRule("connect-to-unheard-peer", .warning)
    /// A connection attempt to a peer this host was connected to, or already connecting to.
    public static let connectWhileBusy = DiagnosisRule("connect-while-busy", .warning)
    /// This host disconnected within 2 s of an ATT error from the peer's server.
    public static let gaveUpAfterRefusal = DiagnosisRule("host-disconnected-after-refusal", .warning)

    /// The peer ended the link within 2 s of an MTU exchange, a PHY or data length update or the
    /// encryption, and sent nothing in between.
    public static let endedAfterProcedure = DiagnosisRule("link-ended-after-procedure", .error)

    // Security.
    public static let pairingUnfinished = DiagnosisRule("pairing-unfinished", .warning)
    public static let pairingFailed = DiagnosisRule("pairing-failed", .error)
    public static let securityRefusalNotRetried = DiagnosisRule("security-refusal-not-retried", .error)
    public static let shortKey = DiagnosisRule("encryption-key-size-short", .warning)
    public static let bondNotKept = DiagnosisRule("bond-not-kept", .warning)

    // GATT.
    public static let outsideDatabase = DiagnosisRule("request-outside-database", .warning)
    public static let rediscoveryAfterServiceChanged = DiagnosisRule("rediscovery-after-service-changed", .info)
    public static let serviceChangedIgnored = DiagnosisRule("service-changed-not-rediscovered", .warning)
    /// A reconnect encrypted with the bond that restored no subscription: no CCCD write, no
    /// notification.
    public static let notificationsNotRestored = DiagnosisRule("notifications-not-restored", .warning)
    public static let discoveryRepeated = DiagnosisRule("discovery-repeated", .warning)
    /// Two full discoveries of a peer's primary services on two of its connections found
    /// different services, with no Service Changed indication between them (issue 43 §5).
    public static let databaseChanged = DiagnosisRule("database-changed-without-service-changed", .warning)
    public static let writeRefused = DiagnosisRule("write-refused", .error)
    public static let subscriptionRefused = DiagnosisRule("subscription-refused", .error)
    /// A write longer than ATT_MTU − 3 or than 512 bytes, a prepare write queue or a long read
    /// past 512 bytes.
    public static let valueTooLong = DiagnosisRule("att-value-too-long", .warning)
    /// A controller scan filter (Android's APCF) on a service a peer has but never advertised.
    public static let scanFilterUnmatched = DiagnosisRule("scan-filter-never-matches-peer", .warning)

    // Connection parameters against Apple's Accessory Design Guidelines.
    public static let requestedParameters = DiagnosisRule("requested-parameters-outside-apple-guidelines", .warning)
    public static let linkParameters = DiagnosisRule("link-parameters-outside-apple-guidelines", .info)

    // Traffic.
    public static let traffic = DiagnosisRule("connection-traffic", .info)

    /// Every rule, in the order Formats/diagnose.md describes them.
    public static let all: [DiagnosisRule] = [
        supervisionTimeout, llResponseTimeout, failedToEstablish, connectTimedOut, connectToUnheardPeer,
        connectWhileBusy, attTimeout, bondMissing, micFailure,
        unacceptableParameters, gaveUpAfterRefusal, pairingUnfinished, pairingFailed, securityRefusalNotRetried,
        shortKey, bondNotKept, outsideDatabase,
        rediscoveryAfterServiceChanged, serviceChangedIgnored, notificationsNotRestored, discoveryRepeated,
        databaseChanged,
        writeRefused, subscriptionRefused,
        endedAfterProcedure, valueTooLong, scanFilterUnmatched,
        requestedParameters,
        linkParameters, traffic,
    ]
}
