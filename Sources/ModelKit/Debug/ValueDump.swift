import Foundation

/// Renders values as readable text for printed changes and test failures: scalars inline, models with
/// their tracked properties, collections and structs across lines when they do not fit on one.
///
/// ```
/// CounterRowModel(counter: CounterModel(alert: nil, count: 1))
/// [
///   [0]: "Blob",
///   [1]: "Blob Jr."
/// ]
/// ```
package enum ValueDump {
    /// The widest a rendering may be before it is split across lines.
    static let lineWidth = 80
    /// Nesting deeper than this is elided.
    static let maxDepth = 12

    package static func render(_ value: Any) -> String {
        render(value, depth: 0)
    }

    /// The value's shape: rendered as by ``render(_:)`` but with each model as `•`, so that two
    /// values whose models differ only in their state (the same children, continued) have one
    /// shape, and values whose keys, cases or other data differ do not.
    package static func shape(of value: Any) -> String {
        render(value, depth: 0, opaqueModels: true)
    }

    private static func render(_ value: Any, depth: Int, opaqueModels: Bool = false) -> String {
        guard depth <= maxDepth else { return "…" }
        if let text = scalar(value) { return text }
        if let model = value as? any Model {
            return opaqueModels ? "•" : renderModel(model, depth: depth)
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first?.value else { return "nil" }
            return render(wrapped, depth: depth, opaqueModels: opaqueModels)
        case .collection, .set:
            let items = mirror.children.enumerated().map { index, child in
                (mirror.displayStyle == .set ? nil : "[\(index)]", render(child.value, depth: depth + 1, opaqueModels: opaqueModels))
            }
            return layout(open: "[", close: "]", items: items, sortItems: mirror.displayStyle == .set)
        case .dictionary:
            let items = mirror.children.map { child -> (String?, String) in
                let pair = Mirror(reflecting: child.value).children.map(\.value)
                guard pair.count == 2 else { return (nil, render(child.value, depth: depth + 1, opaqueModels: opaqueModels)) }
                return ("[\(render(pair[0], depth: depth + 1, opaqueModels: opaqueModels))]", render(pair[1], depth: depth + 1, opaqueModels: opaqueModels))
            }
            return layout(open: "[", close: "]", items: items, sortItems: true, emptyText: "[:]")
        case .enum:
            let name = caseName(of: value)
            guard let payload = mirror.children.first else { return ".\(name)" }
            let payloadMirror = Mirror(reflecting: payload.value)
            if payloadMirror.displayStyle == .tuple {
                let items = payloadMirror.children.map { ($0.label.flatMap(tupleLabel), render($0.value, depth: depth + 1, opaqueModels: opaqueModels)) }
                return ".\(name)" + layout(open: "(", close: ")", items: items)
            }
            return ".\(name)" + layout(open: "(", close: ")", items: [(nil, render(payload.value, depth: depth + 1, opaqueModels: opaqueModels))])
        case .tuple:
            let items = mirror.children.map { ($0.label.flatMap(tupleLabel), render($0.value, depth: depth + 1, opaqueModels: opaqueModels)) }
            return layout(open: "(", close: ")", items: items)
        case .struct, .class:
            let items = mirror.children.map { ($0.label, render($0.value, depth: depth + 1, opaqueModels: opaqueModels)) }
            return typeName(type(of: value)) + layout(open: "(", close: ")", items: items)
        default:
            return String(describing: value)
        }
    }

    private static func scalar(_ value: Any) -> String? {
        switch value {
        case let string as String: return quoted(string)
        case let string as Substring: return quoted(String(string))
        case let character as Character: return quoted(String(character))
        case let bool as Bool: return bool ? "true" : "false"
        case let number as any BinaryInteger: return "\(number)"
        case let number as any BinaryFloatingPoint: return "\(number)"
        case let duration as Duration: return duration.description
        case let date as Date: return "Date(\(date.formatted(.iso8601)))"
        case let uuid as UUID: return "UUID(\(uuid.uuidString))"
        case let url as URL: return "URL(\(url.absoluteString))"
        case let data as Data: return "Data(\(data.count) bytes)"
        case let id as ModelID: return id.description
        default: break
        }
        let type = type(of: value)
        if "\(type)".contains("->") { return "(Function)" }
        return nil
    }

    /// Quotes a string on one line. Scalars, not characters: `"\r\n"` is one `Character`, which
    /// would otherwise keep its line break.
    private static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            default:
                if scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}" {
                    result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    private static func renderModel<M: Model>(_ model: M, depth: Int) -> String {
        let schema = Schema<M>.shared(model)
        var items: [(String?, String)] = []
        for property in schema.properties {
            items.append((property.name, render(property.cellOf(model).lockedAnyValue(), depth: depth + 1)))
        }
        // Plain stored properties (callbacks, constants) other than the node and tracked storage.
        for child in Mirror(reflecting: model).children {
            guard let label = child.label, label != "node", !(child.value is any AnyTracked) else { continue }
            items.append((label, render(child.value, depth: depth + 1)))
        }
        items.sort { ($0.0 ?? "") < ($1.0 ?? "") }
        return typeName(M.self) + layout(open: "(", close: ")", items: items)
    }

    /// Joins items on one line if they fit, else one per line, indented.
    private static func layout(
        open: String, close: String, items: [(String?, String)], sortItems: Bool = false, emptyText: String? = nil
    ) -> String {
        guard !items.isEmpty else { return emptyText ?? open + close }
        var items = items
        if sortItems { items.sort { ($0.0 ?? $0.1) < ($1.0 ?? $1.1) } }
        let rendered = items.map { label, text in label.map { "\($0): \(text)" } ?? text }
        let inline = open + rendered.joined(separator: ", ") + close
        if inline.count <= lineWidth && !inline.contains("\n") {
            return inline
        }
        let body = rendered.map { "  " + $0.replacingOccurrences(of: "\n", with: "\n  ") }.joined(separator: ",\n")
        return "\(open)\n\(body)\n\(close)"
    }

    private static func tupleLabel(_ label: String) -> String? {
        label.hasPrefix(".") ? nil : label
    }

    /// The case's name. A case without a payload has no mirror child to name it, and its
    /// `description` may be anything (one text for every case), so the name comes from the
    /// runtime's reflection metadata, as the standard library's own printing gets it.
    private static func caseName(of value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        if let label = mirror.children.first?.label { return label }
        if let name = runtimeCaseName(of: value) { return name }
        let text = String(describing: value)
        return text.split(separator: "(").first.map(String.init) ?? text
    }

    /// The case name recorded in the enum's reflection metadata; nil when it was stripped.
    private static func runtimeCaseName(of value: Any) -> String? {
        func name<T>(_ value: T) -> String? {
            enumCaseName(value).map { String(cString: $0) }
        }
        return _openExistential(value, do: name)
    }
}

/// The standard library's entry point for an enum value's case name (what `print` shows for an enum
/// without a `description`).
@_silgen_name("swift_EnumCaseName")
private func enumCaseName<T>(_ value: T) -> UnsafePointer<CChar>?

extension AnyCell {
    /// The value, read under whichever lock guards the cell (re-entrant on a held section).
    final func lockedAnyValue() -> Any {
        if let context = boundContext {
            return context.lock.withShortLock { anyValue }
        }
        if let target = unboundLock.withShortLock({ forwardTarget }) {
            return target.lockedAnyValue()
        }
        return unboundLock.withShortLock { anyValue }
    }
}
