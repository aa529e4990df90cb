import HCI
import Testing

@Suite struct HCIStatusTests {
    /// Core 6.0, Vol 1, Part F, §1.3.
    @Test(
        arguments: [
            (0x00, "Success"),
            (0x02, "Unknown Connection Identifier"),
            (0x08, "Connection Timeout"),
            (0x0C, "Command Disallowed"),
            (0x13, "Remote User Terminated Connection"),
            (0x16, "Connection Terminated By Local Host"),
            (0x22, "LMP Response Timeout / LL Response Timeout"),
            (0x2A, "Different Transaction Collision"),
            (0x2C, "QoS Unacceptable Parameter"),
            (0x3B, "Unacceptable Connection Parameters"),
            (0x3D, "Connection Terminated due to MIC Failure"),
            (0x3E, "Connection Failed to be Established / Synchronization Timeout"),
            (0x44, "Operation Cancelled by Host"),
            (0x45, "Packet Too Long"),
            (0x46, "Too Late"),
            (0x47, "Too Early"),
            (0x48, "Insufficient Channels"),
        ] as [(UInt8, String)])
    func namesFromTheSpecification(_ code: UInt8, _ name: String) {
        let status = HCIStatus(rawValue: code)
        #expect(status.name == name)
        #expect(status.description == name)
    }

    @Test(arguments: [0x2B, 0x31, 0x33] as [UInt8])
    func reservedCodesHaveNoName(_ code: UInt8) {
        let status = HCIStatus(rawValue: code)
        #expect(status.name == nil)
        #expect(status.description == "HCIStatus(0x\(String(code, radix: 16)))")
    }

    @Test func unassignedCodesPrintTheirValue() {
        #expect(HCIStatus(rawValue: 0x9C).name == nil)
        #expect(HCIStatus(rawValue: 0x9C).description == "HCIStatus(0x9c)")
        #expect(HCIStatus(rawValue: 0xFF).description == "HCIStatus(0xff)")
        #expect(HCIStatus(rawValue: 0x49).name == nil)
    }

    @Test(
        arguments: [
            (HCIStatus.success, 0x00), (.unknownHCICommand, 0x01), (.unknownConnectionIdentifier, 0x02),
            (.pageTimeout, 0x04), (.authenticationFailure, 0x05), (.pinOrKeyMissing, 0x06),
            (.connectionTimeout, 0x08), (.commandDisallowed, 0x0C), (.invalidHCICommandParameters, 0x12),
            (.remoteUserTerminatedConnection, 0x13), (.remoteDeviceTerminatedLowResources, 0x14),
            (.remoteDeviceTerminatedPowerOff, 0x15), (.connectionTerminatedByLocalHost, 0x16),
            (.llResponseTimeout, 0x22), (.connectionTerminatedMICFailure, 0x3D),
            (.connectionFailedToBeEstablished, 0x3E), (.operationCancelledByHost, 0x44),
        ] as [(HCIStatus, UInt8)])
    func namedConstantsHaveTheSpecificationsValues(_ status: HCIStatus, _ code: UInt8) {
        #expect(status.rawValue == code)
    }
}

@Suite struct HCIOpcodeTests {
    @Test(
        arguments: [
            (0x0406, 0x01, 0x006),  // Disconnect: link control
            (0x0C03, 0x03, 0x003),  // Reset: controller & baseband
            (0x1009, 0x04, 0x009),  // Read BD_ADDR: informational
            (0x200D, 0x08, 0x00D),  // LE Create Connection: LE controller
            (0x2043, 0x08, 0x043),  // LE Extended Create Connection
            (0xFD53, 0x3F, 0x153),  // vendor
            (0xFFFF, 0x3F, 0x3FF),
            (0x0000, 0x00, 0x000),  // no command
        ] as [(UInt16, UInt8, UInt16)])
    func splitsIntoOGFAndOCF(_ raw: UInt16, _ ogf: UInt8, _ ocf: UInt16) {
        let opcode = HCIOpcode(rawValue: raw)
        #expect(opcode.ogf == ogf)
        #expect(opcode.ocf == ocf)
        #expect(HCIOpcode(ogf: ogf, ocf: ocf) == opcode)
    }

    @Test func ocfIsLimitedToTenBits() {
        #expect(HCIOpcode(ogf: 0x08, ocf: 0x040D).rawValue == 0x200D)
    }

    @Test func namedConstants() {
        #expect(HCIOpcode.disconnect.rawValue == 0x0406)
        #expect(HCIOpcode.leCreateConnection.rawValue == 0x200D)
        #expect(HCIOpcode.leCreateConnectionCancel.rawValue == 0x200E)
        #expect(HCIOpcode.leExtendedCreateConnection.rawValue == 0x2043)
    }

    @Test func namesAndUnknownOpcodes() {
        #expect(HCIOpcode.disconnect.description == "Disconnect")
        #expect(HCIOpcode(rawValue: 0x0C03).description == "Reset")
        #expect(HCIOpcode.leExtendedCreateConnection.description == "LE Extended Create Connection")
        #expect(HCIOpcode(rawValue: 0xFD53).name == nil)
        #expect(HCIOpcode(rawValue: 0xFD53).description == "Vendor Command 0xfd53")
        #expect(HCIOpcode(rawValue: 0x0BFF).description == "HCIOpcode(0xbff)")
    }
}
