import ModelKit
import Testing

/// A compound update (`_modify`) whose mutation continues the model it updates (a new instance with
/// its id assigned to its slot meanwhile): the update's result is written last, to the live model.
@Suite struct ContinuityDuringUpdateTests {
    @Test func anUpdateWhoseMutationContinuesItsModelReachesTheLiveModel() {
        let shelf = Shelf(notes: [Note(id: 1, lines: Lines(["a"]))]).withAnchor()
        let note = shelf.notes[0]
        note.lines.append("b") {
            shelf.notes = [Note(id: 1, lines: Lines(["fresh"]))]
        }
        let live = shelf.notes[0]
        #expect(live.lines == Lines(["a", "b"]))
        #expect(note.lines == Lines(["a", "b"]))
        note.lines.append("c") {}
        #expect(live.lines == Lines(["a", "b", "c"]))
    }

    @Test func anUnequatableUpdateWhoseMutationContinuesItsModelReachesTheLiveModel() {
        let shelf = Shelf(notes: [Note(id: 1, log: Entries(["a"]))]).withAnchor()
        let note = shelf.notes[0]
        note.log.append("b") {
            shelf.notes = [Note(id: 1, log: Entries(["fresh"]))]
        }
        #expect(shelf.notes[0].log.entries == ["a", "b"])
        #expect(note.log.entries == ["a", "b"])
    }

    @Test func anUpdateWhoseMutationContinuesAModelWithChildrenReachesTheLiveModel() {
        let shelf = Shelf(folders: [Folder(id: 1, lines: Lines(["a"]), notes: [Note(id: 2)])]).withAnchor()
        let folder = shelf.folders[0]
        folder.lines.append("b") {
            shelf.folders = [Folder(id: 1, lines: Lines(["fresh"]), notes: [Note(id: 2), Note(id: 3)])]
        }
        let live = shelf.folders[0]
        #expect(live.lines == Lines(["a", "b"]))
        #expect(live.notes.map(\.id) == [2, 3])
        #expect(folder.lines == Lines(["a", "b"]))
    }

    @Test func anObserverSeesTheUpdateWrittenAfterTheContinuation() async {
        let shelf = Shelf(notes: [Note(id: 1, lines: Lines(["a"]))]).withAnchor()
        let note = shelf.notes[0]
        let values = Collector(shelf.node.observe(initial: false) { shelf.notes.first?.lines.items ?? [] })
        note.lines.append("b") {
            shelf.notes = [Note(id: 1, lines: Lines(["fresh"]))]
        }
        #expect(await eventually { values.elements.last == ["a", "b"] })
        values.cancel()
    }
}

/// A value whose update runs a closure in the middle of the mutation.
private struct Lines: Equatable, Sendable {
    var items: [String]
    init(_ items: [String] = []) { self.items = items }

    mutating func append(_ item: String, during body: () -> Void) {
        body()
        items.append(item)
    }
}

/// The same, not `Equatable`: an update of it keeps no old value.
private struct Entries: Sendable {
    var entries: [String]
    init(_ entries: [String] = []) { self.entries = entries }

    mutating func append(_ entry: String, during body: () -> Void) {
        body()
        entries.append(entry)
    }
}

private struct Note: Model, Identifiable {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var lines = Lines()
    @Tracked var log = Entries()

    init(id: Int, lines: Lines = Lines(), log: Entries = Entries()) {
        self.id = id
        self.lines = lines
        self.log = log
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$lines)
        r.track(\.$log)
    }
}

private struct Folder: Model, Identifiable {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var lines = Lines()
    @Tracked var notes: [Note] = []

    init(id: Int, lines: Lines = Lines(), notes: [Note] = []) {
        self.id = id
        self.lines = lines
        self.notes = notes
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$lines)
        r.track(\.$notes)
    }
}

private struct Shelf: Model {
    var node = ModelNode<Self>()
    @Tracked var notes: [Note] = []
    @Tracked var folders: [Folder] = []

    init(notes: [Note] = [], folders: [Folder] = []) {
        self.notes = notes
        self.folders = folders
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$notes)
        r.track(\.$folders)
    }
}
