// What a system sets on the objects of a peripheral manager's app (bletrace's: on iOS the
// Bluetooth daemon does this inside CoreBluetooth, out of the app's sight).

extension CBMutableService {
    /// The system published the service at `handles` (``CBService/handles``).
    public func assignHandles(_ handles: ClosedRange<UInt16>) {
        self.handles = handles
    }
}

extension CBMutableCharacteristic {
    /// The system published the characteristic's declaration and value at these handles
    /// (``CBCharacteristic/declarationHandle``, ``CBCharacteristic/valueHandle``).
    public func assignHandles(declaration: UInt16, value: UInt16) {
        declarationHandle = declaration
        valueHandle = value
    }
}

extension CBCentral {
    /// The central's link now has ATT MTU `mtu`: ``maximumUpdateValueLength`` becomes MTU − 3
    /// (at least 20, the default MTU's).
    public func linkMTUChanged(to mtu: Int) {
        maximumUpdateValueLength = max(20, mtu - 3)
    }
}
