import ATT
import Testing

/// Core 6.0, Vol 3, Part F, §3.4.1.1, Table 3.4; 0xE0-0xFF: Core Specification Supplement, Part B.
@Suite struct ATTErrorCodeTests {
    @Test(
        arguments: [
            (0x01, "Invalid Handle"),
            (0x02, "Read Not Permitted"),
            (0x03, "Write Not Permitted"),
            (0x04, "Invalid PDU"),
            (0x05, "Insufficient Authentication"),
            (0x06, "Request Not Supported"),
            (0x07, "Invalid Offset"),
            (0x08, "Insufficient Authorization"),
            (0x09, "Prepare Queue Full"),
            (0x0A, "Attribute Not Found"),
            (0x0B, "Attribute Not Long"),
            (0x0C, "Encryption Key Size Too Short"),
            (0x0D, "Invalid Attribute Value Length"),
            (0x0E, "Unlikely Error"),
            (0x0F, "Insufficient Encryption"),
            (0x10, "Unsupported Group Type"),
            (0x11, "Insufficient Resources"),
            (0x12, "Database Out Of Sync"),
            (0x13, "Value Not Allowed"),
        ] as [(UInt8, String)])
    func namesFromTheSpecification(_ raw: UInt8, _ name: String) {
        let code = ATTErrorCode(rawValue: raw)
        #expect(code.name == name)
        #expect(code.description == name)
        #expect(!code.isApplicationError)
        #expect(!code.isCommonProfileError)
    }

    @Test(
        arguments: [
            (0xFC, "Write Request Rejected"),
            (0xFD, "Client Characteristic Configuration Descriptor Improperly Configured"),
            (0xFE, "Procedure Already in Progress"),
            (0xFF, "Out of Range"),
        ] as [(UInt8, String)])
    func commonProfileErrorNames(_ raw: UInt8, _ name: String) {
        let code = ATTErrorCode(rawValue: raw)
        #expect(code.name == name)
        #expect(code.isCommonProfileError)
        #expect(!code.isApplicationError)
    }

    @Test func applicationErrorsAre0x80Through0x9F() {
        for raw in UInt8(0x80)...0x9F {
            let code = ATTErrorCode(rawValue: raw)
            #expect(code.isApplicationError, "\(raw)")
            #expect(code.name == "Application Error")
            #expect(!code.isCommonProfileError)
        }
        #expect(!ATTErrorCode(rawValue: 0x7F).isApplicationError)
        #expect(!ATTErrorCode(rawValue: 0xA0).isApplicationError)
    }

    @Test func commonProfileErrorsAre0xE0Through0xFF() {
        #expect(!ATTErrorCode(rawValue: 0xDF).isCommonProfileError)
        for raw in UInt8(0xE0)...0xFF {
            #expect(ATTErrorCode(rawValue: raw).isCommonProfileError, "\(raw)")
            #expect(ATTErrorCode(rawValue: raw).name != nil)
        }
    }

    @Test(arguments: [0x00, 0x14, 0x7F, 0xA0, 0xDF] as [UInt8])
    func reservedCodesPrintTheirValue(_ raw: UInt8) {
        let code = ATTErrorCode(rawValue: raw)
        #expect(code.name == nil)
        #expect(code.description == "ATTErrorCode(0x\(String(raw, radix: 16)))")
    }

    @Test func namedConstantsHaveTheSpecificationsValues() {
        #expect(ATTErrorCode.invalidHandle.rawValue == 0x01)
        #expect(ATTErrorCode.insufficientAuthentication.rawValue == 0x05)
        #expect(ATTErrorCode.attributeNotFound.rawValue == 0x0A)
        #expect(ATTErrorCode.encryptionKeySizeTooShort.rawValue == 0x0C)
        #expect(ATTErrorCode.insufficientEncryption.rawValue == 0x0F)
        #expect(ATTErrorCode.insufficientResources.rawValue == 0x11)
        #expect(ATTErrorCode.databaseOutOfSync.rawValue == 0x12)
        #expect(ATTErrorCode.valueNotAllowed.rawValue == 0x13)
    }
}
