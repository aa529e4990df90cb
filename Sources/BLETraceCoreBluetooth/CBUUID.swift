import ATT
import Foundation
import Wire

/// A Bluetooth UUID as CoreBluetooth gives it to apps (`CBUUID`).
///
/// 16-bit and 32-bit UUIDs are aliases into the Bluetooth Base UUID; a 128-bit UUID inside the
/// base is kept in its short form, so `CBUUID(string: "180D")` and
/// `CBUUID(string: "0000180D-0000-1000-8000-00805F9B34FB")` are equal and both print `180D`
/// (Formats/corebluetooth.md, "CBUUID"). A string or data CoreBluetooth would refuse (it raises an
/// exception, which ends the app) ends the program here too, with the reason.
open class CBUUID: NSObject, NSCopying, @unchecked Sendable {
    /// The UUID as bletrace's decoders hold it.
    public let bluetoothUUID: BluetoothUUID

    public init(bluetoothUUID: BluetoothUUID) {
        self.bluetoothUUID = bluetoothUUID
        super.init()
    }

    /// `CBUUID(string:)`: 4 hex digits (16-bit), 8 (32-bit), or the 36-character form (128-bit).
    public convenience init(string theString: String) {
        guard let uuid = CBUUID.parse(theString) else {
            fatalError(
                "CBUUID(string:): \"\(theString)\" is not a 16-bit, 32-bit or 128-bit UUID (CoreBluetooth raises NSInternalInconsistencyException here: \"String … does not represent a valid UUID\")"
            )
        }
        self.init(bluetoothUUID: uuid)
    }

    /// `CBUUID(data:)`: 2, 4 or 16 bytes, most significant byte first.
    public convenience init(data theData: Data) {
        let bytes = [UInt8](theData)
        guard [2, 4, 16].contains(bytes.count) else {
            fatalError(
                "CBUUID(data:): \(bytes.count) bytes; a UUID is 2, 4 or 16 (CoreBluetooth raises NSInvalidArgumentException here)"
            )
        }
        let reversed = Array(bytes.reversed())
        let uuid = reversed.withUnsafeBytes { BluetoothUUID(littleEndian: $0) }!
        self.init(bluetoothUUID: uuid)
    }

    /// `CBUUID(nsuuid:)`.
    public convenience init(nsuuid theUUID: UUID) {
        self.init(data: withUnsafeBytes(of: theUUID.uuid) { Data($0) })
    }

    /// `180D`, `1234ABCD`, or the full uppercase 128-bit form.
    open var uuidString: String { bluetoothUUID.description }

    /// 2, 4 or 16 bytes, most significant first, as CoreBluetooth gives them.
    open var data: Data {
        let count = bluetoothUUID.shortValue != nil ? 2 : uuidString.count == 8 ? 4 : 16
        var bytes: [UInt8] = []
        for index in (0..<16).reversed() {
            let word = index >= 8 ? bluetoothUUID.high : bluetoothUUID.low
            bytes.append(UInt8(truncatingIfNeeded: word >> (UInt64(index % 8) * 8)))
        }
        if count == 2 { return Data(bytes[2..<4]) }
        if count == 4 { return Data(bytes[0..<4]) }
        return Data(bytes)
    }

    /// As CoreBluetooth prints a UUID: the name of an assigned number it knows (`Heart Rate`),
    /// the UUID string otherwise.
    open override var description: String { GATTNames.name(for: bluetoothUUID) ?? uuidString }

    @discardableResult
    open override func isEqual(_ object: Any?) -> Bool {
        (object as? CBUUID)?.bluetoothUUID == bluetoothUUID
    }

    open override var hash: Int { bluetoothUUID.hashValue }

    @discardableResult
    open func copy(with zone: NSZone? = nil) -> Any { self }

    static func parse(_ text: String) -> BluetoothUUID? { BluetoothUUID(parsing: text) }
}

// The assigned-number strings CoreBluetooth defines for descriptors and advertising.
public let CBUUIDCharacteristicExtendedPropertiesString = "2900"
public let CBUUIDCharacteristicUserDescriptionString = "2901"
public let CBUUIDClientCharacteristicConfigurationString = "2902"
public let CBUUIDServerCharacteristicConfigurationString = "2903"
public let CBUUIDCharacteristicFormatString = "2904"
public let CBUUIDCharacteristicAggregateFormatString = "2905"
public let CBUUIDCharacteristicValidRangeString = "2906"
/// The Observation Schedule descriptor (the SIG's 0x2910).
public let CBUUIDCharacteristicObservationScheduleString = "2910"
public let CBUUIDL2CAPPSMCharacteristicString = "ABDD3056-28FA-441D-A470-55A75A52553A"
