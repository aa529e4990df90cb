/// What an Android app would have been told of a failure: the `status` its callback receives,
/// the constant that names it, which callback, and how sure that is, with the AOSP source.
public struct AndroidStatus: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The number the callback receives.
    public var status: Int
    /// Its constant (``AndroidCodes``); nil for a number the stack passes on unnamed.
    public var name: String?
    /// The `BluetoothGattCallback` method (or broadcast) that receives it, or `no callback: …`
    /// with the reason.
    public var callback: String
    public var grade: AndroidEvidence
    /// The AOSP Bluetooth module's file and symbol that decide it (Formats/android-mapping.md).
    public var source: String
    /// What else an app should know: a collision of numbers, a retry the framework makes.
    public var note: String?
    /// What releases from a later one report instead, where they differ.
    public var later: Release?

    /// A status that a later Android release reports instead.
    public struct Release: Hashable, Sendable, Codable {
        /// The first release that does, as people name it: `Android 15 (API 35)`.
        public var since: String
        public var status: Int
        public var name: String?

        public init(since: String, status: Int, name: String?) {
            self.since = since
            self.status = status
            self.name = name
        }
    }

    public init(
        status: Int, name: String?, callback: String, grade: AndroidEvidence, source: String, note: String? = nil,
        later: Release? = nil
    ) {
        self.status = status
        self.name = name
        self.callback = callback
        self.grade = grade
        self.source = source
        self.note = note
        self.later = later
    }

    /// The status, decimal first as apps log it, and its constant: `133 GATT_ERROR`.
    public var statusText: String { "\(status)" + (name.map { " \($0)" } ?? "") }

    /// One line, as the text reports write it: `onConnectionStateChange, status 8
    /// GATT_CONN_TIMEOUT [documented]`, with the later release's status after the first.
    public var description: String {
        var text =
            callback.hasPrefix("no ") ? "\(callback) (status \(statusText))" : "\(callback), status \(statusText)"
        if let later { text += "; \(later.since) and later: \(later.status)" + (later.name.map { " \($0)" } ?? "") }
        return text + " [\(grade.rawValue)]"
    }

    /// The same status, received by no callback for `reason`.
    public func withoutCallback(_ reason: String) -> AndroidStatus {
        var copy = self
        copy.callback = "no callback: " + reason
        return copy
    }
}
