/// How strongly a row of Android's mapping is supported: the grades of CoreBluetooth's table
/// (Formats/error-mapping.md), read for an open-source stack (Formats/android-mapping.md).
public enum AndroidEvidence: String, Hashable, Sendable, Codable {
    /// Stated by the AOSP Bluetooth module's source (a constant's value, or the code path that
    /// sets the status) in the release named, or by Android's API reference.
    case documented
    /// Observed on devices and reported publicly, with no statement of the source found.
    case reported
    /// Reasoned from the source or the specification, neither stated nor observed.
    case hypothesis
}
