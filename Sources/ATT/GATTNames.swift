import Wire

/// Names of standard GATT services, characteristics, descriptors and declarations, from the
/// Bluetooth SIG's Assigned Numbers (section 3.4 to 3.8 of the 2024 edition and later).
/// CoreBluetooth: `CBUUID.description` prints the same names for the ones it knows.
public enum GATTNames {
    public static func name(for uuid: BluetoothUUID) -> String? {
        guard let short = uuid.shortValue else { return nil }
        return names[short]
    }

    static let names: [UInt16: String] = [
        // Declarations and descriptors
        0x2800: "Primary Service", 0x2801: "Secondary Service", 0x2802: "Include",
        0x2803: "Characteristic",
        0x2900: "Characteristic Extended Properties", 0x2901: "Characteristic User Description",
        0x2902: "Client Characteristic Configuration", 0x2903: "Server Characteristic Configuration",
        0x2904: "Characteristic Presentation Format", 0x2905: "Characteristic Aggregate Format",
        0x2906: "Valid Range", 0x2907: "External Report Reference", 0x2908: "Report Reference",
        0x290B: "Environmental Sensing Configuration", 0x290C: "Environmental Sensing Measurement",
        // Services
        0x1800: "Generic Access", 0x1801: "Generic Attribute", 0x1802: "Immediate Alert",
        0x1803: "Link Loss", 0x1804: "Tx Power", 0x1805: "Current Time", 0x1808: "Glucose",
        0x1809: "Health Thermometer", 0x180A: "Device Information", 0x180D: "Heart Rate",
        0x180F: "Battery", 0x1810: "Blood Pressure", 0x1812: "Human Interface Device",
        0x1814: "Running Speed and Cadence", 0x1816: "Cycling Speed and Cadence",
        0x1818: "Cycling Power", 0x1819: "Location and Navigation", 0x181A: "Environmental Sensing",
        0x181C: "User Data", 0x181D: "Weight Scale", 0x1822: "Pulse Oximeter",
        0x1826: "Fitness Machine", 0x1827: "Mesh Provisioning", 0x1828: "Mesh Proxy",
        0x183B: "Binary Sensor", 0x1843: "Audio Input Control", 0x1844: "Volume Control",
        0x184E: "Audio Stream Control", 0x184F: "Broadcast Audio Scan",
        0x1850: "Published Audio Capabilities", 0x1853: "Common Audio",
        0xFE59: "Nordic DFU",
        // Characteristics
        0x2A00: "Device Name", 0x2A01: "Appearance", 0x2A02: "Peripheral Privacy Flag",
        0x2A03: "Reconnection Address", 0x2A04: "Peripheral Preferred Connection Parameters",
        0x2A05: "Service Changed", 0x2A06: "Alert Level", 0x2A07: "Tx Power Level",
        0x2A08: "Date Time", 0x2A19: "Battery Level", 0x2A1C: "Temperature Measurement",
        0x2A23: "System ID", 0x2A24: "Model Number String", 0x2A25: "Serial Number String",
        0x2A26: "Firmware Revision String", 0x2A27: "Hardware Revision String",
        0x2A28: "Software Revision String", 0x2A29: "Manufacturer Name String",
        0x2A2A: "IEEE 11073-20601 Regulatory Certification Data List", 0x2A2B: "Current Time",
        0x2A35: "Blood Pressure Measurement", 0x2A37: "Heart Rate Measurement",
        0x2A38: "Body Sensor Location", 0x2A39: "Heart Rate Control Point",
        0x2A4A: "HID Information", 0x2A4B: "Report Map", 0x2A4C: "HID Control Point",
        0x2A4D: "Report", 0x2A4E: "Protocol Mode", 0x2A50: "PnP ID",
        0x2A53: "RSC Measurement", 0x2A5B: "CSC Measurement", 0x2A63: "Cycling Power Measurement",
        0x2A6E: "Temperature", 0x2A6F: "Humidity", 0x2A9D: "Weight Measurement",
        0x2AA6: "Central Address Resolution", 0x2AC9: "Resolvable Private Address Only",
        0x2ACC: "Fitness Machine Feature", 0x2ACD: "Treadmill Data", 0x2AD2: "Indoor Bike Data",
        0x2AD9: "Fitness Machine Control Point", 0x2ADA: "Fitness Machine Status",
        0x2B29: "Client Supported Features", 0x2B2A: "Database Hash",
        0x2B3A: "Server Supported Features",
    ]
}
