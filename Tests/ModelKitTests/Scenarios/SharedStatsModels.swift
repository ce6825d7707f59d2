import ModelKit

// SwiftModel's SharedState example, ported to ModelKit: one statistics model held by the app and by
// both of its tabs (a shared model, one live instance in three places). The counter tab counts up
// and down and says whether the count is prime, the profile tab shows the statistics and resets
// them, and switching tabs counts as a count event too.

/// Counting statistics, shared by every screen that shows or changes them.
struct SharedStats: Model, Equatable {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var maxCount = 0
    @Tracked var minCount = 0
    @Tracked var numberOfCounts = 0

    func increment() {
        node.transaction {
            count += 1
            numberOfCounts += 1
            maxCount = max(maxCount, count)
        }
    }

    func decrement() {
        node.transaction {
            count -= 1
            numberOfCounts += 1
            minCount = min(minCount, count)
        }
    }

    func reset() {
        node.transaction {
            count = 0
            maxCount = 0
            minCount = 0
            numberOfCounts = 0
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$count)
        r.track(\.$maxCount)
        r.track(\.$minCount)
        r.track(\.$numberOfCounts)
    }
}

/// The tab with the counter and the "is this prime?" alert.
struct SharedCounterTab: Model {
    var node = ModelNode<Self>()
    /// The alert's message, while it is shown.
    @Tracked var alert: String?
    @Tracked var stats: SharedStats

    init(stats: SharedStats) { self.stats = stats }

    func incrementTapped() { stats.increment() }
    func decrementTapped() { stats.decrement() }

    func isPrimeTapped() {
        let count = stats.count
        alert = sharedIsPrime(count)
            ? "👍 The number \(count) is prime!"
            : "👎 The number \(count) is not prime :("
    }

    func alertDismissed() { alert = nil }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$alert)
        r.track(\.$stats)
    }
}

/// The tab that shows the statistics and can reset them.
struct SharedProfileTab: Model {
    var node = ModelNode<Self>()
    @Tracked var stats: SharedStats

    init(stats: SharedStats) { self.stats = stats }

    func resetTapped() { stats.reset() }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$stats)
    }
}

enum SharedTab: Sendable, Equatable {
    case counter, profile
}

/// The app: two tabs over one `SharedStats`, which it holds as well.
struct SharedStatsApp: Model {
    var node = ModelNode<Self>()
    @Tracked var currentTab = SharedTab.counter
    @Tracked var counter: SharedCounterTab
    @Tracked var profile: SharedProfileTab
    @Tracked var stats: SharedStats

    init(currentTab: SharedTab = .counter, stats: SharedStats = SharedStats()) {
        self.currentTab = currentTab
        self.counter = SharedCounterTab(stats: stats)
        self.profile = SharedProfileTab(stats: stats)
        self.stats = stats
    }

    func onActivate() {
        node.forEach(change(of: \.currentTab, initial: false)) { _ in
            stats.increment()
        }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$currentTab)
        r.track(\.$counter)
        r.track(\.$profile)
        r.track(\.$stats)
    }
}

func sharedIsPrime(_ p: Int) -> Bool {
    if p <= 1 { return false }
    if p <= 3 { return true }
    var i = 2
    while i * i <= p {
        if p % i == 0 { return false }
        i += 1
    }
    return true
}
