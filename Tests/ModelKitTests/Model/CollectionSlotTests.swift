import ModelKit
import Testing

/// A model with a custom `id`, so that a new instance can continue a live one.
private struct Row: Model {
    var node = ModelNode<Self>()
    let id: Int
    let log: Log
    @Tracked var title: String

    init(id: Int, title: String = "", log: Log) {
        self.id = id
        self.log = log
        _title = Tracked(wrappedValue: title)
    }

    func onActivate() {
        log.add("activate \(id)")
        node.onCancel { [log, id] in log.add("cancel \(id)") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
    }
}

/// An identifiable custom container, as an element of a collection slot.
private enum Entry: ModelContainer, Identifiable, Sendable {
    case row(Row)
    case separator(id: Int)

    var id: Int {
        switch self {
        case .row(let row): row.id
        case .separator(let id): -id
        }
    }

    func visit(_ visitor: inout ContainerVisitor) {
        if case .row(let row) = self { visitor.visit(row) }
    }
}

/// A collection that is also a container: it visits only its first element.
private struct FirstOnly: ModelContainer, MutableCollection, RandomAccessCollection, RangeReplaceableCollection, Sendable {
    var rows: [Row] = []

    init() {}
    var startIndex: Int { rows.startIndex }
    var endIndex: Int { rows.endIndex }
    subscript(position: Int) -> Row {
        get { rows[position] }
        set { rows[position] = newValue }
    }
    mutating func replaceSubrange<C: Collection>(_ range: Range<Int>, with elements: C) where C.Element == Row {
        rows.replaceSubrange(range, with: elements)
    }

    func visit(_ visitor: inout ContainerVisitor) {
        if let first = rows.first { visitor.visit(first) }
    }
}

private struct ListModel: Model {
    var node = ModelNode<Self>()
    let log: Log
    let token: LifetimeTracker.Token?
    @Tracked var rows: IdentifiedList<Row> = []
    @Tracked var entries: IdentifiedList<Entry> = []
    @Tracked var slice: ArraySlice<Row> = []
    @Tracked var firstOnly = FirstOnly()

    init(log: Log, token: LifetimeTracker.Token? = nil) {
        self.log = log
        self.token = token
    }

    func onActivate() { log.add("activate list") }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$rows)
        r.track("entries", \.$entries)
        r.track(\.$slice)
        r.track(\.$firstOnly)
    }
}

/// Collects printed lines.
private final class Lines: Sendable {
    let lines = Locked<[String]>([])
    var all: [String] { lines.value }
    var print: @Sendable (String) -> Void { { line in self.lines.withLock { $0.append(line) } } }
}

/// A `Sendable` mutable, random-access, range-replaceable collection of models is a child slot with
/// a plain `r.track`, without conforming to anything: matched by `id`, as an array is.
@Suite struct CollectionSlotTests {
    @Test func modelsAddedToAnIdentifiedListAreAnchoredAndActivatedAfterTheParent() {
        let log = Log()
        let list = ListModel(log: log).withAnchor()
        let a = Row(id: 1, log: log)
        let b = Row(id: 2, log: log)
        list.rows.append(a)
        list.rows[id: 2] = b
        #expect(a.lifetime == .anchored && b.lifetime == .anchored)
        #expect(log.all == ["activate list", "activate 1", "activate 2"])
        #expect(list.rows[id: 1]?.lifetime == .anchored)
    }

    @Test func modelsGivenBeforeAnchoringAreAnchoredWithTheParent() {
        let log = Log()
        let list = ListModel(log: log)
        let a = Row(id: 1, log: log)
        list.rows = [a]
        #expect(a.lifetime == .initial)
        let anchored = list.withAnchor()
        #expect(a.lifetime == .anchored)
        #expect(anchored.rows.ids == [1])
        #expect(log.all == ["activate list", "activate 1"])
    }

    @Test func removingAModelTearsItDownAndKeepsTheOthers() {
        let log = Log()
        let list = ListModel(log: log).withAnchor()
        let a = Row(id: 1, log: log)
        let b = Row(id: 2, log: log)
        let c = Row(id: 3, log: log)
        list.rows = [a, b, c]
        list.rows.remove(id: 2)
        #expect(b.lifetime == .destructed)
        #expect(a.lifetime == .anchored && c.lifetime == .anchored)
        list.rows.swapAt(0, 1)
        #expect(list.rows.ids == [3, 1])
        #expect(log.count(of: "activate 1") == 1 && log.count(of: "cancel 1") == 0)
        list.rows.removeAll()
        #expect(a.lifetime == .destructed && c.lifetime == .destructed)
        #expect(log.entries(withPrefix: "cancel") == ["cancel 2", "cancel 3", "cancel 1"])
    }

