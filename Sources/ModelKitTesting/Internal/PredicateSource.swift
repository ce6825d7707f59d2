import Foundation
import ModelKit

/// The source text of an assertion's predicates, read from the test's file at the call's line, for
/// failure messages. Nil whenever the text cannot be matched to the predicates with certainty (the
/// file is not readable, a builder uses `if` or `for`, a multi-line string literal): the message then
/// numbers the predicates instead.
enum PredicateSource {
    private static let files = Protected<[String: [Substring]?]>([:])

    /// The text of each predicate of the `assert` (or `unwrap`) called at `location`, `count` of them.
    static func predicates(at location: SourceLocation, count: Int) -> [String]? {
        guard let text = text(from: location), let call = callArguments(in: text, column: Int(location.column)) else {
            return nil
        }
        var predicates: [String]
        if let builder = call.builder {
            guard let statements = statements(in: builder) else { return nil }
            predicates = statements
        } else if let first = splitTopLevel(call.arguments, separator: ",").first(where: { !isLabelled($0) }) {
            predicates = [first]
        } else {
            return nil
        }
        predicates = predicates.map(normalized)
        return predicates.count == count && !predicates.contains(where: \.isEmpty) ? predicates : nil
    }

    /// The expected side of a predicate that is one top-level `==` comparison (`["Bread"]` in
    /// `list.todos.map(\.title) == ["Bread"]`), as written.
    static func expectedSide(of predicate: String) -> String? {
        let scanner = SourceScanner(predicate)
        var equalities: [String.Index] = []
        var hasOtherOperator = false
        scanner.scanTopLevel { index in
            let rest = predicate[index...]
            if rest.hasPrefix("===") || rest.hasPrefix("!==") {
                hasOtherOperator = true
                return 3
            }
            if rest.hasPrefix("==") {
                equalities.append(index)
                return 2
            }
            if rest.hasPrefix("&&") || rest.hasPrefix("||") || rest.hasPrefix("? ") || rest.hasPrefix("!=") {
                hasOtherOperator = true
            }
            return 1
        }
        guard equalities.count == 1, !hasOtherOperator, scanner.isBalanced else { return nil }
        let rhs = predicate[predicate.index(equalities[0], offsetBy: 2)...].trimmingCharacters(in: .whitespaces)
        return rhs.isEmpty ? nil : rhs
    }

    // MARK: Reading the call

    /// The source from the call's line on (at most 200 lines), or nil if the file is not readable.
    private static func text(from location: SourceLocation) -> String? {
        let path = location.filePath
        let lines = files.withLock { $0[path] } ?? {
            let read = (try? String(contentsOfFile: path, encoding: .utf8)).map { $0.split(separator: "\n", omittingEmptySubsequences: false) }
            files.withLock { $0[path] = read }
            return read
        }()
        guard let lines, location.line >= 1, Int(location.line) <= lines.count else { return nil }
        let first = Int(location.line) - 1
        return lines[first..<min(lines.count, first + 200)].joined(separator: "\n")
    }

    private struct Call {
        /// The text between the parentheses of the call, if it has any.
        var arguments: String
        /// The body of the trailing closure (the assertion builder), if any.
        var builder: String?
    }

    /// The arguments and trailing closure of the `assert` or `unwrap` call on the first line that
    /// `column` points at: a call's `#column` is where its arguments start, just after its name, so
    /// this is the last such name ending before it (the first one if none does).
    private static func callArguments(in text: String, column: Int) -> Call? {
        let firstLine = text.prefix { $0 != "\n" }
        var names: [Range<Substring.Index>] = []
        for name in [".assert", ".unwrap"] {
            var start = firstLine.startIndex
            while let found = firstLine.range(of: name, range: start..<firstLine.endIndex) {
                names.append(found)
                start = found.upperBound
            }
        }
        names.sort { $0.lowerBound < $1.lowerBound }
        let before = names.last { firstLine.utf8.distance(from: firstLine.startIndex, to: $0.upperBound) < column }
        guard let name = before ?? names.first else { return nil }
        var index = name.upperBound
        var call = Call(arguments: "")
        skipSpaces(text, &index, newlines: false)
        if index < text.endIndex, text[index] == "(" {
            guard let close = SourceScanner(text).matchingClose(from: index) else { return nil }
            call.arguments = String(text[text.index(after: index)..<close])
            index = text.index(after: close)
            skipSpaces(text, &index, newlines: false)
        }
        if index < text.endIndex, text[index] == "{" {
            guard let close = SourceScanner(text).matchingClose(from: index) else { return nil }
            call.builder = String(text[text.index(after: index)..<close])
        }
        return call
    }

    /// The statements of a builder body, one per predicate; nil if it has control flow or
    /// declarations, whose predicates cannot be matched to lines.
    private static func statements(in body: String) -> [String]? {
        var statements: [String] = []
        for line in splitTopLevel(body, separator: "\n") {
            for statement in splitTopLevel(line, separator: ";") {
                let trimmed = normalized(statement)
                guard !trimmed.isEmpty else { continue }
                let startsWithOperator = [".", "&&", "||", "==", "!=", "?", ":", "+", "*", "/", "<", ">"]
                    .contains { trimmed.hasPrefix($0) && !trimmed.hasPrefix("...") }
                if let last = statements.last, startsWithOperator || endsWithOperator(last) {
                    statements[statements.count - 1] = last + " " + trimmed
                } else {
                    statements.append(trimmed)
                }
            }
        }
        let controlFlow = ["if ", "for ", "switch ", "let ", "var ", "guard ", "#if", "while ", "do "]
        if statements.contains(where: { statement in controlFlow.contains { statement.hasPrefix($0) } }) {
            return nil
        }
        return statements
    }

