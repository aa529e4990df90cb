import ATT
import Testing

/// Core 6.0, Vol 3, Part F, §3.3.1: method in bits 0-5, command flag bit 6, signature flag bit 7.
@Suite struct ATTOpcodeTests {
    @Test(
        arguments: [
            (0x01, "Error Response", false, false),
            (0x02, "Exchange MTU Request", false, false),
            (0x03, "Exchange MTU Response", false, false),
            (0x04, "Find Information Request", false, false),
            (0x05, "Find Information Response", false, false),
            (0x06, "Find By Type Value Request", false, false),
            (0x07, "Find By Type Value Response", false, false),
            (0x08, "Read By Type Request", false, false),
            (0x09, "Read By Type Response", false, false),
            (0x0A, "Read Request", false, false),
            (0x0B, "Read Response", false, false),
            (0x0C, "Read Blob Request", false, false),
            (0x0D, "Read Blob Response", false, false),
            (0x0E, "Read Multiple Request", false, false),
            (0x0F, "Read Multiple Response", false, false),
            (0x10, "Read By Group Type Request", false, false),
            (0x11, "Read By Group Type Response", false, false),
            (0x12, "Write Request", false, false),
            (0x13, "Write Response", false, false),
            (0x16, "Prepare Write Request", false, false),
            (0x17, "Prepare Write Response", false, false),
            (0x18, "Execute Write Request", false, false),
            (0x19, "Execute Write Response", false, false),
            (0x1B, "Handle Value Notification", false, false),
            (0x1D, "Handle Value Indication", false, false),
            (0x1E, "Handle Value Confirmation", false, false),
            (0x20, "Read Multiple Variable Request", false, false),
            (0x21, "Read Multiple Variable Response", false, false),
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
        #expect(ATTOpcode(rawValue: 0x22).description == "ATTOpcode(0x22)")
        #expect(ATTOpcode(rawValue: 0x1F).description == "ATTOpcode(0x1f)")
        #expect(ATTOpcode(rawValue: 0x7F).description == "ATTOpcode(0x7f)")
    }

    @Test func namedConstantsHaveTheSpecificationsValues() {
        #expect(ATTOpcode.errorResponse.rawValue == 0x01)
        #expect(ATTOpcode.exchangeMTURequest.rawValue == 0x02)
        #expect(ATTOpcode.exchangeMTUResponse.rawValue == 0x03)
        #expect(ATTOpcode.findInformationRequest.rawValue == 0x04)
        #expect(ATTOpcode.findInformationResponse.rawValue == 0x05)
        #expect(ATTOpcode.findByTypeValueRequest.rawValue == 0x06)
        #expect(ATTOpcode.findByTypeValueResponse.rawValue == 0x07)
        #expect(ATTOpcode.readByTypeRequest.rawValue == 0x08)
        #expect(ATTOpcode.readByTypeResponse.rawValue == 0x09)
        #expect(ATTOpcode.readRequest.rawValue == 0x0A)
        #expect(ATTOpcode.readResponse.rawValue == 0x0B)
        #expect(ATTOpcode.readBlobRequest.rawValue == 0x0C)
        #expect(ATTOpcode.readBlobResponse.rawValue == 0x0D)
        #expect(ATTOpcode.readMultipleRequest.rawValue == 0x0E)
        #expect(ATTOpcode.readMultipleResponse.rawValue == 0x0F)
        #expect(ATTOpcode.readByGroupTypeRequest.rawValue == 0x10)
        #expect(ATTOpcode.readByGroupTypeResponse.rawValue == 0x11)
        #expect(ATTOpcode.writeRequest.rawValue == 0x12)
        #expect(ATTOpcode.writeResponse.rawValue == 0x13)
        #expect(ATTOpcode.prepareWriteRequest.rawValue == 0x16)
        #expect(ATTOpcode.prepareWriteResponse.rawValue == 0x17)
        #expect(ATTOpcode.executeWriteRequest.rawValue == 0x18)
        #expect(ATTOpcode.executeWriteResponse.rawValue == 0x19)
        #expect(ATTOpcode.readMultipleVariableRequest.rawValue == 0x20)
        #expect(ATTOpcode.handleValueNotification.rawValue == 0x1B)
        #expect(ATTOpcode.handleValueIndication.rawValue == 0x1D)
        #expect(ATTOpcode.handleValueConfirmation.rawValue == 0x1E)
        #expect(ATTOpcode.readMultipleVariableResponse.rawValue == 0x21)
        #expect(ATTOpcode.multipleHandleValueNotification.rawValue == 0x23)
        #expect(ATTOpcode.writeCommand.rawValue == 0x52)
        #expect(ATTOpcode.signedWriteCommand.rawValue == 0xD2)
    }
}

/// §3.3 and §3.4.8 (Table 3.43): what each PDU is in the protocol's exchanges.
@Suite struct ATTOpcodeMethodTests {
    /// Every assigned opcode of Core 6.0, with its method.
    static let assigned: [(UInt8, ATTOpcode.Method)] = [
        (0x01, .response),  // Error Response
        (0x02, .request),  // Exchange MTU Request
        (0x03, .response),  // Exchange MTU Response
        (0x04, .request),  // Find Information Request
        (0x05, .response),  // Find Information Response
        (0x06, .request),  // Find By Type Value Request
        (0x07, .response),  // Find By Type Value Response
        (0x08, .request),  // Read By Type Request
        (0x09, .response),  // Read By Type Response
        (0x0A, .request),  // Read Request
        (0x0B, .response),  // Read Response
        (0x0C, .request),  // Read Blob Request
        (0x0D, .response),  // Read Blob Response
        (0x0E, .request),  // Read Multiple Request
        (0x0F, .response),  // Read Multiple Response
        (0x10, .request),  // Read By Group Type Request
        (0x11, .response),  // Read By Group Type Response
        (0x12, .request),  // Write Request
        (0x13, .response),  // Write Response
        (0x16, .request),  // Prepare Write Request
        (0x17, .response),  // Prepare Write Response
        (0x18, .request),  // Execute Write Request
        (0x19, .response),  // Execute Write Response
        (0x1B, .notification),  // Handle Value Notification
        (0x1D, .indication),  // Handle Value Indication
        (0x1E, .confirmation),  // Handle Value Confirmation
        (0x20, .request),  // Read Multiple Variable Request
        (0x21, .response),  // Read Multiple Variable Response
        (0x23, .notification),  // Multiple Handle Value Notification
        (0x52, .command),  // Write Command
        (0xD2, .command),  // Signed Write Command
    ]

