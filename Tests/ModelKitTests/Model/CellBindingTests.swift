import ModelKit
import Testing

/// A bound cell holds its context through `Unmanaged` bits (a retained reference), and a forwarding
/// cell holds its target through a table beside the cells (Model/Cell.swift). These tests reach a
/// context and a forward target through nothing but a cell, after everything else let them go;
/// under Address Sanitizer a missing retain is a use after free.
@Suite struct CellBindingTests {
    @Test func trackedKeptWithoutItsModelStillReachesItsContext() {
        var title: Tracked<String>?
        var count: Tracked<Int>?
        do {
            let root = CounterModel().withAnchor()
            root.count = 3
            root.title = "kept"
            title = root.$title
            count = root.$count
        }
        // The hierarchy, its anchor and every copy of the model are gone; each cell keeps the
        // destructed context, which a read locks.
        #expect(title?.wrappedValue == "kept")
        #expect(count?.wrappedValue == 3)
        title = nil
        count = nil
    }

    @Test func childCellOutlivesItsRemovedModelAndItsParent() {
        var count: Tracked<Int>?
        do {
            let root = TickerList().withAnchor()
            root.anonymous = CounterModel()
            root.anonymous?.count = 7
            count = root.anonymous?.$count
            root.anonymous = nil
        }
        #expect(count?.wrappedValue == 7)
        count = nil
    }

    @Test func forwardsSurviveTheirInstancesBeingReleasedInAnyOrder() async {
        await IssueCapture.run(matching: "Ticker") { capture in
            var titles: [Tracked<String>] = []
            let list = TickerList().withAnchor()
            do {
                let instances = (0..<4).map { Ticker(id: 1, title: "v\($0)", log: Log()) }
                for instance in instances { list.maybe = instance }
                titles = instances.map(\.$title)
            }
            // Only the cells remain of the earlier instances: each forwards along the chain.
            #expect(titles.map(\.wrappedValue) == ["v3", "v3", "v3", "v3"])
            titles[0].wrappedValue = "through the oldest"
            #expect(list.maybe?.title == "through the oldest")
            // Released from the middle of the chain outwards, then the rest.
            titles.remove(at: 1)
            #expect(titles[0].wrappedValue == "through the oldest")
            titles.remove(at: 0)
            list.maybe = nil
            #expect(titles.allSatisfy { $0.wrappedValue == "through the oldest" })
            titles = []
            #expect(capture.messages.isEmpty, "\(capture.messages)")
        }
    }
}
