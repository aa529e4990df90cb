// An L2CAP client as Apple's L2CAPChannel sample app writes it: it reads the PSM the peer
// publishes in its characteristic, opens the channel, and exchanges bytes over the channel's
// streams. Only the import lines differ from iOS.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif

final class L2CAPClient: NSObject, CBPeripheralDelegate, StreamDelegate {
    static let psmCharacteristic = CBUUID(string: CBUUIDL2CAPPSMCharacteristicString)

    private(set) var channel: CBL2CAPChannel?
    private(set) var received = Data()
    private(set) var log: [String] = []

    /// Reads the PSM the peer publishes (two bytes, little-endian, in the L2CAP PSM characteristic).
    func start(on peripheral: CBPeripheral, psmCharacteristic: CBCharacteristic) {
        peripheral.delegate = self
        peripheral.readValue(for: psmCharacteristic)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        guard characteristic.uuid == Self.psmCharacteristic, let value = characteristic.value, value.count >= 2 else {
            return
        }
        let psm = CBL2CAPPSM(value[value.startIndex]) | CBL2CAPPSM(value[value.startIndex + 1]) << 8
        log.append(String(format: "opening PSM 0x%04X", psm))
        peripheral.openL2CAPChannel(psm)
    }

    func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: Error?) {
        if let error {
            log.append("open failed: \(error.localizedDescription)")
            return
        }
        guard let channel else { return }
        self.channel = channel
        log.append("open on PSM \(channel.psm) with \(channel.peer.identifier.uuidString)")
        channel.inputStream.delegate = self
        channel.outputStream.delegate = self
        channel.inputStream.open()
        channel.outputStream.open()
        readAvailable(channel.inputStream)
    }

    func send(_ data: Data) -> Int {
        guard let output = channel?.outputStream else { return 0 }
        return data.withUnsafeBytes { output.write($0.bindMemory(to: UInt8.self).baseAddress!, maxLength: data.count) }
    }

    func stream(_ aStream: Stream, handle eventCode: Stream.Event) {
        if eventCode.contains(.hasBytesAvailable), let input = aStream as? InputStream { readAvailable(input) }
        if eventCode.contains(.endEncountered) { log.append("closed") }
    }

    private func readAvailable(_ input: InputStream) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while input.hasBytesAvailable {
            let count = input.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { break }
            received.append(contentsOf: buffer[0..<count])
        }
    }
}
