import Foundation

extension Standup {
    /// Whether `search` appears in the title, an attendee's name or a meeting's transcript,
    /// ignoring case and diacritics (`"rene"` finds René). Surrounding spaces in `search` are
    /// ignored; a search of spaces alone matches every standup.
    func matches(_ search: String) -> Bool {
        let search = search.trimmingCharacters(in: .whitespaces)
        guard !search.isEmpty else { return true }
        func contains(_ text: String) -> Bool {
            text.range(of: search, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }
        return contains(title) || attendees.contains { contains($0.name) } || meetings.contains { contains($0.transcript) }
    }
}
