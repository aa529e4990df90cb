import ATT
import Wire

/// What discovery found of each peer's server, and of this host's server as each peer's client
/// found it, kept for the peer's next connection; and the peer's server as the user gave it
/// (`--gatt`, ``GivenGATT``), for a connection whose peer the capture never discovered. The
/// ``LifecycleAnalyzer`` seeds each connection's ``ATTTracker`` from it, so that its
/// subscriptions are named.
struct AttributeCache {
    private var peerServers: [BluetoothAddress: [UInt16: AttributeInfo]] = [:]
    private var localServers: [BluetoothAddress: [UInt16: AttributeInfo]] = [:]
    var given: GivenGATT? {
        didSet { givenAttributes = [:] }
    }
    /// The attributes of ``given``'s database per peer (nil: a link the capture never names the
    /// peer of), read once each.
    private var givenAttributes: [BluetoothAddress?: [UInt16: AttributeInfo]] = [:]

    /// Seeds the tracker of a connection to `peer` that opened on `handle`: with what discovery
    /// found on the peer's earlier connections, else with what the user gave.
    mutating func seed(_ att: inout ATTTracker, connection handle: UInt16, peer: BluetoothAddress) {
        att.seed(
            connection: handle,
            with: peerServers[peer].flatMap { $0.isEmpty ? nil : $0 } ?? givenAttributes(of: peer))
        att.seed(connection: handle, with: localServers[peer] ?? [:], server: .local)
    }

    /// Seeds the tracker of a link that began before the capture (its peer unknown) with what the
    /// user gave.
    mutating func seedBeforeCapture(_ att: inout ATTTracker, connection handle: UInt16) {
        att.seed(connection: handle, with: givenAttributes(of: nil))
    }

    /// Keeps what discovery found on the link to `peer` on `handle`, which ends, for the peer's
    /// next connection.
    mutating func keep(_ att: ATTTracker, connection handle: UInt16, peer: BluetoothAddress) {
        peerServers[peer, default: [:]].merge(att.attributes(on: handle)) { _, new in new }
        localServers[peer, default: [:]].merge(att.attributes(on: handle, server: .local)) { _, new in new }
    }

    /// Forgets what is kept of `server` of `peer` in `range`, which a Service Changed indication
    /// declared changed (Core 6.0, Vol 3, Part G, §7.1), but the Service Changed characteristic.
    mutating func forget(_ range: ClosedRange<UInt16>, of peer: BluetoothAddress, server: GATTServer) {
        func kept(_ attributes: [UInt16: AttributeInfo]?) -> [UInt16: AttributeInfo]? {
            attributes?.filter { !range.contains($0.key) || ATTTracker.isServiceChanged($0.value) }
        }
        if server == .peer {
            peerServers[peer] = kept(peerServers[peer])
        } else {
            localServers[peer] = kept(localServers[peer])
        }
    }

    /// The attributes of the database ``given`` gives `peer` (nil: a link the capture never
    /// names the peer of).
    private mutating func givenAttributes(of peer: BluetoothAddress?) -> [UInt16: AttributeInfo] {
        guard let given else { return [:] }
        if let known = givenAttributes[peer] { return known }
        let attributes = given.database(for: peer).map(\.attributes) ?? [:]
        givenAttributes[peer] = attributes
        return attributes
    }
}
