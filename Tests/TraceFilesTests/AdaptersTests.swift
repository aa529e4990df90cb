#if os(Linux)  // Live capture needs Linux (AF_BLUETOOTH, libbluetooth): README, "Where it builds".
import Foundation
import Testing

@testable import TraceFiles

@Suite struct AdaptersTests {
    /// Where the kernel has Bluetooth, the list comes back; where it has none (this project's CI),
    /// the error carries the system's own reason and says what failed.
    @Test func listsControllersOrSaysWhyBluetoothIsMissing() throws {
        let hasBluetooth = FileManager.default.fileExists(atPath: "/sys/class/bluetooth")
        do {
            let adapters = try Adapters.list()
            #expect(adapters.allSatisfy { $0.address.count == 17 })
        } catch let error as CaptureError {
            #expect(!hasBluetooth)
            #expect("\(error)".contains("AF_BLUETOOTH socket failed: Address family not supported by protocol"))
        }
    }
}
#endif
