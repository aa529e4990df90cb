import Testing

@testable import HCI

/// Every command and event of Core 6.0, Vol 4, Part E, §7 has its name, BR/EDR included.
@Suite struct HCINameTests {
    /// Commands real captures send that bletrace once printed unnamed, and a few of each group.
    @Test(arguments: [
        (0x0C1A, "Write Scan Enable"), (0x0405, "Create Connection"), (0x1005, "Read Buffer Size"),
        (0x0401, "Inquiry"), (0x0408, "Create Connection Cancel"), (0x0419, "Remote Name Request"),
        (0x080F, "Write Default Link Policy Settings"), (0x0C13, "Write Local Name"), (0x0C45, "Write Inquiry Mode"),
        (0x1401, "Read Failed Contact Counter"), (0x1802, "Write Loopback Mode"),
        (0x2086, "LE Set Periodic Advertising Parameters v2"), (0x2090, "LE CS Create Config"),
    ])
    func commandsAreNamed(_ opcode: Int, _ name: String) {
        #expect(HCIOpcode(rawValue: UInt16(opcode)).name == name)
    }

    @Test func everyLECommandUpToChannelSoundingIsNamed() {
        // LE commands run from OCF 0x0001 to 0x0096 (Channel Sounding) in Core 6.0, with the
        // gaps the specification leaves.
        let gaps: Set<UInt16> = [0x0004]
        for ocf in UInt16(1)...0x0096 where !gaps.contains(ocf) {
            #expect(HCIOpcode(ogf: 0x08, ocf: ocf).name?.hasPrefix("LE ") == true, "LE OCF 0x\(String(ocf, radix: 16))")
        }
    }

    @Test func vendorCommandsSayTheyAreTheVendorsAndUnknownOnesStayRaw() {
        #expect(HCIOpcode(rawValue: 0xFD57).name == nil)
        #expect(HCIOpcode(rawValue: 0xFD57).description == "Vendor Command 0xfd57")
        #expect(HCIOpcode(ogf: 0x01, ocf: 0x3FF).description == "HCIOpcode(0x7ff)")
    }

    @Test func everyEventAndLESubeventIsNamed() {
        // §7.7: events 0x01-0x3E (0x1F and 0x24-0x2B are not in use, nor 0x37, 0x3A), 0x48-0x53,
        // 0x59, 0xFF; LE subevents 0x01-0x35.
        let unused: Set<UInt8> = [0x1F, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x37, 0x3A]
        for code in UInt8(1)...0x3E where !unused.contains(code) {
            #expect(HCIEventCode(rawValue: code).name != nil, "event 0x\(String(code, radix: 16))")
        }
        for code in UInt8(0x48)...0x53 {
            #expect(HCIEventCode(rawValue: code).name != nil, "event 0x\(String(code, radix: 16))")
        }
        for code in UInt8(1)...0x35 {
            #expect(LESubeventCode(rawValue: code).name != nil, "subevent 0x\(String(code, radix: 16))")
        }
        #expect(HCIEventCode(rawValue: 0x04).name == "Connection Request")
        #expect(HCIEventCode(rawValue: 0x36).name == "Simple Pairing Complete")
        #expect(LESubeventCode(rawValue: 0x19).name == "LE CIS Established")
    }
}
