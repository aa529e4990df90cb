import HCI
import TraceFiles
import Wire

/// Disconnection Complete events for handles with no link (``LifecycleReport/strayDisconnections``),
/// for the ``LifecycleAnalyzer``; and the last of them on each handle, until a link opens or ends
/// there: its repeats are folded into it.
struct StrayDisconnections {
    private(set) var all: [StrayDisconnection] = []
    private var lastOnHandle = HandleTable<Int>()

    /// A Disconnection Complete of `reason` for `handle`, on which no link is open: a repeat of the
    /// last stray one there, or another.
    mutating func add(on handle: UInt16, reason: HCIStatus, _ record: CaptureRecord) {
        if let last = lastOnHandle[handle], all[last].reason == reason {
            all[last].repeats += 1
        } else {
            lastOnHandle[handle] = all.count
            all.append(StrayDisconnection(time: record.timestamp, record: record.index, handle: handle, reason: reason))
        }
    }

    /// A link opened or ended on `handle`: a later disconnection there repeats no stray one
    /// before it.
    mutating func linkSeen(on handle: UInt16) {
        lastOnHandle[handle] = nil
    }
}
