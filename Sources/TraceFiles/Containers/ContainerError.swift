/// A container (zip, gzip, tar, bug report text) that cannot be read, or a member of one that
/// cannot be taken out: the container's path, the member (when the fault is inside one), the
/// byte offset in the container's own bytes (for a gzip or a .tar.gz: in its compressed bytes
/// where `compressed` says so, else in the decompressed stream), and what was expected there.
public struct ContainerError: Error, CustomStringConvertible, Sendable {
    public var container: String
    public var member: String?
    public var offset: Int64?
    public var expected: String

    public init(container: String, member: String? = nil, offset: Int64? = nil, expected: String) {
        self.container = container
        self.member = member
        self.offset = offset
        self.expected = expected
    }

    public var description: String {
        var text = container
        if let member { text += ", member \(member)" }
        if let offset { text += ", byte \(offset)" }
        return text + ": " + expected
    }
}

/// How much a container may unpack: a member larger than ``memberBytes`` once decompressed, or
/// a container whose capture members add up to more than ``totalBytes``, is refused with a
/// ``ContainerError`` instead of filling the disk (a zip bomb, a gzip whose size field lies).
/// Members are unpacked to temporary files in fixed-size chunks: memory stays flat whatever the
/// sizes.
public struct ContainerLimits: Sendable {
    public var memberBytes: Int64
    public var totalBytes: Int64
    /// The base64 text of a bug report's btsnooz section (Android keeps 256 KiB of packets
    /// before compression, so a real one is far smaller).
    public var summaryTextBytes: Int

    public init(memberBytes: Int64 = 4 << 30, totalBytes: Int64 = 8 << 30, summaryTextBytes: Int = 64 << 20) {
        self.memberBytes = memberBytes
        self.totalBytes = totalBytes
        self.summaryTextBytes = summaryTextBytes
    }

    /// The defaults, or `BLETRACE_MAX_MEMBER_BYTES` from the environment (a number of bytes) for
    /// the member limit.
    public static var standard: ContainerLimits {
        var limits = ContainerLimits()
        if let text = getenv("BLETRACE_MAX_MEMBER_BYTES"), let value = Int64(String(cString: text)), value > 0 {
            limits.memberBytes = value
            limits.totalBytes = max(limits.totalBytes, value)
        }
        return limits
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
