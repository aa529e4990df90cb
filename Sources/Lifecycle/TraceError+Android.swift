import ATT
import AndroidCodes
import HCI

extension TraceError {
    /// Android's view of an ATT error, from the same facts as its CoreBluetooth one: nil for an
    /// expected error (Attribute Not Found ending a discovery reaches an Android app as success);
    /// no callback for an error this host's server sent.
    func androidView() -> AndroidStatus? {
        guard layer == .att, !expected else { return nil }
        let view = AndroidMapping.attError(ATTErrorCode(rawValue: code), operation: Self.androidOperation(of: self))
        if server == .local {
            return view.withoutCallback(
                "this host's server sent it to the peer's client (an Android app's BluetoothGattServer answers with sendResponse)"
            )
        }
        return view
    }

    /// The `BluetoothGatt` request an ATT error answered: discovery for a discovery procedure,
    /// none for a search by characteristic UUID, else by its request and attribute.
    static func androidOperation(of error: TraceError) -> AndroidMapping.Operation {
        switch error.procedure {
        case .valueSearch: return .none("BluetoothGatt offers apps no read by characteristic UUID")
        case .some: return .discovery
        case nil: break
        }
        guard let opcode = error.requestOpcode, opcode <= 0xFF else { return .none("no request of the app's is known") }
        return AndroidMapping.Operation(
            request: ATTOpcode(rawValue: UInt8(opcode)), descriptor: error.attribute?.role == .descriptor)
    }

    /// A connect the controller refused at once (LE Create Connection's Command Status with
    /// `status`): the stack ends the open as for a failed completion (hypothesis: that path is
    /// not read through the source).
    static func refusedConnect(_ status: HCIStatus) -> AndroidStatus? {
        guard var view = AndroidMapping.connectionFailure(status: status) else { return nil }
        view.grade = .hypothesis
        return view
    }
}
