import ModelKit
import Testing

// The models and values the misuse suites (MisuseTests, MisuseConsistencyTests) act on.

struct MisuseItem: Model {
    var node = ModelNode<Self>()
    let id: Int
    @Tracked var count = 0

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
    }
}

struct MisuseList: Model {
    var node = ModelNode<Self>()
    @Tracked var items: [MisuseItem] = []
    @Tracked var single: MisuseItem? = nil
    @Tracked var nested: MisuseList? = nil

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("items", \.$items)
        r.track("single", \.$single)
        r.track("nested", \.$nested)
    }
}

struct MisuseFailure: Error, CustomStringConvertible {
    var description: String { "MisuseFailure(boom)" }
}

enum MisuseKey: DependencyKey {
    static let liveValue = 0
}

/// A model that logs its life, to show that a misuse activates or tears down nothing.
struct MisuseLoggedItem: Model {
    var node = ModelNode<Self>()
    let id: Int
    let log: Log
    @Tracked var count = 0
    @Tracked var kids: [MisuseLoggedItem] = []

    func onActivate() {
        log.add("activate \(id)")
        node.onCancel { [log, id] in log.add("cancel \(id)") }
    }

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
        r.track("kids", \.$kids)
    }
}

#if DEBUG
/// Declares `title` but does not register it.
struct MisuseForgetfulItem: Model {
    var node = ModelNode<Self>()
    @Tracked var count = 0
    @Tracked var title = ""

    static func register(_ r: inout ModelRegistrar<Self>) {
        r.track("count", \.$count)
    }
}
#endif
