import ModelKit

/// A list child identified by its own `id`, as apps' models usually are. When it is given a stream of
/// ticks, its `onActivate` counts them in `ticks` (writing through `self`) until it is torn down.
struct Ticker: Model {
    var node = ModelNode<Self>()
    let id: Int
    let log: Log
    let tickSource: AsyncStream<Void>?
    @Tracked var title: String
    @Tracked var ticks = 0
    @Tracked var children: [Ticker]

    init(id: Int, title: String = "", log: Log, ticks: AsyncStream<Void>? = nil, children: [Ticker] = []) {
        self.id = id
        self.log = log
        self.tickSource = ticks
        _title = Tracked(wrappedValue: title)
        _children = Tracked(wrappedValue: children)
    }

    func onActivate() {
        log.add("activate \(id)")
        node.onCancel { [log, id] in log.add("cancel \(id)") }
        guard let tickSource else { return }
        node.task { [log, id] in
            defer { log.add("ticking ended \(id)") }
            for await _ in tickSource {
                ticks += 1
            }
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("title", \.$title)
        r.track("ticks", \.$ticks)
        r.track("children", \.$children)
    }
}

/// Holds tickers in every shape of child slot.
struct TickerList: Model {
    var node = ModelNode<Self>()
    @Tracked var one = Ticker(id: 0, log: Log())
    @Tracked var maybe: Ticker? = nil
    @Tracked var items: [Ticker] = []
    @Tracked var byKey: [String: Ticker] = [:]
    @Tracked var route = TickerRoute.home
    @Tracked var box: TickerBox? = nil
    @Tracked var anonymous: CounterModel? = nil

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("one", \.$one)
        r.track("maybe", \.$maybe)
        r.track("items", \.$items)
        r.track("byKey", \.$byKey)
        r.track("route", \.$route)
        r.track("box", \.$box)
        r.track("anonymous", \.$anonymous)
    }
}

/// A custom enum container.
enum TickerRoute: ModelContainer, Sendable {
    case home
    case detail(Ticker)

    func visit(_ visitor: inout ContainerVisitor) {
        if case .detail(let ticker) = self { visitor.visit(ticker) }
    }
}

/// A custom struct container.
struct TickerBox: ModelContainer, Sendable {
    var ticker: Ticker

    func visit(_ visitor: inout ContainerVisitor) {
        visitor.visit(ticker)
    }
}
