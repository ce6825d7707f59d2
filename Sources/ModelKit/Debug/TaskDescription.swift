/// How a message names a task at the start of a sentence: `The task "Autosave" of Editor` when it
/// was given a name (`node.task(name:)`), `A task of Editor` otherwise.
package func taskDescription(name: String?, modelType: String) -> String {
    guard let name else { return "A task of \(modelType)" }
    return "The task \"\(name)\" of \(modelType)"
}
