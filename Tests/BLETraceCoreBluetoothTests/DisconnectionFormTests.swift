import BLETraceCoreBluetooth
import Foundation
import Testing
import Wire

/// Which disconnection method iOS calls (review C-9), and auto-reconnect's demands on the delegate
/// (C-7, Q-3): the decompiled `handlePeripheralDisconnectionCompleted:` and
/// `connectPeripheral:options:` of iOS 18.2 and 26.1.
@Suite struct DisconnectionFormTests {
    @Test func aDelegateWithBothFormsGetsTheOlderOneOnly() {
        let system = ScriptedSystem()
        let delegate = BothDisconnectionsDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let peripheral = connectedPeripheral(system, central, delegate: nil)
        system.send(
            .disconnected(peripheral, error: CBError(.connectionTimeout), timestamp: 3, isReconnecting: true),
            to: central)
        system.flush()
        #expect(delegate.log == ["old form state=connecting"])
    }

    @Test func aDelegateWithTheOlderFormOnlyGetsIt() {
        let system = ScriptedSystem()
        let delegate = EveryCallbackDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let peripheral = connectedPeripheral(system, central, delegate: nil)
        system.send(.disconnected(peripheral, error: CBError(.connectionTimeout)), to: central)
        system.flush()
        #expect(
            delegate.log.filter { $0.contains("didDisconnect") } == ["centralManager(_:didDisconnectPeripheral:error:)"]
        )
    }

    @Test func aReconnectingPeripheralIsConnectingDuringTheCallback() {
        let system = ScriptedSystem()
        let delegate = NewDisconnectionDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        var seen: CBPeripheralState?
        delegate.onDisconnect = { seen = $0.state }
        let peripheral = connectedPeripheral(system, central, delegate: nil)
        system.send(.disconnected(peripheral, error: CBError(.connectionTimeout), isReconnecting: true), to: central)
        system.flush()
        #expect(seen == .connecting)
        #expect(peripheral.services == nil, "its services are invalid all the same")
    }

    @Test func autoReconnectWithoutTheIOS17MethodFailsInsideConnect() {
        let system = ScriptedSystem()
        let delegate = EveryCallbackDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let peripheral = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        central.connect(peripheral, options: [CBConnectPeripheralOptionEnableAutoReconnect: true])
        // Synchronously: before any answer of the system runs.
        #expect(delegate.errors == ["centralManager(_:didFailToConnect:error:) CBError.invalidParameters"])
        #expect(peripheral.state == .disconnected)
        #expect(!system.calls.contains { $0.hasPrefix("connect ") }, "nothing is asked of the system")
        #expect(system.calls.last == "connectRefused F0:F1:F2:F3:F4:05")
        // The key alone is enough, whatever its value; without it the connection goes ahead.
        central.connect(peripheral, options: [CBConnectPeripheralOptionEnableAutoReconnect: false])
        #expect(delegate.errors.count == 2)
        central.connect(peripheral)
        #expect(peripheral.state == .connecting)
        #expect(system.calls.last == "connect F0:F1:F2:F3:F4:05")
    }

    @Test(arguments: [false, true])
    func autoReconnectWithTheIOS17MethodConnects(implementsBoth: Bool) {
        let system = ScriptedSystem()
        let delegate: any CBCentralManagerDelegate =
            implementsBoth ? BothDisconnectionsDelegate() : NewDisconnectionDelegate()
        let central = poweredOnCentral(system, delegate: delegate)
        let peripheral = central.peripheral(identifier: CBPeer.identifier(for: .peerA), address: .peerA)
        central.connect(peripheral, options: [CBConnectPeripheralOptionEnableAutoReconnect: true])
        #expect(peripheral.state == .connecting)
        #expect(system.calls.last == "connect F0:F1:F2:F3:F4:05")
        #expect((delegate as? BothDisconnectionsDelegate)?.log.isEmpty ?? true)
        #expect((delegate as? NewDisconnectionDelegate)?.log.isEmpty ?? true, "the probe's call stays out of the app")
    }

    @Test func theOptionKeyIsIOSsOwnString() {
        #expect(CBConnectPeripheralOptionEnableAutoReconnect == "kCBConnectOptionAutoReconnect")
    }
}

/// A delegate whose class inherits its conformance from a superclass (Formats/porting.md, "A
/// delegate subclass"): the managers say so, since a method the subclass adds is never called.
@Suite struct InheritedConformanceTests {
    class BaseDelegate: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
        func centralManagerDidUpdateState(_ central: CBCentralManager) {}
    }
    final class SubclassDelegate: BaseDelegate {}

    @Test func aSubclassDelegateIsNamedWithTheClassThatConforms() {
        let system = ScriptedSystem()
        let centralDelegate = SubclassDelegate()
        let central = poweredOnCentral(system, delegate: centralDelegate)
        #expect(system.warnings.count == 1)
        #expect(
            system.warnings.first?.contains(
                "SubclassDelegate, inherits its conformance to CBCentralManagerDelegate from BaseDelegate") == true)
        let delegate = SubclassDelegate()
        _ = connectedPeripheral(system, central, delegate: delegate)
        #expect(system.warnings.last?.contains("conformance to CBPeripheralDelegate") == true)
    }

    @Test func aClassThatConformsItselfIsNot() {
        let system = ScriptedSystem()
        let centralDelegate = BaseDelegate()
        let central = poweredOnCentral(system, delegate: centralDelegate)
        let peripheralDelegate = EveryCallbackDelegate()
        _ = connectedPeripheral(system, central, delegate: peripheralDelegate)
        #expect(system.warnings.isEmpty)
    }
}
