import Foundation
import ModelKit

// A large document editor with undo: sections of paragraphs (array children with `let id`), each
// paragraph's text and style undoable, typing coalesced into one undo step per word, paragraphs
// moved between sections, a refresh from disk that continues paragraphs by id, and a per-paragraph
// save task that writes a transient flag.

enum UndoDocStyle: Equatable, Sendable {
    case body, heading, quote
}

struct UndoDocParagraph: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var text: String
    @Tracked var style: UndoDocStyle
    /// The word being typed: not part of the document (see `typed(_:)`).
    @Tracked var pendingWord = ""
    /// Set while this paragraph's save task runs: not part of the document.
    @Tracked var isSaving = false

    init(id: Int, text: String = "", style: UndoDocStyle = .body) {
        self.id = id
        self.text = text
        self.style = style
    }

    /// What the editor shows: the committed text and the word being typed.
    var shownText: String { text + pendingWord }

    func onActivate() { node.trackUndo() }   // text and style: the others are .transient

    /// One keystroke. Letters collect in the transient `pendingWord`; a space (or `endTyping()`)
    /// commits the word to `text` in one write: one undo entry per word.
    func typed(_ character: Character) {
        pendingWord.append(character)
        if character == " " { endTyping() }
    }

    /// Commits the word being typed, if any: one undo entry.
    func endTyping() {
        guard !pendingWord.isEmpty else { return }
        node.transaction {
            text += pendingWord
            pendingWord = ""
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$text)
        r.track(\.$style)
        r.track(\.$pendingWord, options: .transient)
        r.track(\.$isSaving, options: .transient)
    }
}

struct UndoDocSection: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var title: String
    @Tracked var paragraphs: [UndoDocParagraph]

    init(id: Int, title: String = "", paragraphs: [UndoDocParagraph] = []) {
        self.id = id
        self.title = title
        self.paragraphs = paragraphs
    }

    func onActivate() { node.trackUndo() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$paragraphs)
    }
}

struct UndoDocument: Model {
    var node = ModelNode<Self>()
    @Tracked var sections: [UndoDocSection]

    init(sections: [UndoDocSection] = []) { self.sections = sections }

    /// `sectionCount` sections sharing `paragraphCount` paragraphs, ids from 0, text "p<id>".
    static func large(sections sectionCount: Int, paragraphs paragraphCount: Int) -> UndoDocument {
        let perSection = paragraphCount / sectionCount
        return UndoDocument(sections: (0..<sectionCount).map { section in
            UndoDocSection(id: section, title: "S\(section)", paragraphs: (0..<perSection).map {
                let id = section * perSection + $0
                return UndoDocParagraph(id: id, text: "p\(id)")
            })
        })
    }

    func onActivate() { node.trackUndo() }

    /// Moves the paragraph at `index` of section `from` to `destination` of section `to`: one entry.
    func moveParagraph(at index: Int, from: Int, to: Int, at destination: Int) {
        node.transaction {
            let paragraph = sections[from].paragraphs.remove(at: index)
            sections[to].paragraphs.insert(paragraph, at: destination)
        }
    }

    func undoTapped() { node.undoStack.undo() }
    func redoTapped() { node.undoStack.redo() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$sections)
    }
}

extension UndoDocParagraph {
    /// Autocorrects the paragraph in its own task: marks it saving, waits for `gate` (the spell
    /// checker), writes the corrected text (a commit of its own: an undo entry) and clears the mark.
    func autocorrect(waitingFor gate: Gate, log: Log) {
        node.task {
            isSaving = true
            log.add("checking \(id)")
            await gate.enter()
            guard !Task.isCancelled else {
                log.add("cancelled \(id)")
                return
            }
            text = text.replacingOccurrences(of: "teh", with: "the")
            isSaving = false
            log.add("corrected \(id)")
        }
    }
}
