import Foundation
import TestSupport
import Testing

/// `bletrace diff` with expected flows written by people, its JSON and JUnit reports, --update,
/// and the vocabulary check, run as CI runs it.
@Suite struct DiffPatternTests {
    let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")
    static let disconnectThenConnect = """
        central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBError.connectionTimeout
        app connect peripheral=F0:F1:F2:F3:F4:05

        """

    func replay() throws -> String {
        let replay = try bletrace("replay", capture, "--app", "reconnecting")
        try #require(replay.status == 0)
        return replay.stdout
    }

    func file(_ text: String, _ name: String = "expected.flow") throws -> String {
        try Fixtures.temporaryFile(Array(text.utf8), name: name)
    }

    @Test func theIssuesTwoLineExpectationPassesInOrderAndFailsExactly() throws {
        let actual = try replay()
        let exact = try bletrace("diff", file(Self.disconnectThenConnect), "-", stdin: actual)
        #expect(exact.status == 1)
        #expect(exact.stdout.contains("0 missing, 5 unexpected"))
        #expect(exact.stdout.contains("every expected event is in the actual flow, in order"))
        let inOrder = try bletrace(
            "diff", file("# bletrace flow 2\n# match: in-order\n" + Self.disconnectThenConnect), "-", stdin: actual)
        #expect(inOrder.status == 0, "\(inOrder.stdout)")
        #expect(inOrder.stdout == "flows match (2 events expected, 7 actual, as a pattern)\n")
        let gaps = try bletrace("diff", file("...\n" + Self.disconnectThenConnect + "...\n"), "-", stdin: actual)
        #expect(gaps.status == 0, "\(gaps.stdout)")
    }

    @Test func aTimingAssertionThatFailsExitsOneNamingTheLine() throws {
        let expected = try file(
            "...\napp connect peripheral=F0:F1:F2:F3:F4:05\ncentral didConnect peripheral=* @<=0.5\n")
        let result = try bletrace("diff", expected, "-", stdin: try replay())
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "timing: \(expected):3: central didConnect peripheral=* @<=0.5: came 0.914278 s after"))
    }

    @Test func aWordOutsideTheVocabularyIsBadInputWithFileLineAndSuggestion() throws {
        let expected = try file("system launch app=reconnecting\ncentral didConect peripheral=F0:F1:F2:F3:F4:05\n")
        let result = try bletrace("diff", expected, "-", stdin: try replay())
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "bletrace: \(expected):2:9: expected an event of `central`, not `didConect`; did you mean `didConnect`?\n"
        )
        let garbage = try bletrace("diff", file("garbage line\n"), file("system launch app=x\n", "actual.flow"))
        #expect(garbage.status == 2)
        #expect(garbage.stderr.contains(":1:1: expected an actor"))
    }

    @Test func jsonPutsTheFirstDivergenceFirst() throws {
        let expected = try file("...\ncentral didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=nil\n...\n")
        let result = try bletrace("diff", expected, "-", "--format", "json", stdin: try replay())
        #expect(result.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document["version"] as? Int == 3)
        #expect(document["equal"] as? Bool == false)
        #expect(document["pattern"] as? Bool == true)
        let first = try #require(document["first_divergence"] as? [String: Any])
        #expect(first["expected_event"] as? Int == 1)
        let missing = try #require(first["missing"] as? [String: Any])
        #expect(missing["event"] as? String == "central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=nil")
        #expect(missing["line"] as? Int == 2)
    }

    @Test(arguments: [true, false])
    func junitValidatesAgainstTheJenkinsSchema(differs: Bool) throws {
        let expected = try file(
            differs
                ? "...\napp cancelPeripheralConnection peripheral=F0:F1:F2:F3:F4:05\n...\n"
                : "# match: in-order\n" + Self.disconnectThenConnect)
        let result = try bletrace("diff", expected, "-", "--format", "junit", stdin: try replay())
        #expect(result.status == (differs ? 1 : 0))
        let report = try Fixtures.temporaryFile(Array(result.stdout.utf8), name: "report.xml")
        let schema = Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/junit/junit-10.xsd").path
        let xmllint = try #require(
            ["/usr/bin/xmllint", "/usr/local/bin/xmllint", "/opt/homebrew/bin/xmllint"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            },
            "xmllint not found: `make deps` installs it (Debian package libxml2-utils)")
        let validation = try run(xmllint, ["--noout", "--schema", schema, report])
        #expect(validation.status == 0, "\(validation.stderr)")
        #expect(validation.stderr.contains("validates"))
        #expect(result.stdout.contains("<failure ") == differs)
        if differs {
            #expect(
                result.stdout.contains(
                    "message=\"first difference at expected event 1: missing `app cancelPeripheralConnection peripheral=F0:F1:F2:F3:F4:05`"
                ))
        }
    }

    @Test func updateRewritesTheExpectedFileWithTheActualFlow() throws {
        let actual = try replay()
        let expected = try file(Self.disconnectThenConnect)
        let result = try bletrace("diff", expected, "-", "--update", stdin: actual)
        #expect(result.status == 0)
        #expect(try String(contentsOfFile: expected, encoding: .utf8) == actual)
        #expect(try bletrace("diff", expected, "-", stdin: actual).status == 0)
        #expect(try bletrace("diff", "-", expected, "--update", stdin: actual).status == 2)
    }

    @Test func peripheralsInterleaveByDefaultOnlyWhenSeveralAreExpected() throws {
        let actual = try file(
            """
            system launch app=x
            app connect peripheral=AA:00:00:00:00:01
            app connect peripheral=BB:00:00:00:00:02
            central didConnect peripheral=BB:00:00:00:00:02
            central didConnect peripheral=AA:00:00:00:00:01

            """, "actual.flow")
        let expected = try file(
            """
            system launch app=x
            app connect peripheral=AA:00:00:00:00:01
            central didConnect peripheral=AA:00:00:00:00:01
            app connect peripheral=BB:00:00:00:00:02
            central didConnect peripheral=BB:00:00:00:00:02

            """)
        #expect(try bletrace("diff", expected, actual).status == 0)
        #expect(try bletrace("diff", expected, actual, "--interleave", "none").status == 1)
    }
}
