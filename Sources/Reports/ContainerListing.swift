import TraceFiles
import Wire

/// What a container holds (`bletrace info` on a bug report zip, a sysdiagnose, a gzip): each
/// capture member with its format and record count, which one is the default, which one was
/// read. Encoded, it is the `"container"` object of `bletrace info --format json`.
public struct ContainerListing: Encodable {
    /// One member of the container, as the JSON lists it.
    public struct Member: Encodable {
        var path: String
        var format: String?
        var description: String?
        var records: Int?
        var bytes: Int64
        var summary: Bool
        /// The member a command reads without --member.
        var `default`: Bool
        /// The member this run read.
        var read: Bool
        var error: String?
    }

    var kind: String
    var members: [Member]

    /// Lists `container`'s members, reading each to count its records; `reading` is the
    /// unpacked path of the member the command reads.
    public init(_ container: CaptureContainer, reading: String) {
        kind = container.kind.rawValue
        let chosen = container.defaultMember?.extractedPath
        members = container.members.map { member in
            var entry = Member(
                path: member.path, bytes: member.size, summary: member.isSummary,
                default: member.extractedPath == chosen, read: member.extractedPath == reading)
            do {
                let reader = try CaptureReader(path: member.extractedPath)
                entry.format = reader.format.name
                entry.description = reader.format.description
                var count = 0
                do {
                    while try reader.next() != nil { count += 1 }
                } catch { entry.error = "\(error)" }
                entry.records = count
            } catch {
                entry.error = "\(error)"
            }
            return entry
        }
    }

    /// The text form: a line for the container, a line a member (`*` the one read).
    public func write(_ emit: (String) -> Void) {
        emit(
            "container: \(kind), \(Wording.count(members.count, "capture")) (--member PATH reads another)"
        )
        let width = members.map(\.path.count).max() ?? 0
        for member in members {
            var line = (member.read ? "  * " : "    ") + member.path.padding(to: width)
            line += "  " + (member.format.map { "\($0)" } ?? "?")
            if let records = member.records { line += "  \(Wording.count(records, "record"))" }
            if member.default { line += "  (default)" }
            if member.summary { line += "  (btsnooz summary)" }
            if let error = member.error { line += "  error: \(error)" }
            emit(line)
        }
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
