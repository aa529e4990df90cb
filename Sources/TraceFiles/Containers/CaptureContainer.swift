import Foundation
import SystemPackage
import Wire
import ZIPFoundation

/// A file that holds captures rather than being one: an Android bug report (zip), an Apple
/// sysdiagnose (.tar.gz), a gzip-compressed capture, a tar, or a bug report's text with its
/// btsnooz summary. Formats/containers.md describes each layout and its sources.
///
/// Opening one unpacks its capture members, each to a temporary file of its own, in chunks and
/// under ``ContainerLimits`` (memory stays flat; a bomb is refused by name). Every reader then
/// reads a member as it reads a plain file, memory-mapped, the fast path unchanged. The
/// temporary files are removed when the container is released.
///
/// Which entries are capture members: in a zip or tar, the regular files whose name says so
/// (`btsnoop`, `.pklg`, `.pcap`, `.pcapng`, `.cfa`, `.cap`) or that lie in a Bluetooth log folder
/// (Android's `data/misc/bluetooth/logs/`, Apple's `logs/Bluetooth/`), kept when their first
/// bytes are a capture's. A bug report zip with no such file is searched for its btsnooz summary
/// in its main text (`bugreport-*.txt`). ``defaultMember`` is the current log (Android's
/// `btsnoop_hci.log`, Apple's `bluetoothd-hci-latest.pklg`), else the first member by path.
public final class CaptureContainer {
    /// The kind of container, as `bletrace info` names it.
    public enum Kind: String, Sendable, CustomStringConvertible {
        case gzip
        case zip
        case tar
        case tarGzip = "tar.gz"
        case bugReportText = "bug report text"

        public var description: String { rawValue }
    }

    /// A capture found in the container, unpacked to a file of its own.
    public struct Member: Sendable, Hashable {
        /// The member's path inside the container; for a btsnooz summary, the text's path and
        /// `#BTSNOOP_LOG_SUMMARY`; for a gzip, the container's name less `.gz`.
        public let path: String
        /// Where it was unpacked (a temporary file, a btsnoop for a btsnooz summary).
        public let extractedPath: String
        /// Its size once unpacked.
        public let size: Int64
        /// True for a btsnooz summary decoded from a bug report's text.
        public let isSummary: Bool
    }

    public let path: String
    public let kind: Kind
    /// The capture members, by path.
    public let members: [Member]
    private let directory: String

    /// The member a command reads when none is named: see the type's description.
    public var defaultMember: Member? {
        for preferred in ["btsnoop_hci.log", "bluetoothd-hci-latest.pklg"] {
            if let found = members.first(where: { Self.baseName($0.path) == preferred }) { return found }
        }
        return members.first
    }

    /// The member at `memberPath` (its path inside the container, or only its file name when that
    /// names one member).
    public func member(named memberPath: String) throws -> Member {
        if let found = members.first(where: { $0.path == memberPath }) { return found }
        let byName = members.filter { Self.baseName($0.path) == memberPath }
        if byName.count == 1 { return byName[0] }
        let list = members.map(\.path).joined(separator: ", ")
        throw ContainerError(
            container: path,
            expected:
                "a member named \(memberPath)\(byName.count > 1 ? " (the name is not unique: give its whole path)" : ""); the captures in it are: \(list.isEmpty ? "none" : list)"
        )
    }

    deinit { close() }

