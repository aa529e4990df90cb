import BLETraceCoreBluetooth
import Foundation
import Testing

/// The one pairing of a GATT request with its answer: each request's failure pairs with it, and
/// an answer of another kind pairs with nothing.
@Suite struct GATTCallbackTests {
    let service = CBMutableService(type: CBUUID(string: "180D"), primary: true)
    let characteristic = CBMutableCharacteristic(
        type: CBUUID(string: "2A37"), properties: [.notify], value: nil, permissions: [])
    let descriptor = CBMutableDescriptor(type: CBUUID(string: "2901"), value: "rate")

    var requests: [GATTRequest] {
        [
            .discoverServices(nil), .discoverIncludedServices(nil, for: service),
            .discoverCharacteristics(nil, for: service),
            .discoverDescriptors(for: characteristic), .readCharacteristic(characteristic), .readDescriptor(descriptor),
            .writeCharacteristic(Data([1]), characteristic), .writeDescriptor(Data([1]), descriptor),
            .setNotifyValue(true, characteristic),
        ]
    }

    /// The callback's name, as the delegate method and its first argument's type say it.
    static func name(_ callback: GATTCallback) -> String {
        switch callback {
        case .didDiscoverServices: "didDiscoverServices"
        case .didDiscoverIncludedServices: "didDiscoverIncludedServicesFor service"
        case .didDiscoverCharacteristics: "didDiscoverCharacteristicsFor service"
        case .didDiscoverDescriptors: "didDiscoverDescriptorsFor characteristic"
        case .didUpdateCharacteristicValue: "didUpdateValueFor characteristic"
        case .didUpdateDescriptorValue: "didUpdateValueFor descriptor"
        case .didWriteCharacteristic: "didWriteValueFor characteristic"
        case .didWriteDescriptor: "didWriteValueFor descriptor"
        case .didUpdateNotificationState: "didUpdateNotificationStateFor characteristic"
        }
    }

    @Test func eachRequestsFailureIsItsOwnCallback() {
        let error = CBATTError(.insufficientAuthentication)
        let names = requests.map { request in
            GATTCallback(request, GATTResponse(failing: request, with: error)).map(Self.name)
        }
        #expect(
            names == [
                "didDiscoverServices", "didDiscoverIncludedServicesFor service",
                "didDiscoverCharacteristicsFor service",
                "didDiscoverDescriptorsFor characteristic", "didUpdateValueFor characteristic",
                "didUpdateValueFor descriptor",
                "didWriteValueFor characteristic", "didWriteValueFor descriptor",
                "didUpdateNotificationStateFor characteristic",
            ])
        for request in requests {
            #expect(GATTResponse(failing: request, with: error).error is CBATTError)
        }
    }

    @Test func anAnswerOfAnotherKindPairsWithNothing() {
        let answers: [GATTResponse] = [
            .services([], error: nil), .characteristics([], error: nil), .descriptors([], error: nil),
            .value(nil, error: nil),
            .written(error: nil), .notificationState(isNotifying: true, error: nil),
        ]
        // Each request takes exactly one kind of answer.
        for request in requests {
            #expect(answers.filter { GATTCallback(request, $0) != nil }.count == 1, "\(request.methodName)")
        }
        #expect(GATTCallback(.readCharacteristic(characteristic), .written(error: nil)) == nil)
    }

    @Test func aFailedNotificationChangeReportsTheStateBefore() {
        let failed = GATTResponse(failing: .setNotifyValue(true, characteristic), with: CBATTError(.writeNotPermitted))
        guard case .notificationState(let isNotifying, _) = failed else {
            Issue.record("\(failed)")
            return
        }
        #expect(isNotifying == characteristic.isNotifying)
    }
}