    @Test func releasingTheHierarchyTearsDownTheCollectionsModels() async {
        let tracker = LifetimeTracker()
        let log = Log()
        var a: Row? = Row(id: 1, log: log)
        do {
            let list = ListModel(log: log, token: tracker.token()).withAnchor()
            list.rows = [a!]
        }
        #expect(a?.lifetime == .destructed)
        #expect(log.count(of: "cancel 1") == 1)
        a = nil
        #expect(await tracker.allFreed())
    }

    @Test func aNewInstanceWithALiveChildsIdContinuesIt() {
        let log = Log()
        let list = ListModel(log: log).withAnchor()
        let first = Row(id: 1, title: "draft", log: log)
        list.rows = [first]
        let again = Row(id: 1, title: "final", log: log)
        list.rows = [Row(id: 2, log: log), again]
        #expect(again.lifetime == .anchored)
        #expect(list.rows[id: 1]?.title == "final")
        #expect(list.rows.ids == [2, 1])
        #expect(log.all == ["activate list", "activate 1", "activate 2"])
        again.title = "x"
        #expect(list.rows[1].title == "x")
    }

    @Test func aDifferentIdReplacesTheChild() {
        let log = Log()
        let list = ListModel(log: log).withAnchor()
        let first = Row(id: 1, log: log)
        list.rows = [first]
        list.rows = [Row(id: 2, log: log)]
        #expect(first.lifetime == .destructed)
        #expect(log.all == ["activate list", "activate 1", "cancel 1", "activate 2"])
    }

    @Test func twoModelsWithOneIdAreReportedAndTheSecondIsNotAnchored() async {
        await IssueCapture.run(matching: "ListModel.slice") { capture in
            let log = Log()
            let list = ListModel(log: log).withAnchor()
            let second = Row(id: 7, log: log)
            list.slice = [Row(id: 7, log: log), second]
            #expect(second.lifetime == .initial)
            #expect(capture.messages.first?.hasPrefix("ListModel.slice holds two different Row models with the id 7") == true)
        }
    }

    @Test func printedChangesNameTheElementByPosition() {
        let log = Log()
        let list = ListModel(log: log).withAnchor()
        list.rows = [Row(id: 1, log: log), Row(id: 2, title: "a", log: log)]
        let lines = Lines()
        let printing = list._printChanges(to: lines.print)
        list.rows[id: 2]?.title = "b"
        list.entries = [.separator(id: 1), .row(Row(id: 3, log: log))]
        let entryRow = list.entries[1].row
        entryRow?.title = "c"
        printing.cancel()
        #expect(lines.all.first == #"ListModel.rows[1].title: "a" → "b""#)
        #expect(lines.all.last == #"ListModel.entries[1].row.title: "" → "c""#)
    }

    @Test func identifiableCustomContainersAreMatchedByTheirModelsIds() {
        let log = Log()
        let list = ListModel(log: log).withAnchor()
        let row = Row(id: 1, log: log)
        list.entries = [.separator(id: 1), .row(row)]
        #expect(row.lifetime == .anchored)
        let again = Row(id: 1, title: "same id", log: log)
        list.entries = [.row(again)]
        #expect(again.lifetime == .anchored)
        #expect(list.entries[0].row?.title == "same id")
        list.entries.remove(id: 1)
        #expect(again.lifetime == .destructed)
        #expect(log.all == ["activate list", "activate 1", "cancel 1"])
    }

    @Test func standardLibraryCollectionsOfModelsAreChildSlotsToo() {
        let log = Log()
        let list = ListModel(log: log).withAnchor()
        let a = Row(id: 1, log: log)
        list.slice = [a, Row(id: 2, log: log)]
        #expect(a.lifetime == .anchored)
        list.slice = list.slice.dropFirst()
        #expect(a.lifetime == .destructed)
    }

    @Test func aCollectionThatIsAContainerIsVisitedByItsOwnVisit() {
        let log = Log()
        let list = ListModel(log: log).withAnchor()
        let a = Row(id: 1, log: log)
        let b = Row(id: 2, log: log)
        list.firstOnly.append(contentsOf: [a, b])
        #expect(a.lifetime == .anchored)
        #expect(b.lifetime == .initial)
    }
}

private extension Entry {
    var row: Row? {
        get { if case .row(let row) = self { row } else { nil } }
        set { if let newValue { self = .row(newValue) } }
    }
}

extension CollectionSlotTests {
    /// Documented in Models.md: as in custom containers, a frozen copy holds the live models.
    @Test func aFrozenCopyHoldsTheCollectionsLiveModels() {
        let log = Log()
        let list = ListModel(log: log).withAnchor()
        let row = Row(id: 1, title: "a", log: log)
        list.rows = [row]
        let frozen = list.frozenCopy
        #expect(frozen.lifetime == .frozen)
        #expect(frozen.rows[0].lifetime == .anchored)
        row.title = "b"
        #expect(frozen.rows[0].title == "b")
    }
}
