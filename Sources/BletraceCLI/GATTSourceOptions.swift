import ArgumentParser
import BLETrace

/// `--gatt FILE`: the GATT database of peers whose connections never discovered it (the phone
/// used handles it had cached), for `gatt`, `lifecycle` and `replay`.
struct GATTSourceOptions: ParsableArguments {
    @Option(
        name: .customLong("gatt"),
        help: ArgumentHelp(
            "The GATT database of peers the capture never discovered: a capture that discovered it, or the JSON of bletrace gatt --format json.",
            discussion:
                "A database applies to the peer of its address; a file of one database also to every peer the capture never discovered (a phone's cached handles; a peer whose address changed). A database the capture discovered wins; without --gatt, a replay infers one from the traffic (Formats/flow.md).",
            valueName: "file"),
        completion: .file())
    var gatt: String?

    /// The databases of `--gatt`, read; nil without it. A file that cannot be read, or holds no
    /// database, is bad input (exit 2).
    func load(air: AirCaptureOptions) throws -> GivenGATT? {
        guard let gatt else { return nil }
        do {
            return try GivenGATT.load(path: gatt, air: air.options)
        } catch let error as GivenGATTError {
            Output.error("\(error)")
            throw Exit.badInput
        } catch {
            Output.error("--gatt \(gatt): \(error)")
            throw Exit.badInput
        }
    }
}
