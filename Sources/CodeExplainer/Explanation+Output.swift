import AndroidCodes
import Wire

extension Explanation {
    /// The text `bletrace explain` prints, a line at a time (without line ends).
    package func write(_ emit: (String) -> Void) {
        emit("\(input): read as a \(understoodAs)")
        for (index, reading) in readings.enumerated() {
            emit("")
            // HCI and ATT codes in hexadecimal, as their specifications write them.
            let code =
                reading.kind == .hci || reading.kind == .att
                ? "\(hex(reading.code, digits: 2)) (\(reading.code))" : "\(reading.code)"
            emit(
                "\(index + 1). \(reading.kind.title): \(code)" + (reading.name.map { " \($0)" } ?? "")
                    + (reading.grade == "documented" ? "" : " [\(reading.grade)]"))
            emit("   \(reading.meaning)")
            if reading.causes.isEmpty {
                emit("   no cause on the wire: the phone's stack makes it itself")
            }
            for cause in reading.causes {
                emit("   - \(cause.summary)")
                emit("       trace:   \(cause.trace)")
                if let android = cause.android {
                    emit("       Android: \(android)")
                    if let note = android.note { emit("                \(note)") }
                    emit("                source: \(android.source)")
                } else {
                    emit("       Android: no GATT callback")
                }
                emit("       iOS:     \(cause.ios)")
            }
        }
        if !considered.isEmpty {
            emit("")
            emit("also considered:")
            for line in considered { emit("  \(line)") }
        }
        emit("")
        emit("to tell the causes apart, capture an HCI trace and run bletrace errors or diagnose on it:")
        for (platform, steps) in Self.capture { emit("  \(platform): \(steps)") }
    }

    /// The JSON document of `bletrace explain --format json` (Formats/android-mapping.md), with
    /// the JSON documents' `version`.
    package func json(version: Int) -> ExplanationJSON { ExplanationJSON(self, version: version) }
}

/// `bletrace explain --format json`: the input, each reading with its causes (each cause with
/// its trace and both platforms' views), the readings considered, the capture steps.
package struct ExplanationJSON: Encodable {
    struct ReadingJSON: Encodable {
        var kind: String
        var code: Int
        var hex: String
        var name: String?
        var meaning: String
        var grade: String
        var causes: [CauseJSON]
    }
    struct CauseJSON: Encodable {
        var summary: String
        var trace: String
        var android: AndroidStatus?
        var ios: IOSView
    }
    struct CaptureJSON: Encodable {
        var platform: String
        var steps: String
    }
    var version: Int
    var input: String
    var understood_as: String
    var readings: [ReadingJSON]
    var considered: [String]
    var capture: [CaptureJSON]

    init(_ explanation: Explanation, version: Int) {
        self.version = version
        input = explanation.input
        understood_as = explanation.understoodAs
        readings = explanation.readings.map { reading in
            ReadingJSON(
                kind: reading.kind.rawValue, code: reading.code, hex: hex(reading.code, digits: 2), name: reading.name,
                meaning: reading.meaning, grade: reading.grade,
                causes: reading.causes.map {
                    CauseJSON(summary: $0.summary, trace: $0.trace, android: $0.android, ios: $0.ios)
                })
        }
        considered = explanation.considered
        capture = Explanation.capture.map { CaptureJSON(platform: $0.platform, steps: $0.steps) }
    }
}
