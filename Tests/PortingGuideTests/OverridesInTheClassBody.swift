// Formats/porting.md, "Overriding NSObject members in extensions": overrides in the class body.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
import Testing

final class Sensor: NSObject {
    let peripheralID: UUID
    let name: String

    init(peripheralID: UUID, name: String) {
        self.peripheralID = peripheralID
        self.name = name
    }

    // On iOS these may sit in an extension; without the Objective-C runtime they must be here.
    override var description: String { "Sensor(\(name))" }
    override var hash: Int { peripheralID.hashValue }
    override func isEqual(_ object: Any?) -> Bool { (object as? Sensor)?.peripheralID == peripheralID }
}

@Suite struct OverridesInTheClassBodyTests {
    @Test func theOverridesAreUsedByFoundationAndSwift() {
        let id = UUID()
        let a = Sensor(peripheralID: id, name: "Strap")
        let b = Sensor(peripheralID: id, name: "Strap (renamed)")
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect("\(a)" == "Sensor(Strap)")
        #expect(String(format: "%@", a.description) == "Sensor(Strap)")
    }
}
