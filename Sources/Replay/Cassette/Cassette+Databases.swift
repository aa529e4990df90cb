import Lifecycle
import Wire

extension Cassette {
    /// Gives each peer whose connections never discovered its GATT database one (the captured
    /// host relied on handles it had cached): the one `given` gives it (`--gatt`), else the one
    /// its traffic shows (`GATTDatabase.inferred(from:)`). A discovered database is kept; a
    /// peer whose traffic used no handle gets none. Formats/cassette.md, "Databases a capture did
    /// not discover".
    public mutating func completeDatabases(given: GivenGATT? = nil) {
        for address in peerOrder {
            guard var peer = peerTable[address], !peer.links.isEmpty else { continue }
            if peer.databaseSource == nil, peer.database?.services.isEmpty == false {
                peer.databaseSource = .discovered
            }
            guard peer.databaseSource != .discovered else {
                peerTable[address] = peer
                continue
            }
            // A remote central of this peripheral host is a server to the app only when this
            // host's client used it.
            let uses = handleUses(of: address)
            guard peer.hostRole != .peripheral || !uses.isEmpty else { continue }
            let before = peer.database
            if let given, let database = given.database(for: address) {
                peer.database = database
                peer.databaseSource = .given(given.name)
            } else if peer.databaseSource == nil {
                let inferred = GATTDatabase.inferred(from: uses)
                guard !inferred.services.isEmpty else { continue }
                peer.database = inferred
                peer.databaseSource = .inferred
            }
            for index in peer.links
            where links[index].database?.services.isEmpty != false || links[index].database == before {
                links[index].database = peer.database
            }
            peerTable[address] = peer
        }
    }

    /// What the captured host did with each handle of `address`'s server: reads, writes and
    /// write commands it sent, notifications and indications the peer sent.
    func handleUses(of address: BluetoothAddress) -> [UInt16: GATTDatabase.HandleUse] {
        var uses: [UInt16: GATTDatabase.HandleUse] = [:]
        for link in links(of: address) {
            for operation in link.operations where operation.sender != .peer {
                guard let handle = operation.handle else { continue }
                switch operation.kind {
                case .read:
                    uses[handle, default: .init()].properties.insert(.read)
                case .write, .longWrite:
                    uses[handle, default: .init()].properties.insert(.write)
                    uses[handle, default: .init()].writes.append(operation.value)
                    uses[handle, default: .init()].writtenWithResponse = true
                case .writeWithoutResponse, .signedWrite:
                    uses[handle, default: .init()].properties.insert(.writeWithoutResponse)
                    uses[handle, default: .init()].writes.append(operation.value)
                default:
                    break
                }
            }
            for event in link.notifications where event.sender != .host {
                uses[event.handle, default: .init()].properties.insert(event.isIndication ? .indicate : .notify)
            }
        }
        return uses
    }

    /// The flow's comment on where `address`'s database came from, when the capture did not
    /// discover it.
    public func databaseComment(_ address: BluetoothAddress) -> String? {
        guard let peer = peerTable[address], let source = peer.databaseSource, let database = peer.database else {
            return nil
        }
        let count = database.services.reduce(0) { $0 + $1.characteristics.count }
        switch source {
        case .discovered:
            return nil
        case .given(let name):
            return
                "\(address): the capture never discovered its GATT database; the replay answers discovery with the one --gatt \(name) gives (\(Wording.count(database.services.count, "service")), \(Wording.count(count, "characteristic")))"
        case .inferred:
            return
                "\(address): the capture never discovered its GATT database; the replay answers discovery with one inferred from the traffic: \(Wording.count(count, "characteristic")) in one service, each named B1E70000-0000-0000-0000-00000000HHHH after its value handle HHHH, its properties those its use shows (Formats/flow.md)"
        }
    }
}
