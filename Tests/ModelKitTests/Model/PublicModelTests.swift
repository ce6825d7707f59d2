import ModelKit
import Testing

// A model as a library declares it: every requirement that has to be `public` is. The declarations
// compiling at all is the check (remove one `public` and the build fails naming the requirement);
// the test below uses the model as an app would.

/// A todo item, public for the apps that use the library.
public struct PublicTodo: Model {
    public var node = ModelNode<Self>()
    public let id: Int
    @Tracked public var title: String
    @Tracked public private(set) var isDone = false

    public init(id: Int, title: String) {
        self.id = id
        _title = Tracked(wrappedValue: title)
    }

    public func toggleTapped() { isDone.toggle() }

    public static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$title)
        r.track(\.$isDone)
    }
}

/// A list of todos with its own events.
public struct PublicTodoList: Model {
    public enum Event: Sendable, Equatable {
        case allDone
    }

    public var node = ModelNode<Self>()
    @Tracked public var todos: [PublicTodo] = []
    @Tracked public internal(set) var filter = ""

    public init() {}

    public func onActivate() {
        node.send(.allDone, to: .self)
    }

    public static func register(_ r: inout ModelRegistrar<Self>) {
        r.track(\.$todos)
        r.track(\.$filter, options: .transient)
    }
}

@Suite struct PublicModelTests {
    @Test func aPublicModelWorksAsAnyOther() {
        let list = PublicTodoList().withAnchor()
        let todo = PublicTodo(id: 1, title: "Write docs")
        list.todos.append(todo)
        todo.toggleTapped()
        #expect(todo.lifetime == .anchored)
        #expect(list.todos[0].isDone)
    }
}
