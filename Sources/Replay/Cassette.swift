import Lifecycle
import TraceFiles
import Wire

/// What a capture says the peers did, arranged for playback: for each peer the central
/// connected to, its connection episodes in time order.
public struct Cassette: Sendable {
    public var start: Timestamp
    public var end: Timestamp
    /// Peers in order of first appearance.
    public var peers: [BluetoothAddress]
    public var episodes: [BluetoothAddress: [Connection]]

    public init(report: LifecycleReport) {
        start = report.firstTime ?? Timestamp(microseconds: 0)
        end = report.lastTime ?? start
        peers = []
        episodes = [:]
        for connection in report.connections
        where connection.transport == .le && connection.role != .peripheral {
            guard let peer = connection.peer else { continue }
            if episodes[peer] == nil { peers.append(peer) }
            episodes[peer, default: []].append(connection)
        }
    }

    /// Reads a capture into a cassette; a damaged file gives the cassette of its good records
    /// and the fault.
    public static func load(path: String) throws -> (Cassette, fault: (any Error)?) {
        let (report, fault) = try LifecycleAnalyzer.analyze(path: path)
        return (Cassette(report: report), fault)
    }
}