    /// Removes the unpacked members (also done when the container is released; a program that
    /// ends by `exit` calls this from an `atexit` handler). The members cannot be read after it.
    public func close() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            unlink(directory + "/" + name)
        }
        rmdir(directory)
        ContainerNames.forget(members.map(\.extractedPath))
    }

    /// What `path` is: a container of one of the kinds above, or nil for anything else (a plain
    /// capture, a FIFO or device, a file too short to tell), which is read as it always was.
    public static func kind(of path: String) throws -> Kind? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let head = try prefix(of: path, count: 512)
        if head.count >= 2, head[0] == 0x1F, head[1] == 0x8B {
            let stream = try ByteStream(path: path, gzip: true)
            let have = try stream.fill(263)
            let inner = stream.take(have) { Array($0) }
            return isTar(inner) ? .tarGzip : .gzip
        }
        if head.count >= 4, head[0] == 0x50, head[1] == 0x4B,
            (head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6)
        {
            return .zip
        }
        if isTar(head) { return .tar }
        if head.count >= 16,
            head.prefix(64).allSatisfy({ $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20...0x7E).contains($0) })
        {
            return .bugReportText
        }
        return nil
    }

    /// Opens `path` when it is a container (nil otherwise), unpacking its capture members.
    public static func open(path: String, limits: ContainerLimits = .standard) throws -> CaptureContainer? {
        guard let kind = try kind(of: path) else { return nil }
        var template = Array((NSTemporaryDirectory() + "bletrace-container-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ContainerError(
                container: path, expected: "a temporary directory to unpack into (\(String(cString: strerror(errno))))")
        }
        let directory = String(cString: made)
        var unpacker = Unpacker(container: path, directory: directory, limits: limits)
        do {
            switch kind {
            case .gzip:
                var name = baseName(path)
                for suffix in [".gz", ".gzip"] where name.lowercased().hasSuffix(suffix) {
                    name.removeLast(suffix.count)
                }
                let stream = try ByteStream(path: path, gzip: true)
                try unpacker.unpack(name: name, from: stream, size: nil, sniff: false)
            case .tar, .tarGzip:
                let stream = try ByteStream(path: path, gzip: kind == .tarGzip)
                try TarWalker(stream: stream).walk { entry in
                    guard isCandidate(entry.path) else { return false }
                    try unpacker.unpack(name: entry.path, from: stream, size: entry.size, sniff: true)
                    return true
                }
            case .zip:
                try unpacker.unpackZip()
            case .bugReportText:
                let stream = try ByteStream(path: path, gzip: false)
                try unpacker.summary(named: baseName(path), from: stream)
            }
        } catch {
            unpacker.removeAll()
            rmdir(directory)
            throw error
        }
        let members = unpacker.members.sorted { $0.path < $1.path }
        ContainerNames.remember(members.map { ($0.extractedPath, "\(path): \($0.path)") })
        return CaptureContainer(path: path, kind: kind, members: members, directory: directory)
    }

    private init(path: String, kind: Kind, members: [Member], directory: String) {
        self.path = path
        self.kind = kind
        self.members = members
        self.directory = directory
    }

    static func baseName(_ path: String) -> String {
        String(path.split(separator: "/", omittingEmptySubsequences: true).last ?? Substring(path))
    }

    /// Whether an entry's path makes it worth unpacking to look at.
    static func isCandidate(_ path: String) -> Bool {
        let lower = path.lowercased()
        let name = baseName(lower)
        if name.contains("btsnoop") || name.contains("btsnooz") { return true }
        if [".pklg", ".pcap", ".pcapng", ".cfa", ".cap", ".btsnoop"].contains(where: { name.hasSuffix($0) }) {
            return true
        }
        return lower.contains("data/misc/bluetooth/logs/") || path.contains("logs/Bluetooth/")
    }

    static func isTar(_ head: [UInt8]) -> Bool {
        head.count >= 262 && Array(head[257..<262]) == Array("ustar".utf8)
    }

    static func prefix(of path: String, count: Int) throws -> [UInt8] {
        do {
            let file = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
            defer { try? file.close() }
            var bytes = [UInt8](repeating: 0, count: count)
            let have = try bytes.withUnsafeMutableBytes { try file.read(into: $0) }
            return Array(bytes.prefix(have))
        } catch {
            throw ContainerError(container: path, expected: "a readable file (\(error))")
        }
    }

    /// True when `bytes` (a file's first bytes) begin a capture bletrace reads.
    static func looksLikeCapture(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            CaptureFormat.signature(of: raw) != .unknown || PacketLoggerReader.detectByteOrder(raw) != nil
        }
    }
}

/// The names errors give unpacked members: "CONTAINER: MEMBER" for a temporary file's path.
enum ContainerNames {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var names: [String: String] = [:]

    static func remember(_ pairs: [(String, String)]) {
        lock.withLock { for (path, name) in pairs { names[path] = name } }
    }

    static func forget(_ paths: [String]) {
        lock.withLock { for path in paths { names[path] = nil } }
    }

    static func name(for path: String) -> String? {
        lock.withLock { names[path] }
    }
}
