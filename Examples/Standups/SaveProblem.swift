import Foundation

/// Why the standups were not saved: ``AppFeature/saveProblem`` holds it until a save succeeds, and
/// ``AppFeature/saveChanges()`` throws it.
///
/// ```swift
/// if let problem = app.saveProblem {
///     print(problem)               // Couldn't save your standups to /data/standups.json: Permission denied.
///     print(problem.consequence)   // Your changes are kept in memory; …
/// }
/// ```
struct SaveProblem: Error, Hashable, Sendable, CustomStringConvertible {
    enum Reason: Hashable, Sendable {
        /// Writing failed (an unwritable folder, a full disk…): why, in words.
        case writeFailed(String)
        /// The file holds standups that cannot be used, so nothing was written over it.
        case fileKept(StandupsFile.Problem)
    }

    /// The file the standups were to be saved to.
    let file: URL
    let reason: Reason

    /// What happened, in a sentence.
    var description: String {
        switch reason {
        case .writeFailed(let why):
            "Couldn't save your standups to \(file.path): \(why.withoutFinalPeriod)."
        case .fileKept(let problem):
            "Didn't save your standups: \(problem.explanation(of: file)), so it was left untouched."
        }
    }

    /// What it means for the changes not saved, in a sentence.
    var consequence: String {
        switch reason {
        case .writeFailed:
            "Your changes are kept in memory; saving is tried again at your next change."
        case .fileKept:
            "Your changes are kept in memory only: move that file away, and your next change saves them."
        }
    }
}

private extension String {
    var withoutFinalPeriod: Substring {
        hasSuffix(".") ? dropLast() : self[...]
    }
}
