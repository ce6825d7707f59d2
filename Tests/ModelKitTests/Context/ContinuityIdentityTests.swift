import ModelKit
import ModelKitTesting
import Testing

// Which model a new value's model continues, replaces or duplicates (API.md section 8), where the
// id alone does not tell: models of different types with equal ids, a live model moved over a
// leaving child with its id, values whose `==` reads models, and slots that hold more than models.
// Each test runs under a Tester, so that any runtime warning fails it.

private struct Article: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var title = ""

    init(id: Int, title: String = "") {
        self.id = id
        self.title = title
    }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$title) }
}

/// Another model type, whose ids are `Int`s too.
private struct ArticleEditor: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var draft = ""

    init(id: Int) { self.id = id }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$draft) }
}

private enum ArticleDestination: ModelContainer, Sendable {
    case detail(Article)
    case edit(ArticleEditor)

    func visit(_ visitor: inout ContainerVisitor) {
        switch self {
        case .detail(let model): visitor.visit(model)
        case .edit(let model): visitor.visit(model)
        }
    }
}

/// An article and its editor side by side, both with the article's id.
private struct ArticleAndEditor: ModelContainer, Sendable {
    var article: Article
    var editor: ArticleEditor

    func visit(_ visitor: inout ContainerVisitor) {
        visitor.visit(article)
        visitor.visit(editor)
    }
}

private struct Screen: Model {
    var node = ModelNode<Self>()
    @Tracked var destination: ArticleDestination?
    @Tracked var pair: ArticleAndEditor?
    @Tracked var pinned: Article?
    @Tracked var featured: Article?
    @Tracked var articles: [Article] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$destination)
        r.track(\.$pair)
        r.track(\.$pinned)
        r.track(\.$featured)
        r.track(\.$articles)
    }
}

/// A value whose `==` reads a model, as a value holding a model and comparing through it would.
private struct Tag: Equatable, Sendable {
    let number: Int
    let source: Article?

    static func == (lhs: Tag, rhs: Tag) -> Bool {
        _ = lhs.source?.title
        _ = rhs.source?.title
        return lhs.number == rhs.number
    }
}

private struct TaggedRow: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var tag: Tag

    init(id: Int, tag: Tag) {
        self.id = id
        self.tag = tag
    }

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$tag) }
}

private struct TaggedList: Model {
    var node = ModelNode<Self>()
    @Tracked var source: Article?
    @Tracked var rows: [TaggedRow] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$source)
        r.track(\.$rows)
    }
}

/// A model with a dictionary slot: the dictionary's keys are part of its value.
private struct Shelf: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var name: String
    @Tracked var byKey: [String: Article]

    init(id: Int, name: String, byKey: [String: Article]) {
        self.id = id
        self.name = name
        self.byKey = byKey
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$name)
        r.track(\.$byKey)
    }
}

private struct Library: Model {
    var node = ModelNode<Self>()
    @Tracked var shelves: [Shelf] = []

    static func register(_ r: inout ModelRegistrar<Self>) { r.track(\.$shelves) }
}

@Suite struct ContinuityIdentityTests {
    @Test func aModelOfAnotherTypeWithAnEqualIDReplacesTheChild() async {
        let (screen, tester) = Screen().andTester()
        tester.exhaustivity = .off
        let article = Article(id: 1)
        screen.destination = .detail(article)
        let editor = ArticleEditor(id: 1)
        screen.destination = .edit(editor)
        #expect(article.lifetime == .destructed)
        #expect(editor.lifetime == .anchored)
        // And back: a new article with that id is a new model, not the destructed one.
        let again = Article(id: 1, title: "again")
        screen.destination = .detail(again)
        #expect(editor.lifetime == .destructed)
        #expect(again.lifetime == .anchored && again.title == "again")
        await tester.finish()
    }

    @Test func modelsOfDifferentTypesWithEqualIDsSitSideBySide() async {
        let (screen, tester) = Screen().andTester()
        tester.exhaustivity = .off
        let pair = ArticleAndEditor(article: Article(id: 7), editor: ArticleEditor(id: 7))
        screen.pair = pair
        #expect(pair.article.lifetime == .anchored && pair.editor.lifetime == .anchored)
        // A refresh continues each by its type and id.
        let refreshed = ArticleAndEditor(article: Article(id: 7, title: "new"), editor: ArticleEditor(id: 7))
        screen.pair = refreshed
        #expect(pair.article.title == "new" && refreshed.article.lifetime == .anchored)
        #expect(pair.editor.lifetime == .anchored && refreshed.editor.lifetime == .anchored)
        await tester.finish()
    }

    @Test func aLiveModelMovedOverALeavingChildWithItsIDTakesItsPlace() async {
        let (screen, tester) = Screen().andTester()
        tester.exhaustivity = .off
        let moved = Article(id: 1, title: "moved")
        screen.pinned = moved
        let leaving = Article(id: 1, title: "leaving")
        screen.featured = leaving
        screen.featured = moved
        #expect(leaving.lifetime == .destructed)
        screen.pinned = nil
        #expect(moved.lifetime == .anchored, "featured still holds it")
        #expect(screen.featured?.title == "moved")
        screen.featured = nil
        #expect(moved.lifetime == .destructed)
        await tester.finish()
    }

