import AndroidCodes

/// Android's view of a failure, as every JSON document writes it (`errors`, `lifecycle`,
/// `diagnose`; Formats/json.md): the status, its constant (`null` for a number passed on
/// unnamed), the callback, the grade and the AOSP source; `note` and `later` only where there
/// is one.
struct AndroidJSON: Encodable {
    var status: Int
    var name: NullOr<String>
    var callback: String
    var grade: String
    var source: String
    var note: String?
    /// What a later release reports instead: `since`, `status`, `name`.
    var later: AndroidStatus.Release?

    init(_ view: AndroidStatus) {
        status = view.status
        name = NullOr(view.name)
        callback = view.callback
        grade = view.grade.rawValue
        source = view.source
        note = view.note
        later = view.later
    }
}
