// Formats/porting.md, "Combine": OpenCombine where Combine is missing, the same code above it.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
#if canImport(Combine)
import Combine
#else
import OpenCombine
import OpenCombineDispatch
#endif
import Testing

final class HeartRatePublisher {
    let rate = CurrentValueSubject<Int?, Never>(nil)
    let connection = PassthroughSubject<CBPeripheralState, Never>()

    func didUpdate(_ value: Data) {
        guard value.count > 1 else { return }
        rate.send(Int(value[1]))
    }
}

@Suite struct CombineOnLinuxTests {
    @Test func subscribersGetTheValuesAsWithCombine() {
        let publisher = HeartRatePublisher()
        var seen: [Int] = []
        var states: [CBPeripheralState] = []
        var cancellables = Set<AnyCancellable>()
        publisher.rate.compactMap { $0 }.removeDuplicates().sink { seen.append($0) }.store(in: &cancellables)
        publisher.connection.sink { states.append($0) }.store(in: &cancellables)
        publisher.didUpdate(Data([0x00, 72]))
        publisher.didUpdate(Data([0x00, 72]))
        publisher.didUpdate(Data([0x00, 75]))
        publisher.connection.send(.connected)
        #expect(seen == [72, 75])
        #expect(states == [.connected])
    }
}
