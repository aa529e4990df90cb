import ATT
import Testing

/// Core 6.0, Vol 3, Part F, §3.3.1: method in bits 0-5, command flag bit 6, signature flag bit 7.
@Suite struct ATTOpcodeTests {
    @Test(arguments: [
        (0x01, "Error Response", false, false),
        (0x02, "Exchange MTU Request", false, false),
        (0x03, "Exchange MTU Response", false, false),
        (0x0A, "Read Request", false, false),
        (0x0B, "Read Response", false, false),
        (0x12, "Write Request", false, false),
        (0x13, "Write Response", false, false),
        (0x16, "Prepare Write Request", false, false),
        (0x1B, "Handle Value Notification", false, false),
        (0x1D, "Handle Value Indication", false, false),
        (0x1E, "Handle Value Confirmation", false, false),
        (0x20, "Read Multiple Variable Request", false, false),
        (0x23, "Multiple Handle Value Notification", false, false),
        (0x52, "Write Command", true, false),
        (0xD2, "Signed Write Command", true, true),
    ] as [(UInt8, String, Bool, Bool)])
    func namesAndFlags(_ raw: UInt8, _ name: String, _ isCommand: Bool, _ signed: Bool) {
        let opcode = ATTOpcode(rawValue: raw)
        #expect(opcode.name == name)
        #expect(opcode.description == name)
        #expect(opcode.isCommand == isCommand)
        #expect(opcode.hasAuthenticationSignature == signed)
    }

    @Test func flagsAreBitsSixAndSeven() {
        #expect(ATTOpcode(rawValue: 0x40).isCommand)
        #expect(!ATTOpcode(rawValue: 0x40).hasAuthenticationSignature)
        #expect(ATTOpcode(rawValue: 0x80).hasAuthenticationSignature)
        #expect(!ATTOpcode(rawValue: 0x80).isCommand)
        #expect(!ATTOpcode(rawValue: 0x3F).isCommand)
        #expect(!ATTOpcode(rawValue: 0x3F).hasAuthenticationSignature)
    }

    @Test func unassignedOpcodesPrintTheirValue() {
        #expect(ATTOpcode(rawValue: 0x9C).name == nil)
        #expect(ATTOpcode(rawValue: 0x9C).description == "ATTOpcode(0x9c)")
        #expect(ATTOpcode(rawValue: 0x14).description == "ATTOpcode(0x14)")
    }

    @Test func namedConstantsHaveTheSpecificationsValues() {
        #expect(ATTOpcode.errorResponse.rawValue == 0x01)
        #expect(ATTOpcode.exchangeMTURequest.rawValue == 0x02)
        #expect(ATTOpcode.readByGroupTypeRequest.rawValue == 0x10)
        #expect(ATTOpcode.prepareWriteRequest.rawValue == 0x16)
        #expect(ATTOpcode.executeWriteResponse.rawValue == 0x19)
        #expect(ATTOpcode.handleValueNotification.rawValue == 0x1B)
        #expect(ATTOpcode.handleValueIndication.rawValue == 0x1D)
        #expect(ATTOpcode.handleValueConfirmation.rawValue == 0x1E)
        #expect(ATTOpcode.readMultipleVariableResponse.rawValue == 0x21)
        #expect(ATTOpcode.multipleHandleValueNotification.rawValue == 0x23)
        #expect(ATTOpcode.writeCommand.rawValue == 0x52)
        #expect(ATTOpcode.signedWriteCommand.rawValue == 0xD2)
    }
}