    private static func endsWithOperator(_ text: String) -> Bool {
        ["&&", "||", "==", "!=", "+", "-", "*", "/", "(", "[", ",", "<", ">", "?", ":"].contains { text.hasSuffix($0) }
    }

    /// `timeout: .seconds(1)`: a labelled argument.
    private static func isLabelled(_ argument: String) -> Bool {
        let trimmed = argument.drop { $0 == " " || $0 == "\n" }
        let label = trimmed.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        guard !label.isEmpty, let first = label.first, !first.isNumber else { return false }
        return trimmed.dropFirst(label.count).drop { $0 == " " }.first == ":"
    }

    /// One line, without comments and repeated spaces.
    private static func normalized(_ text: String) -> String {
        var result = ""
        let scanner = SourceScanner(text)
        var lastWasSpace = false
        scanner.scanAll { index, inCode in
            let character = text[index] == "\n" ? " " : text[index]
            if inCode && character == " " {
                if !lastWasSpace && !result.isEmpty { result.append(" ") }
                lastWasSpace = true
            } else {
                result.append(character)
                lastWasSpace = false
            }
        }
        return result.trimmingCharacters(in: .whitespaces)
    }

    private static func splitTopLevel(_ text: String, separator: Character) -> [String] {
        var parts: [String] = []
        var start = text.startIndex
        SourceScanner(text).scanTopLevel { index in
            if text[index] == separator {
                parts.append(String(text[start..<index]))
                start = text.index(after: index)
            }
            return 1
        }
        parts.append(String(text[start...]))
        return parts
    }

    private static func skipSpaces(_ text: String, _ index: inout String.Index, newlines: Bool) {
        while index < text.endIndex, text[index] == " " || (newlines && text[index] == "\n") {
            index = text.index(after: index)
        }
    }
}

/// Walks Swift source telling code from string literals and comments, and tracking bracket depth.
/// A multi-line string literal makes it give up (``isBalanced`` is false).
final class SourceScanner {
    private enum Mode {
        case code
        case string
        case interpolation(depth: Int)
    }

    private let text: String
    private(set) var isBalanced = true

    init(_ text: String) {
        self.text = text
    }

    /// Visits every character outside comments, saying whether it is code (outside string literals).
    func scanAll(_ visit: (String.Index, _ inCode: Bool) -> Void) {
        walk { index, mode, _ in
            if case .code = mode {
                visit(index, true)
            } else {
                visit(index, false)
            }
            return .next
        }
    }

    /// Visits the code characters outside any bracket (brackets excluded); the visitor returns how
    /// many characters to move on.
    func scanTopLevel(_ visit: (String.Index) -> Int) {
        var skip = 0
        walk { index, mode, depth in
            if skip > 0 {
                skip -= 1
                return .next
            }
            guard case .code = mode, depth == 0, !"([{)]}".contains(text[index]) else { return .next }
            skip = max(visit(index), 1) - 1
            return .next
        }
    }

    /// The index of the bracket closing the one at `open`.
    func matchingClose(from open: String.Index) -> String.Index? {
        var result: String.Index?
        let start = open
        walk(from: start) { index, mode, depth in
            guard result == nil, case .code = mode else { return .next }
            if depth == 0 && index != start && ")]}".contains(text[index]) {
                result = index
                return .stop
            }
            return .next
        }
        return isBalanced ? result : nil
    }

    private enum WalkStep {
        case next
        case stop
    }

    /// Calls `visit` with each index, its mode and the bracket depth of code (after a closing bracket
    /// is applied, before an opening one is).
    private func walk(from start: String.Index? = nil, _ visit: (String.Index, Mode, Int) -> WalkStep) {
        var index = start ?? text.startIndex
        var modes: [Mode] = [.code]
        var depth = 0
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            switch modes[modes.count - 1] {
            case .string:
                if character == "\\", next < text.endIndex {
                    if text[next] == "(" {
                        modes.append(.interpolation(depth: 1))
                    }
                    _ = visit(index, .string, depth)
                    _ = visit(next, .string, depth)
                    index = text.index(after: next)
                    continue
                }
                if character == "\"" { modes.removeLast() }
                _ = visit(index, .string, depth)
            case .interpolation(let nested):
                if character == "(" { modes[modes.count - 1] = .interpolation(depth: nested + 1) }
                if character == ")" {
                    modes[modes.count - 1] = .interpolation(depth: nested - 1)
                    if nested - 1 == 0 { modes.removeLast() }
                }
                if character == "\"" { modes.append(.string) }
                _ = visit(index, .string, depth)
            case .code:
                if text[index...].hasPrefix("//") {
                    index = text[index...].firstIndex(of: "\n") ?? text.endIndex
                    continue
                }
                if text[index...].hasPrefix("/*") {
                    guard let end = text[index...].range(of: "*/") else { return }
                    index = end.upperBound
                    continue
                }
                if character == "\"" {
                    if text[index...].hasPrefix("\"\"\"") {
                        isBalanced = false
                        return
                    }
                    _ = visit(index, .code, depth)
                    modes.append(.string)
                    index = next
                    continue
                }
                if ")]}".contains(character) { depth -= 1 }
                if depth < 0 { return }
                if visit(index, .code, depth) == .stop { return }
                if "([{".contains(character) { depth += 1 }
            }
            index = next
        }
        if depth != 0 || modes.count != 1 { isBalanced = false }
    }
}
