/// The results as a plain-text table, one section per scenario.
///
/// ```
/// scenario / row                      iterations     ns/op  spread  vs baseline  target                met
/// tracked write, no observer
///   ModelKit: m.a = i                  2,000,000      46.1      3%        1.12×  ≤ 2× baseline, ≤ 60 ns  ✓
///   @Observable: o.a = i               2,000,000      41.2      2%     baseline
/// ```
struct Table {
    let results: [Result]

    var rendered: String {
        let header = ["scenario / row", "iterations", "ns/op", "spread", "vs baseline", "target", "met"]
        let rightAligned: Set<Int> = [1, 2, 3, 4]
        var lines: [[String]] = []
        var sectionStarts: [Int: String] = [:]
        let referenced = Set(results.compactMap(\.row.baseline))
        var scenario: String?
        for result in results {
            let row = result.row
            if row.scenario != scenario {
                scenario = row.scenario
                sectionStarts[lines.count] = row.scenario
            }
            lines.append([
                "  " + row.name,
                row.unit == .bytes ? "\(group(row.iterations)) models" : group(row.iterations) + " × \(row.samples.count)",
                formatCell(row.value, row.unit),
                row.samples.count > 1 ? "\(Int((row.spread * 100).rounded()))%" : "",
                result.ratio.map(formatRatio) ?? (referenced.contains(row.name) ? "baseline" : "—"),
                row.target?.description(unit: row.unit) ?? "",
                result.met.map { $0 ? "✓" : "✗" } ?? (row.target == nil ? "" : "n/a"),
            ])
        }
        var widths = header.map(\.count)
        for line in lines {
            for (column, cell) in line.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                rightAligned.contains(column) ? pad(cell, widths[column], left: true) : pad(cell, widths[column], left: false)
            }.joined(separator: "  ")
        }
        var output = [render(header), String(repeating: "─", count: widths.reduce(0, +) + 2 * (widths.count - 1))]
        for (index, line) in lines.enumerated() {
            if let name = sectionStarts[index] { output.append(name) }
            output.append(render(line))
            if let note = results[index].row.note { output.append("      " + note) }
        }
        return output.map { trimTrailingSpaces($0) }.joined(separator: "\n")
    }

    /// `12 of 15 targets met`.
    var verdict: String {
        let judged = results.compactMap(\.met)
        let missed = results.filter { $0.met == false }.map { "\($0.row.scenario) — \($0.row.name)" }
        var text = "\(judged.filter { $0 }.count) of \(judged.count) targets met (informational; timings never fail the run)"
        if !missed.isEmpty { text += "\nmissed:\n" + missed.map { "  ✗ " + $0 }.joined(separator: "\n") }
        return text
    }
}

// MARK: - Formatting

/// A table cell: nanoseconds with a precision that suits their size, or bytes.
func formatCell(_ value: Double, _ unit: Row.Unit) -> String {
    guard value.isFinite else { return "n/a" }
    switch unit {
    case .nanoseconds:
        return value < 100 ? decimal(value, digits: 1) : group(Int(value.rounded()))
    case .bytes:
        return "\(group(Int(value.rounded()))) B/model"
    case .totalBytes:
        return "\(decimal(value / 1e6, digits: 1)) MB"
    case .ratio:
        return decimal(value, digits: 2) + "×"
    }
}

/// A limit in the unit a person would write it in: `30 ns`, `3 µs`, `12 ms`, `400 B`.
func format(_ value: Double, _ unit: Row.Unit) -> String {
    switch unit {
    case .bytes:
        return "\(group(Int(value.rounded()))) B"
    case .totalBytes:
        return "\(compact(value / 1e6)) MB"
    case .ratio:
        return "\(compact(value))×"
    case .nanoseconds:
        if value < 1e3 { return "\(compact(value)) ns" }
        if value < 1e6 { return "\(compact(value / 1e3)) µs" }
        if value < 1e9 { return "\(compact(value / 1e6)) ms" }
        return "\(compact(value / 1e9)) s"
    }
}

/// `1.93×`.
func formatRatio(_ ratio: Double) -> String {
    guard ratio.isFinite else { return "n/a" }
    return decimal(ratio, digits: ratio < 10 ? 2 : 1) + "×"
}

/// `1,234,567`.
func group(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
        result.append(digit)
    }
    return value < 0 ? "-" + result : result
}

/// `value` rounded to `digits` decimals.
func decimal(_ value: Double, digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((abs(value) * scale).rounded())
    let whole = scaled / Int(scale)
    let fraction = String(scaled % Int(scale))
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard digits > 0 else { return sign + group(whole) }
    return sign + group(whole) + "." + String(repeating: "0", count: digits - fraction.count) + fraction
}

/// A number without trailing zeros: `3`, `2.5`, `0.1`.
func compact(_ value: Double) -> String {
    if value == value.rounded() { return group(Int(value)) }
    var text = decimal(value, digits: 2)
    while text.hasSuffix("0") { text.removeLast() }
    return text
}

private func pad(_ text: String, _ width: Int, left: Bool) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return left ? padding + text : text + padding
}

private func trimTrailingSpaces(_ line: String) -> String {
    var line = line
    while line.hasSuffix(" ") { line.removeLast() }
    return line
}
