#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import ArgumentParser
import BLETrace

/// `bletrace adapters`: the host's Bluetooth controllers, through BlueZ.
struct Adapters: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adapters",
        abstract: "List this host's Bluetooth controllers (Linux, BlueZ).")

    func run() throws {
        let adapters: [Adapter]
        do {
            adapters = try BLETrace.Adapters.list()
        } catch {
            Output.error("\(error)")
            throw Exit.finding
        }
        if adapters.isEmpty { Output.line("no Bluetooth controllers") }
        for adapter in adapters {
            Output.line("hci\(adapter.index)  \(adapter.address)  \(adapter.name)  \(adapter.isUp ? "up" : "down")")
        }
        Output.flush()
    }
}
#endif
