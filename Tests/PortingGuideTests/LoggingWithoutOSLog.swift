// Formats/porting.md, "os.log and Logger": swift-log's Logger where `os` is missing; the call
// sites stay the same.
#if canImport(CoreBluetooth) && !BLETRACE
import CoreBluetooth
#else
import BLETraceCoreBluetooth
#endif
#if canImport(os)
import os
#else
import Logging
#endif
import Testing

#if canImport(os)
let bluetoothLog = Logger(subsystem: "com.example.sensor", category: "bluetooth")
#else
let bluetoothLog = Logger(label: "com.example.sensor.bluetooth")
#endif

func logDisconnection(of peripheral: CBPeripheral, error: Error?) {
    bluetoothLog.info("disconnected \(peripheral.identifier.uuidString): \(error?.localizedDescription ?? "asked for")")
    if let error = error as? CBError, error.code == .connectionTimeout {
        bluetoothLog.warning("supervision timeout, reconnecting")
    }
}

@Suite struct LoggingWithoutOSLogTests {
    @Test func theLoggerTakesTheSameInterpolatedMessages() {
        #if !canImport(os)
        var logger = bluetoothLog
        logger.logLevel = .debug
        #expect(logger.label == "com.example.sensor.bluetooth")
        logger.debug("RSSI \(-60) dBm")
        #endif
    }
}
