import ArgumentParser
import BLETrace
import Wire

/// How the analysis commands read an over-the-air capture (Formats/link-layer.md, "Lifecycles"):
/// which side is this host, and the keys that decrypt its encrypted links.
struct AirCaptureOptions: ParsableArguments {
    @Option(
        name: .customLong("this-host"),
        help: ArgumentHelp(
            "Over-the-air captures: which side of each connection is this host (the phone): central or peripheral.",
            discussion:
                "The analyses read a sniffer capture as this host's HCI would have shown the same session. Default: the central, as a phone usually is.",
            valueName: "side"))
    var thisHost: AirHost = .central

    @Option(
        name: .customLong("ltk"),
        help: ArgumentHelp(
            "Over-the-air captures: a long-term key to decrypt encrypted links with (repeat for several).",
            discussion:
                "32 hex digits: the key's 16 bytes least significant first, as SMP's Encryption Information, HCI's LE Enable Encryption and Bumble's key store carry them; with a 0x prefix, the key as a number, most significant first, as the specification writes keys. The first key whose MIC checks out on a link's first encrypted packet decrypts that link.",
            valueName: "hex"))
    var ltk: [String] = []

    func validate() throws {
        for key in ltk { _ = try Self.key(key) }
    }

    var options: AirOptions {
        AirOptions(host: thisHost, keys: ltk.compactMap { try? Self.key($0) })
    }

    /// The 16 bytes of `text`, least significant first.
    static func key(_ text: String) throws -> [UInt8] {
        let number = text.hasPrefix("0x") || text.hasPrefix("0X")
        let digits = String((number ? text.dropFirst(2) : Substring(text)).filter { $0 != ":" && $0 != " " })
        guard digits.count == 32 else {
            throw ValidationError("--ltk \(text): a long-term key is 32 hex digits (16 bytes), not \(digits.count)")
        }
        // Wire's parser, the one that refuses a sign ("+f") where a digit should be.
        guard let key = Wire.bytes(hex: digits) else {
            let bad = digits.first { !$0.isHexDigit || !$0.isASCII }.map { "'\($0)'" } ?? "a character"
            throw ValidationError("--ltk \(text): \(bad) is not a hex digit")
        }
        return number ? key.reversed() : key
    }
}

extension AirHost: ExpressibleByArgument {}

/// Opens a capture for an analysis (HCI as it is, over-the-air as `air` says), turning "cannot
/// open" into exit code 2 with the reason.
func openAnalysis(_ path: String, _ air: AirCaptureOptions? = nil, linkLayer: Bool = true) throws -> AnalysisReader {
    do {
        return try AnalysisReader(path: path, air: air?.options ?? AirOptions(), linkLayer: linkLayer)
    } catch {
        Output.error("\(error)")
        throw Exit.badInput
    }
}
