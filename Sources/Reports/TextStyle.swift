/// How the text reports mark what matters: ANSI colour and weight for a terminal, or plain text.
///
/// A report takes a style and applies it to whole lines: failures red, disconnections by the
/// peer yellow, headings bold, what is expected dim.
public struct TextStyle: Sendable, Hashable {
    /// Whether the ANSI escapes are written; when false every method returns its text as it is.
    public var color: Bool

    /// A style that writes ANSI escapes when `color` is true.
    public init(color: Bool) { self.color = color }

    /// Text without escapes, for files and tests.
    public static let plain = TextStyle(color: false)
    /// Text with ANSI escapes, for a terminal.
    public static let ansi = TextStyle(color: true)

    /// Red: a failure or an unexpected error.
    public func red(_ text: String) -> String { wrap(text, "31") }
    /// Yellow: a disconnection the local host did not ask for.
    public func yellow(_ text: String) -> String { wrap(text, "33") }
    /// Green.
    public func green(_ text: String) -> String { wrap(text, "32") }
    /// Bold: a heading.
    public func bold(_ text: String) -> String { wrap(text, "1") }
    /// Dim: what is expected or empty.
    public func dim(_ text: String) -> String { wrap(text, "2") }

    private func wrap(_ text: String, _ code: String) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
