import ModelKit

/// The root of a tester whose model could not be anchored (already anchored, removed, a frozen
/// copy): the tester gets a hierarchy of its own, and the model is left where it is.
struct PlaceholderRoot: Model {
    var node = ModelNode<Self>()

    static func register(_ r: inout ModelRegistrar<Self>) {}
}
