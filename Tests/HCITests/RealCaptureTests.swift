import HCI
import TestSupport
import Testing
import Wire

/// Every record of every sample capture (ours and the public ones) through the full decoders.
@Suite struct RealCaptureTests {
    struct Failure: CustomStringConvertible {
        var file: String
        var record: Int
        var error: DecodeError
        var hex: String
        var description: String { "\(file) #\(record): \(error) [\(hex)]" }
    }

    static func decodeAll(_ path: String) throws -> (counts: [String: Int], failures: [Failure]) {
        var counts: [String: Int] = [:]
        var failures: [Failure] = []
        var reassembler = ACLReassembler()
        let name = String(path.split(separator: "/").last!)
        let (records, _) = try Fixtures.readAll(path)
        for record in records {
            record.withRecord { r in
                func fail(_ error: DecodeError) {
                    failures.append(
                        Failure(
                            file: name, record: r.index, error: error,
                            hex: Array(r.bytes).prefix(48).map { Wire.hex($0, digits: 2, prefixed: false) }.joined(
                                separator: " ")))
                }
                do throws(DecodeError) {
                    switch r.kind {
                    case .command:
                        let command = try HCICommandParameters.decode(r.bytes)
                        counts["command \(command.opcode)", default: 0] += 1
                    case .event:
                        let event = try HCIEventParameters.decode(r.bytes)
                        counts["event \(event.code)", default: 0] += 1
                        switch event {
                        case .le(.advertisingReport(let reports)):
                            for report in reports {
                                do throws(DecodeError) { _ = try report.data.structures() } catch {
                                    counts["bad AD", default: 0] += 1
                                }
                            }
                        case .le(.extendedAdvertisingReport(let reports)):
                            for report in reports where report.eventType.isComplete {
                                do throws(DecodeError) { _ = try report.data.structures() } catch {
                                    counts["bad AD", default: 0] += 1
                                }
                            }
                        case .le(let meta):
                            counts["subevent \(meta.subevent)", default: 0] += 1
                        case .disconnectionComplete(_, let handle, _):
                            reassembler.reset(handle: handle)
                        default: break
                        }
                    case .acl:
                        let acl = try ACLPacket.decode(r.bytes)
                        guard acl.handle != ACLPacket.androidDebugHandle, let direction = r.direction else { return }
                        guard let frame = reassembler.push(acl, direction: direction).frame else { return }
                        let l2cap = try L2CAPFrame.decode(frame)
                        if l2cap.channel == .leSignaling {
                            let pdu = try LESignalingPDU.decode(l2cap.payload)
                            counts["signaling \(pdu.code)", default: 0] += 1
                        } else if l2cap.channel == .smp {
                            let pdu = try SMPPDU.decode(l2cap.payload)
                            counts["smp \(pdu.code)", default: 0] += 1
                        }
                    default: break
                    }
                } catch {
                    fail(error)
                }
            }
        }
        return (counts, failures)
    }

    /// Commands, events (Command Complete return parameters included), LE signaling and SMP:
    /// every one in the sample captures decodes, field by field.
    @Test func everyHCIAndL2CAPRecordOfTheSampleCapturesDecodes() throws {
        Fixtures.noteSharedSkipped("RealCaptureTests.everyHCIAndL2CAPRecordOfTheSampleCapturesDecodes")
        var all: [String: Int] = [:]
        for path in try Fixtures.allReadableCaptures() {
            let (counts, failures) = try Self.decodeAll(path)
            all.merge(counts, uniquingKeysWith: +)
            #expect(failures.isEmpty, "\(failures.prefix(5))")
        }
        // The captures do exercise the decoders (not a vacuous pass). Ours alone have 700 Command
        // Completes and no LE Extended Create Connection (the shared Android logs have them).
        if Fixtures.shared != nil {
            #expect(all["event Command Complete", default: 0] > 1000)
            #expect(all["command LE Extended Create Connection", default: 0] > 0)
        } else {
            #expect(all["event Command Complete", default: 0] > 500)
        }
        #expect(all["signaling Connection Parameter Update Request", default: 0] > 0)
    }

    /// Advertising data is the advertiser's: one public capture's device sends payloads that are
    /// not AD structures at all. They fail only when parsed, and only there.
    @Test func malformedAdvertisingDataIsConfinedToTheDeviceThatSendsIt() throws {
        Fixtures.noteSharedSkipped("RealCaptureTests.malformedAdvertisingDataIsConfinedToTheDeviceThatSendsIt")
        for path in try Fixtures.allReadableCaptures() {
            let (counts, _) = try Self.decodeAll(path)
            let bad = counts["bad AD", default: 0]
            if path.hasSuffix("wangdalian-btsnooper.btsnoop") {
                #expect(bad > 0)
            } else {
                #expect(bad == 0, "\(path)")
            }
        }
    }
}
