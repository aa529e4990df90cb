#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import CBlueZ
import Glibc

/// A local Bluetooth controller, as the Linux kernel lists it.
package struct Adapter: Hashable, Sendable {
    package var index: Int
    package var name: String
    package var address: String
    package var isUp: Bool
}

/// The host's Bluetooth controllers, listed through BlueZ's libbluetooth.
package enum Adapters {
    /// Every controller the kernel knows. Throws ``CaptureError/live(_:)`` with the system's own
    /// words where the host has no Bluetooth support at all (no `AF_BLUETOOTH` sockets).
    package static func list() throws -> [Adapter] {
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI)
        guard probe >= 0 else {
            let reason = String(cString: strerror(errno))
            throw CaptureError.live(
                "this host has no Bluetooth support: opening an AF_BLUETOOTH socket failed: \(reason)")
        }
        close(probe)
        var adapters: [Adapter] = []
        for index in 0..<Int32(HCI_MAX_DEV) {
            var info = hci_dev_info()
            guard hci_devinfo(index, &info) == 0 else { continue }
            var address = [CChar](repeating: 0, count: 18)
            _ = withUnsafePointer(to: info.bdaddr) { ba2str($0, &address) }
            let name = withUnsafeBytes(of: info.name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            adapters.append(
                Adapter(
                    index: Int(index), name: name,
                    address: address.withUnsafeBufferPointer { String(cString: $0.baseAddress!) },
                    isUp: info.flags & (1 << UInt32(HCI_UP)) != 0))
        }
        return adapters
    }
}
#endif
