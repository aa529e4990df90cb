import Wire

extension Cassette {
    /// The capture host's controller's buffers for LE ACL data, as LE Read Buffer Size answered
    /// (Core 6.0, Vol 4, Part E, §7.8.2): how many packets it holds, and how long each may be.
    public struct ControllerBuffers: Hashable, Sendable {
        public var packets: Int
        public var length: Int
    }

    /// A Number Of Completed Packets event's count for one connection (Core 6.0, Vol 4, Part E,
    /// §7.7.19): at `time` the controller freed `packets` of its buffers that held the
    /// connection's data (sent, or flushed).
    public struct Completion: Hashable, Sendable {
        public var time: Timestamp
        public var packets: Int
    }
}