    @Test(arguments: assigned)
    func methodOfEveryAssignedOpcode(_ raw: UInt8, _ method: ATTOpcode.Method) {
        let opcode = ATTOpcode(rawValue: raw)
        #expect(opcode.method == method)
        #expect(opcode.name != nil)
        // Among assigned opcodes, the command flag marks exactly the commands.
        #expect(opcode.isCommand == (method == .command))
    }

    @Test func everyOtherOpcodeHasNoMethod() {
        let assigned = Set(Self.assigned.map(\.0))
        for raw in UInt8.min...UInt8.max where !assigned.contains(raw) {
            let opcode = ATTOpcode(rawValue: raw)
            #expect(opcode.method == .unknown, "\(opcode)")
            #expect(opcode.name == nil, "\(opcode)")
            #expect(opcode.responseOpcode == nil, "\(opcode)")
        }
    }

    @Test(
        arguments: [
            (0x02, 0x03),  // Exchange MTU
            (0x04, 0x05),  // Find Information
            (0x06, 0x07),  // Find By Type Value
            (0x08, 0x09),  // Read By Type
            (0x0A, 0x0B),  // Read
            (0x0C, 0x0D),  // Read Blob
            (0x0E, 0x0F),  // Read Multiple
            (0x10, 0x11),  // Read By Group Type
            (0x12, 0x13),  // Write
            (0x16, 0x17),  // Prepare Write
            (0x18, 0x19),  // Execute Write
            (0x20, 0x21),  // Read Multiple Variable
        ] as [(UInt8, UInt8)])
    func responseOpcodeOfEveryRequest(_ request: UInt8, _ response: UInt8) throws {
        let opcode = ATTOpcode(rawValue: request)
        #expect(opcode.method == .request)
        let answer = try #require(opcode.responseOpcode)
        #expect(answer.rawValue == response)
        #expect(answer.method == .response)
        // "X Request" is answered by "X Response".
        let name = try #require(opcode.name)
        #expect(answer.name == String(name.dropLast("Request".count)) + "Response")
    }

    @Test func everyRequestIsInTheResponseTable() {
        let requests = Self.assigned.filter { $0.1 == .request }.map(\.0)
        #expect(requests == [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20])
    }

    @Test(
        arguments: [
            0x01,  // Error Response: a response
            0x03, 0x11, 0x21,  // responses
            0x1B, 0x23,  // notifications
            0x1D,  // Handle Value Indication: answered by a confirmation, not a response
            0x1E,  // confirmation
            0x52,  // Write Command: no response
            0xD2,  // Signed Write Command: no response
            0x22, 0x14, 0x1F, 0x9C, 0x7F, 0x00, 0xFF,  // unassigned
        ] as [UInt8])
    func noResponseOpcodeForAnythingButARequest(_ raw: UInt8) {
        #expect(ATTOpcode(rawValue: raw).responseOpcode == nil)
    }
}
