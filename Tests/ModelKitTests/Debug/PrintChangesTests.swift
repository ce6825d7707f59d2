import Foundation
import ModelKit
import Observation
import Testing

private struct CounterRow: Model {
    var node = ModelNode<Self>()
    @Tracked var counter = CounterModel()

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("counter", \.$counter)
    }
}

private struct Standup: Sendable, Equatable {
    var title: String
    var attendees: [String]
    var duration: Int
}

private enum Route: ModelContainer, Sendable {
    case detail(CounterModel)
    case settings

    func visit(_ visitor: inout ContainerVisitor) {
        if case .detail(let model) = self { visitor.visit(model) }
    }
}

private struct Panes: ModelContainer, Sendable {
    var main: CounterModel
    var side: CounterModel?
    var extras: [CounterModel] = []

    func visit(_ visitor: inout ContainerVisitor) {
        visitor.visit(main)
        visitor.visit(side)
        visitor.visit(elementsOf: extras)
    }
}

private struct PanesModel: Model {
    var node = ModelNode<Self>()
    @Tracked var panes = Panes(main: CounterModel(), side: CounterModel())
    @Tracked var route: Route = .settings

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("panes", \.$panes)
        r.track("route", \.$route)
    }
}

private struct AppModel: Model {
    var node = ModelNode<Self>()
    @Tracked var counters: [CounterRow] = []
    @Tracked var selected: CounterModel? = nil
    @Tracked var byName: [String: CounterModel] = [:]
    @Tracked var route: Route = .settings
    @Tracked var standup = Standup(title: "Design", attendees: ["Blob", "Blob Jr.", "Blob Sr."], duration: 5)
    @Tracked var title = "Counters"

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("counters", \.$counters)
        r.track("selected", \.$selected)
        r.track("byName", \.$byName)
        r.track("route", \.$route)
        r.track("standup", \.$standup)
        r.track("title", \.$title)
    }
}

/// An enum whose `description` is one text for every case.
private enum Filter: Sendable, Equatable, CustomStringConvertible {
    case all
    case done
    case tagged(String)

    var description: String { "Filter" }
}

private struct FilterModel: Model {
    var node = ModelNode<Self>()
    @Tracked var filter: Filter = .all

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$filter)
    }
}

/// Collects printed lines.
private final class Printer: Sendable {
    let lines = Locked<[String]>([])
    var all: [String] { lines.value }
    var print: @Sendable (String) -> Void { { line in self.lines.withLock { $0.append(line) } } }
}

/// A model used as a dependency: part of the hierarchy, outside its tree.
private struct PrintedSettings: Model, DependencyKey {
    static var liveValue: PrintedSettings { PrintedSettings() }

    var node = ModelNode<Self>()
    @Tracked var theme = "light"

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("theme", \.$theme)
    }
}

@Suite struct PrintChangesTests {
    /// API.md section 5: printing from the root prints every state change of the hierarchy. A model
    /// dependency's changes were left out (a Tester records them, as `PrintedSettings.theme`).
    @Test func printingFromTheRootIncludesModelDependencies() {
        let app = AppModel().withAnchor()
        app.counters = [CounterRow()]
        let printer = Printer()
        let printing = app._printChanges(to: printer.print)
        app.node[PrintedSettings.self].theme = "dark"
        #expect(printer.all == ["PrintedSettings.theme: \"light\" → \"dark\""])

        // A child's printing keeps to its subtree.
        let childPrinter = Printer()
        let childPrinting = app.counters[0]._printChanges(to: childPrinter.print)
        app.node[PrintedSettings.self].theme = "light"
        app.counters[0].counter.count += 1
        #expect(childPrinter.all == ["AppModel.counters[0].counter.count: 0 → 1"])
        printing.cancel()
        childPrinting.cancel()
    }

    @Test func printsAPathQualifiedDiff() {
        let app = AppModel().withAnchor()
        app.counters = [CounterRow()]
        let printer = Printer()
        let printing = app._printChanges(to: printer.print)
        app.counters[0].counter.count += 1
        #expect(printer.all == ["AppModel.counters[0].counter.count: 0 → 1"])
        printing.cancel()
    }

