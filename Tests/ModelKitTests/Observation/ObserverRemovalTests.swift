import ModelKit
import Testing

/// A setting many rows observe.
private struct ObservedTheme: Model {
    var node = ModelNode<Self>()
    @Tracked var name = "light"

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$name)
    }
}

/// A row whose `onActivate` observes the shared theme, another model's property.
private struct ThemedRow: Model {
    var node = ModelNode<Self>()
    let id: Int
    let theme: ObservedTheme
    let log: Log

    func onActivate() {
        node.onChange(of: theme.name) { [id, log] _, new in log.add("\(id) \(new)") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {}
}

private struct ThemedList: Model {
    var node = ModelNode<Self>()
    @Tracked var theme = ObservedTheme()
    @Tracked var rows: [ThemedRow] = []

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$theme)
        r.track(\.$rows)
    }
}

/// The observers a removed model leaves in the lists of the properties it observed (of models that
/// stay) are dropped once per list and write, however many leave it at once.
@Suite struct ObserverRemovalTests {
    @Test func rowsRemovedInOneWriteLeaveNoObserverOnTheModelTheyObserved() {
        let log = Log()
        let list = ThemedList().withAnchor()
        list.rows = (0..<300).map { ThemedRow(id: $0, theme: list.theme, log: log) }
        list.theme.name = "dark"
        #expect(log.all.count == 300)
        log.clear()

        list.rows = []
        list.theme.name = "sepia"
        #expect(log.all.isEmpty, "no removed row's handler runs")

        list.rows = [ThemedRow(id: 7, theme: list.theme, log: log)]
        list.theme.name = "light"
        #expect(log.all == ["7 light"])
    }

    @Test func rowsRemovedBesideRowsThatStayLeaveOnlyTheirOwnObservers() {
        let log = Log()
        let list = ThemedList().withAnchor()
        list.rows = (0..<200).map { ThemedRow(id: $0, theme: list.theme, log: log) }
        list.rows.removeAll { $0.id % 2 == 1 }
        list.theme.name = "dark"
        #expect(log.all == (0..<100).map { "\($0 * 2) dark" }, "the rows that stay, in the order they observed")
    }

    @Test func aRowRemovedInTheWriteThatRemovesWhatItObservedLeavesNothingBehind() {
        let log = Log()
        let list = ThemedList().withAnchor()
        let first = list.theme
        list.rows = (0..<50).map { ThemedRow(id: $0, theme: first, log: log) }
        list.node.transaction {
            list.rows = []
            list.theme = ObservedTheme()
        }
        #expect(first.lifetime == .destructed)
        list.theme.name = "dark"
        #expect(log.all.isEmpty)
    }
}