    @Test func aValueWhoseEqualityReadsAModelIsComparedWhenContinued() async {
        let (list, tester) = TaggedList().andTester()
        tester.exhaustivity = .off
        list.source = Article(id: 9)
        let source = list.source
        list.rows = [TaggedRow(id: 1, tag: Tag(number: 1, source: source))]
        // A model of this hierarchy, then one that is not anchored, read by `==`.
        list.rows = [TaggedRow(id: 1, tag: Tag(number: 2, source: source))]
        #expect(list.rows[0].tag.number == 2)
        list.rows = [TaggedRow(id: 1, tag: Tag(number: 3, source: Article(id: 10)))]
        #expect(list.rows[0].tag.number == 3)
        // Equal by `==`: no change.
        list.rows = [TaggedRow(id: 1, tag: Tag(number: 3, source: nil))]
        await tester.finish()
    }

    @Test func aRefreshThatLeavesADictionarySlotAsItWasIsNoChangeOfIt() async {
        let (library, tester) = Library().andTester()
        let modifications = Collector(library.node.modifications())
        func shelf(_ name: String, key: String = "a") -> Shelf {
            Shelf(id: 1, name: name, byKey: [key: Article(id: 2)])
        }
        library.shelves = [shelf("first")]
        await tester.assert {
            library.shelves.map(\.name) == ["first"]
            library.shelves[0].byKey.keys.sorted() == ["a"]
        }
        library.shelves = [shelf("second")]
        await tester.assert(library.shelves.map(\.name) == ["second"])
        // A changed key is a change of the slot.
        library.shelves = [shelf("second", key: "b")]
        await tester.assert(library.shelves[0].byKey.keys.sorted() == ["b"])
        #expect(await modifications.waitForCount(3))
        // The refreshes leave `shelves` holding the same shelf: only the first write changes it.
        #expect(modifications.elements.map(\.paths) == [
            ["Library.shelves"],
            ["Library.shelves[0].name"],
            ["Library.shelves[0].byKey"],
        ])
        modifications.cancel()
        await tester.finish()
    }
}

extension ReportedIssueTests {
    @Suite struct ContinuityDuplicateTests {
        @Test func modifiersOfANewInstanceThatContinuesAChildAreReported() async {
            await IssueCapture.run(matching: "A new Article with the id of the live Article") { capture in
                let screen = Screen().withAnchor()
                let live = Article(id: 1, title: "live")
                screen.articles = [live]
                let activations = Locked(0)
                screen.articles = [Article(id: 1, title: "refreshed").withActivation { _ in activations.withLock { $0 += 1 } }]
                #expect(live.title == "refreshed", "continued all the same")
                #expect(activations.value == 0)
                #expect(capture.messages.map { $0.prefix { $0 != "\n" } } == [
                    "A new Article with the id of the live Article at Screen.articles[0] continued it (same-id continuity); what was set on the new instance with `withActivation` was ignored.",
                ])
                screen.articles = [
                    Article(id: 1, title: "twice").withDependencies { _ in }.withActivation { _ in }._withPrintChanges(to: { _ in }),
                ]
                #expect(capture.messages.last?.hasPrefix(
                    "A new Article with the id of the live Article at Screen.articles[0] continued it (same-id continuity); what was set on the new instance with `withDependencies`, `withActivation` and `_withPrintChanges` was ignored."
                ) == true)
                #expect(capture.messages.count == 2)
                screen.articles = [Article(id: 1, title: "again")]
                #expect(capture.messages.count == 2, "no modifiers, no report")
            }
        }

        @Test func modifiersOfANewInstanceThatContinuesAChildWithChildSlotsAreReported() async {
            await IssueCapture.run(matching: "A new Shelf with the id of the live Shelf") { capture in
                let library = Library().withAnchor()
                library.shelves = [Shelf(id: 1, name: "live", byKey: [:])]
                library.shelves = [Shelf(id: 1, name: "refreshed", byKey: [:]).withActivation { _ in }]
                #expect(library.shelves[0].name == "refreshed")
                #expect(capture.messages.count == 1)
            }
        }

        @Test func aLiveModelBesideAStayingChildWithItsIDIsStillADuplicate() async {
            await IssueCapture.run(matching: "Screen.articles holds two different Article models with the id 1") { capture in
                let screen = Screen().withAnchor()
                let staying = Article(id: 1, title: "staying")
                screen.articles = [staying]
                let moved = Article(id: 1, title: "moved")
                screen.pinned = moved
                screen.articles = [staying, moved]
                #expect(capture.messages.count == 1)
                screen.pinned = nil
                #expect(moved.lifetime == .destructed, "it was not placed in articles")
                #expect(staying.lifetime == .anchored)
            }
        }
    }
}
