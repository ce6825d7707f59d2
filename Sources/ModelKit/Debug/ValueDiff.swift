/// Describes a change of a value as text: `path: old → new` when both fit on a line, else a line diff
/// with `-` for removed and `+` for added lines.
///
/// ```
/// AppModel.counters[0].counter.count: 0 → 1
/// AppModel.standup:
///   Standup(
/// -   title: "Design",
/// +   title: "Blob",
///     …
///   )
/// ```
package enum ValueDiff {
    package static func describe(path: String, old: Any, new: Any) -> String {
        describe(path: path, oldText: ValueDump.render(old), newText: ValueDump.render(new))
    }

    package static func describe(path: String, oldText: String, newText: String) -> String {
        if !oldText.contains("\n") && !newText.contains("\n") {
            return "\(path): \(oldText) → \(newText)"
        }
        return "\(path):\n" + lines(old: oldText, new: newText).joined(separator: "\n")
    }

    /// A line diff: unchanged lines prefixed with two spaces, removed with `- `, added with `+ `.
    package static func lines(old: String, new: String) -> [String] {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard a.count * b.count <= 250_000 else {
            return a.map { "- " + $0 } + b.map { "+ " + $0 }
        }
        // Longest common subsequence table, from the end.
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var result: [String] = []
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if i < a.count && j < b.count && a[i] == b[j] {
                result.append("  " + a[i])
                i += 1
                j += 1
            } else if i < a.count && (j == b.count || table[i + 1][j] >= table[i][j + 1]) {
                result.append("- " + a[i])
                i += 1
            } else {
                result.append("+ " + b[j])
                j += 1
            }
        }
        return result
    }
}
