import Lifecycle
import Wire

/// What `info` and `diagnose` say first when a capture cannot tell the whole story
/// (``CaptureFitness``): each problem with its evidence and how to record a capture that can.
package struct FitnessList {
    package var problems: [FitnessProblem]

    package init(_ problems: [FitnessProblem]) { self.problems = problems }

    /// The text, a line at a time (without line ends); nothing when the capture can answer.
    package func write(_ emit: (String) -> Void) {
        guard !problems.isEmpty else { return }
        emit("This capture cannot tell the whole story:")
        for problem in problems {
            let words = problem.words
            emit("  \(problem.kind.rawValue): \(words.problem)")
            if !problem.evidence.isEmpty {
                emit(
                    "    evidence: " + Wording.noun("frame", count: problem.evidence.count) + " "
                        + problem.evidence.map { "\($0 + 1)" }.joined(separator: ", "))
            }
            emit("    to record one that can: \(words.remedy)")
        }
        emit("")
    }

    /// The `fitness` list of `info` and `diagnose`'s JSON: empty when the capture can answer.
    package var json: [JSONFitnessProblem] { problems.map(JSONFitnessProblem.init) }
}

/// One member of the `fitness` list (Formats/json.md).
package struct JSONFitnessProblem: Encodable {
    var kind: String
    var problem: String
    /// Frame numbers (1-based).
    var evidence: [Int]
    var remedy: String

    init(_ problem: FitnessProblem) {
        kind = problem.kind.rawValue
        (self.problem, remedy) = problem.words
        evidence = problem.evidence.map { $0 + 1 }
    }
}
