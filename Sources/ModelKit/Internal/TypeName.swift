/// The name messages show for a type: `AppModel`, `CounterModel.Alert`, without the module prefix.
package func typeName(_ type: Any.Type) -> String {
    let qualified = String(reflecting: type)
    guard !qualified.contains("<"), !qualified.contains("("), let dot = qualified.firstIndex(of: ".") else {
        return String(describing: type)
    }
    return String(qualified[qualified.index(after: dot)...])
}
