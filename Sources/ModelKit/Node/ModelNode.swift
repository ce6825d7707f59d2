/// A model's handle to its place in the hierarchy: dependencies, tasks, events, cancellation and
/// transactions.
///
/// `ModelNode` is for the model's author, not for the model's callers: a model declares
/// `var node = ModelNode<Self>()` and uses it inside its own methods.
///
/// ```swift
/// struct CounterModel: Model {
///     var node = ModelNode<Self>()
///     @Tracked var count = 0
///     @Tracked var fact: String?
///
///     func factButtonTapped() {
///         node.task {
///             fact = try await node.factClient.fetch(count)   // a dependency
///         } catch: { _ in
///             fact = nil
///         }
///     }
///
///     static func register(_ r: inout ModelRegistrar<Self>) {
///         r.track("count", \.$count)
///         r.track("fact", \.$fact)
///     }
/// }
/// ```
///
/// Why a node instead of free functions: a model is a struct, copied freely, and every copy must
/// reach the same live context. The node carries that shared identity. It is a `var` only so that
/// ``Model/withAnchor()`` can mark the copy it returns as the one that keeps the hierarchy alive.
///
/// - Note: Node APIs work once the model is anchored. Using them on an initial model reports a
///   runtime warning (a test failure under a Tester) and does nothing.
@dynamicMemberLookup
public struct ModelNode<M: Model>: Sendable {
    /// One word: the instance's box, or (in the copies `withAnchor` returns) the anchor that keeps
    /// the hierarchy alive, which refers to the box.
    @usableFromInline var reference: Reference

    @usableFromInline
    enum Reference: Sendable {
        case plain(NodeBox)
        case anchoring(Anchor)
    }

    /// Creates the node of a new model instance.
    public init() {
        reference = .plain(NodeBox())
    }

    init(box: NodeBox) {
        reference = .plain(box)
    }

    @inlinable
    var box: NodeBox {
        switch reference {
        case .plain(let box): box
        case .anchoring(let anchor): anchor.box
        }
    }

    /// The box, without a retain: for identity checks while the model is known to be alive.
    @inlinable
    var unretainedBox: Unmanaged<NodeBox> {
        switch reference {
        case .plain(let box): Unmanaged.passUnretained(box)
        case .anchoring(let anchor): Unmanaged.passUnretained(anchor.box)
        }
    }

    /// Makes this copy one that keeps the hierarchy alive.
    @inlinable
    mutating func hold(_ anchor: Anchor) {
        reference = .anchoring(anchor)
    }

    /// The model's context, or a report naming `api` when the model is not anchored.
    @usableFromInline
    func context(
        for api: @autoclosure () -> String, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt,
        consequence: @autoclosure () -> String = "nothing happened"
    ) -> Context? {
        if let context = box.context {
            return context
        }
        let name = typeName(M.self)
        reportIssue(ModelIssue(
            "\(name).node.\(api()) was used on a \(name) that is not anchored; \(consequence()).",
            fixes: [
                "Anchor the root model first (`withAnchor()`, or `andTester()` in tests), and call this from the model's methods or `onActivate`.",
                "To configure a model before it is anchored, use `withDependencies` or `withActivation`.",
            ],
            fileID: fileID, filePath: filePath, line: line, column: column
        ))
        return nil
    }

    /// The model's context when anchored, without reporting.
    @usableFromInline
    var anchoredContext: Context? {
        unretainedBox._withUnsafeGuaranteedRef { $0.context }
    }
}
