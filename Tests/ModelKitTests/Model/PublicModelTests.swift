import ModelKit
import Testing

// A model as a library declares it, as in Documentation/Models.md ("A model in a library"): every
// requirement that has to be `public` is. The declarations compiling at all is the check (remove
// one `public` and the build fails naming the requirement); the test uses the models as an app would.

public struct PublicTodo: Model {
    public enum Event: Sendable, Equatable {
        case toggled
    }

    public var node = ModelNode<Self>()
    public let id: Int
    @Tracked public var title: String
    @Tracked public private(set) var isDone = false

    public init(id: Int, title: String) {
        self.id = id
        _title = Tracked(wrappedValue: title)
    }

    public func toggleTapped() {
        isDone.toggle()
        node.send(.toggled)
    }

    public static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$isDone)
    }
}

public struct PublicTodoList: Model {
    public enum Event: Sendable, Equatable {
        case allDone
    }

    public var node = ModelNode<Self>()
    @Tracked public var todos: [PublicTodo] = []
    @Tracked public private(set) var filter = ""

    public init() {}

    public func onActivate() {
        node.forEach(node.event(fromType: PublicTodo.self)) { event, _ in
            if event == .toggled, todos.allSatisfy(\.isDone) { node.send(.allDone) }
        }
    }

    public static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$todos)
        r.track(\.$filter, options: .transient)
    }
}

@Suite struct PublicModelTests {
    @Test func aPublicModelWorksAsAnyOther() async {
        let list = PublicTodoList().withAnchor()
        let allDone = list.node.event(of: PublicTodoList.Event.allDone)
        let todo = PublicTodo(id: 1, title: "Write docs")
        list.todos.append(todo)
        todo.toggleTapped()
        #expect(todo.lifetime == .anchored)
        #expect(list.todos[0].isDone)
        var events = allDone.makeAsyncIterator()
        #expect(await events.next() != nil)
    }
}
