extension CaptureWriter {
    /// Something a record had that the target format cannot hold.
    ///
    /// Values are equal when they say the same thing, so a tally by `Loss` counts records by
    /// reason (``CaptureWriter/losses``).
    public struct Loss: Hashable, Sendable, CustomStringConvertible {
        /// What of a record the target could not keep.
        public enum Part: String, Hashable, Sendable, CaseIterable {
            /// The whole record: the target has no place for it, and it was not written.
            case record
            /// Its direction: unknown in the source, or not recorded by the target.
            case direction
            /// Its packet kind (H1 cannot tell SCO and ISO from ACL).
            case kind
            /// Its controller (adapter) index.
            case controllerIndex = "controller index"
            /// Its time: outside the range the target can hold.
            case timestamp
            /// Its original length or captured bytes.
            case length
            /// Another part of a record that was otherwise carried (a log priority).
            case detail
        }

        public var part: Part
        /// What was lost and why, for a person.
        public var reason: String

        public init(_ part: Part, _ reason: String) {
            self.part = part
            self.reason = reason
        }

        public var description: String {
            part == .record ? "not written: \(reason)" : "\(part.rawValue) not kept: \(reason)"
        }
    }
}