    @Test func printsOnTheWritingThreadBeforeTheWriteReturns() async {
        let app = AppModel().withAnchor()
        let printer = Printer()
        let printing = app._printChanges(to: printer.print)
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<4 {
                group.addTask {
                    app.title = "title \(index)"
                    return printer.all.contains { $0.hasSuffix("→ \"title \(index)\"") }
                }
            }
            for await printedBeforeReturn in group {
                #expect(printedBeforeReturn)
            }
        }
        printing.cancel()
    }

    @Test func aWriteFromAnotherThreadIsPrintedOnItsOwnThread() {
        // The first write's thread is held in its Observation handler, after it unlocked and before
        // it prints; a second thread writes meanwhile. Each change must be printed by its writer.
        let app = AppModel().withAnchor()
        let writers = Locked<[String: UInt]>([:])
        let wrongThread = Locked<[String]>([])
        let printing = app._printChanges { line in
            let writer = line.hasPrefix("AppModel.title") ? "first" : "second"
            if writers.value[writer] != threadID() { wrongThread.withLock { $0.append(line) } }
        }
        withObservationTracking { _ = app.title } onChange: {
            let written = DispatchSemaphore(value: 0)
            let second = Thread {
                writers.withLock { $0["second"] = threadID() }
                app.standup.duration = 6
                written.signal()
            }
            second.start()
            written.wait()
        }
        let firstWritten = DispatchSemaphore(value: 0)
        let first = Thread {
            writers.withLock { $0["first"] = threadID() }
            app.title = "Hello"
            firstWritten.signal()
        }
        first.start()
        firstWritten.wait()
        #expect(wrongThread.value == [])
        printing.cancel()
    }

    @Test func stopsPrintingWhenCancelled() {
        let app = AppModel().withAnchor()
        let printer = Printer()
        let printing = app._printChanges(to: printer.print)
        app.title = "one"
        printing.cancel()
        app.title = "two"
        #expect(printer.all == ["AppModel.title: \"Counters\" → \"one\""])
    }

    @Test func withPrintChangesPrintsForTheModelsLifetime() {
        let printer = Printer()
        let app = AppModel()._withPrintChanges(to: printer.print).withAnchor()
        app.title = "Hello"
        app.selected = CounterModel()
        app.selected?.count = 2
        #expect(printer.all.first == "AppModel.title: \"Counters\" → \"Hello\"")
        #expect(printer.all.last == "AppModel.selected.count: 0 → 2")
    }

    @Test func pathsNameOptionalDictionaryAndCustomContainerSlots() {
        let app = AppModel().withAnchor()
        app.selected = CounterModel()
        app.byName = ["blob": CounterModel()]
        app.route = .detail(CounterModel())
        let printer = Printer()
        let printing = app._printChanges(to: printer.print)
        app.selected?.count = 1
        app.byName["blob"]?.count = 2
        if case .detail(let detail) = app.route { detail.count = 3 }
        #expect(printer.all == [
            "AppModel.selected.count: 0 → 1",
            "AppModel.byName[\"blob\"].count: 0 → 2",
            "AppModel.route.detail.count: 0 → 3",
        ])
        printing.cancel()
    }

    @Test func pathsNameTheFieldsOfAStructContainer() {
        let model = PanesModel().withAnchor()
        model.panes.extras = [CounterModel(), CounterModel()]
        let printer = Printer()
        let printing = model._printChanges(to: printer.print)
        model.panes.main.count = 1
        model.panes.side?.count = 2
        model.panes.extras[1].count = 3
        #expect(printer.all == [
            "PanesModel.panes.main.count: 0 → 1",
            "PanesModel.panes.side.count: 0 → 2",
            "PanesModel.panes.extras[1].count: 0 → 3",
        ])
        printing.cancel()
    }

    @Test func withPrintChangesOnAChildEndsWhenTheChildIsRemoved() async {
        final class Sink: Sendable {
            let freed: Locked<Bool>
            let lines = Locked<[String]>([])
            init(freed: Locked<Bool>) { self.freed = freed }
            deinit { freed.value = true }
        }
        let app = AppModel().withAnchor()
        let freed = Locked(false)
        do {
            let sink = Sink(freed: freed)
            app.selected = CounterModel()._withPrintChanges { line in sink.lines.withLock { $0.append(line) } }
            app.selected?.count = 1
            #expect(sink.lines.value == ["AppModel.selected.count: 0 → 1"])
            app.selected = nil
        }
        // The printer (and what it captured) went with the child.
        #expect(await eventually { freed.value })
    }

    @Test func printsOnlyTheSubtreeOfTheModelItWasCalledOn() {
        let app = AppModel().withAnchor()
        app.counters = [CounterRow(), CounterRow()]
        let printer = Printer()
        let printing = app.counters[1]._printChanges(to: printer.print)
        app.counters[0].counter.count = 1
        app.title = "ignored"
        app.counters[1].counter.count = 2
        #expect(printer.all == ["AppModel.counters[1].counter.count: 0 → 2"])
        printing.cancel()
    }

    @Test func multiLineValuesPrintAsALineDiff() {
        let app = AppModel().withAnchor()
        let printer = Printer()
        let printing = app._printChanges(to: printer.print)
        app.standup.title = "Engineering"
        #expect(printer.all == [
            """
            AppModel.standup:
              Standup(
            -   title: "Design",
            +   title: "Engineering",
                attendees: [[0]: "Blob", [1]: "Blob Jr.", [2]: "Blob Sr."],
                duration: 5
              )
            """,
        ])
        printing.cancel()
    }

    @Test func transactionPrintsEachPropertyOnceFromFirstToLastValue() {
        let app = AppModel().withAnchor()
        let printer = Printer()
        let printing = app._printChanges(to: printer.print)
        app.node.transaction {
            app.title = "a"
            app.title = "b"
            app.standup.duration = 6
        }
        #expect(printer.all.count == 2)
        #expect(printer.all.first == "AppModel.title: \"Counters\" → \"b\"")
        printing.cancel()
    }

    @Test func aTransactionOverManyPropertiesPrintsEachOnceInFirstWriteOrder() {
        // More distinct properties than the short scan covers, so that repeats are found through
        // the positions dictionary too.
        let log = Log()
        let root = TreeModel("root", log: log, children: (0..<12).map { TreeModel("c\($0)", log: log) }).withAnchor()
        let children = root.children
        let printer = Printer()
        let printing = root._printChanges(to: printer.print)
        root.node.transaction {
            for child in children { child.value = 1 }
            for child in children.reversed() { child.value = 2 }
            children[0].value = 3
            children[11].value = 0
        }
        let expected = (0..<11).map { "TreeModel.children[\($0)].value: 0 → \($0 == 0 ? 3 : 2)" }
        #expect(printer.all == expected, "child 11 went back to 0: no change to print")
        printing.cancel()
    }

    @Test func addingAChildPrintsTheSlotChange() {
        let app = AppModel().withAnchor()
        let printer = Printer()
        let printing = app._printChanges(to: printer.print)
        app.selected = CounterModel()
        #expect(printer.all == ["AppModel.selected: nil → CounterModel(count: 0, title: \"\")"])
        printing.cancel()
    }

    @Test func stringsWithLineBreaksAndControlCharactersPrintOnOneLine() {
        // "\r\n" is one Character: escaping character by character kept the line break.
        let app = AppModel().withAnchor()
        let printer = Printer()
        let printing = app._printChanges(to: printer.print)
        app.title = "a\r\nb"
        app.title = "c\rd\u{0}e\u{1B}"
        #expect(printer.all == [
            #"AppModel.title: "Counters" → "a\r\nb""#,
            #"AppModel.title: "a\r\nb" → "c\rd\0e\u{1B}""#,
        ])
        printing.cancel()
    }

    @Test func enumCasesPrintByNameEvenWithADescription() {
        // Cases without a payload were named by `description`: `.all → .done` rendered as one
        // text on both sides and was not printed at all.
        let model = FilterModel().withAnchor()
        let printer = Printer()
        let printing = model._printChanges(to: printer.print)
        model.filter = .done
        model.filter = .tagged("x")
        #expect(printer.all == [
            "FilterModel.filter: .all → .done",
            #"FilterModel.filter: .done → .tagged("x")"#,
        ])
        printing.cancel()
    }
}

/// The calling thread (`Thread.current` can name another thread on Linux).
private func threadID() -> UInt {
    #if canImport(Darwin)
    UInt(bitPattern: pthread_self())
    #else
    UInt(pthread_self())
    #endif
}
