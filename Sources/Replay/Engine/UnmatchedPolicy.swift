/// What a replay does with a request of the app that the capture cannot answer (the captured app
/// never made it, or the capture never shows the answer). Every such request is also written to
/// the flow as a `# divergence:` comment naming it.
public enum UnmatchedPolicy: String, CaseIterable, Sendable {
    /// Never answered, as by a peer that went silent: the app's own timeouts then show.
    case pend
    /// Answered with `CBATTError.unlikelyError`.
    case error
    /// The replay stops; `bletrace replay` exits 1.
    case fail
}
