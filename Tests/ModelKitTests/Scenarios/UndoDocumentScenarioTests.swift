@testable import ModelKit
import ModelKitTesting
import Testing

// The document editor of UndoDocumentModels.swift: 5,000 paragraphs in 50 sections, each with
// undoable text and style, typed into word by word, moved between sections, refreshed from disk,
// removed and brought back, undone and redone inside transactions, from other threads, under a
// Tester and while printing changes.

/// The number of entries on the stack's undo and redo sides.
private func depth(_ stack: ModelUndoStack) -> (undo: Int, redo: Int) {
    guard let hierarchy = stack.hierarchy else { return (0, 0) }
    return hierarchy.lock.withShortLock { (stack.history.undoCount, stack.history.redoCount) }
}

/// The number of removed models undo keeps a copy of, to bring them back.
private func keptRevivals(of model: some Model) -> Int {
    guard let hierarchy = model.hierarchy else { return 0 }
    return hierarchy.lock.withShortLock { hierarchy.undo?.revivals.count ?? 0 }
}

@Suite struct UndoDocumentScenarioTests {
    @Test func typingIsOneUndoStepPerWord() {
        let document = UndoDocument.large(sections: 50, paragraphs: 5_000).withAnchor()
        let stack = document.node.undoStack
        let paragraph = document.sections[3].paragraphs[7]
        #expect(paragraph.id == 307)
        for character in " hel" { paragraph.typed(character) }
        // The space committed a word of its own; the letters after it wait in the transient buffer.
        #expect(paragraph.text == "p307 " && paragraph.shownText == "p307 hel")
        #expect(depth(stack) == (1, 0))
        for character in "lo world" { paragraph.typed(character) }
        paragraph.endTyping()
        #expect(paragraph.text == "p307 hello world" && paragraph.pendingWord == "")
        #expect(depth(stack) == (3, 0))

        stack.undo()
        #expect(paragraph.text == "p307 hello ")
        stack.undo()
        #expect(paragraph.text == "p307 ")
        stack.redo()
        #expect(paragraph.text == "p307 hello ")
        #expect(depth(stack) == (2, 1))
        // Typing after an undo commits a new word, which clears redo.
        for character in "there" { paragraph.typed(character) }
        #expect(depth(stack) == (2, 1))
        paragraph.endTyping()
        #expect(paragraph.text == "p307 hello there" && depth(stack) == (3, 0) && !stack.canRedo)
        // Undo leaves a pending word alone: it stays after the restored text.
        for character in "xy" { paragraph.typed(character) }
        stack.undo()
        #expect(paragraph.text == "p307 hello " && paragraph.shownText == "p307 hello xy")
    }

    @Test func aParagraphMovedBetweenSectionsKeepsItsHandleAndItsHistory() {
        let document = UndoDocument.large(sections: 50, paragraphs: 5_000).withAnchor()
        let stack = document.node.undoStack
        let paragraph = document.sections[0].paragraphs[5]
        paragraph.text = "edited"
        document.moveParagraph(at: 5, from: 0, to: 1, at: 0)
        // Moved in one transaction: the same model, not torn down, one entry for the move.
        #expect(document.sections[0].paragraphs.count == 99 && document.sections[1].paragraphs.count == 101)
        #expect(document.sections[1].paragraphs[0].id == 5 && paragraph.lifetime == .anchored)
        #expect(depth(stack) == (2, 0) && keptRevivals(of: document) == 0)

        stack.undo()
        #expect(document.sections[0].paragraphs[5].id == 5 && document.sections[1].paragraphs[0].id == 100)
        #expect(paragraph.lifetime == .anchored && paragraph.text == "edited")
        stack.undo()
        #expect(paragraph.text == "p5")
        stack.redo()
        stack.redo()
        #expect(document.sections[1].paragraphs[0].id == 5 && paragraph.text == "edited")
        #expect(paragraph.lifetime == .anchored && depth(stack) == (2, 0))
    }

    @Test func aRefreshFromDiskIsUndoneBeforeTheUsersEdit() {
        let document = UndoDocument.large(sections: 2, paragraphs: 10).withAnchor()
        let stack = document.node.undoStack
        let paragraph = document.sections[0].paragraphs[1]
        paragraph.text = "mine"
        // The file changed on disk: the same ids with new values, continuing the live paragraphs.
        document.sections = [
            UndoDocSection(id: 0, title: "S0 on disk", paragraphs: (0..<5).map { UndoDocParagraph(id: $0, text: "disk\($0)") }),
            UndoDocSection(id: 1, title: "S1", paragraphs: (5..<10).map { UndoDocParagraph(id: $0, text: "disk\($0)") }),
        ]
        #expect(paragraph.lifetime == .anchored && paragraph.text == "disk1")
        #expect(document.sections[0].title == "S0 on disk" && depth(stack) == (2, 0))

        stack.undo()
        #expect(paragraph.text == "mine" && document.sections[0].title == "S0")
        #expect(document.sections[1].paragraphs.map(\.text) == ["p5", "p6", "p7", "p8", "p9"])
        stack.undo()
        #expect(paragraph.text == "p1" && !stack.canUndo)
        stack.redo()
        stack.redo()
        #expect(paragraph.text == "disk1" && document.sections[0].title == "S0 on disk")
        #expect(paragraph.lifetime == .anchored)
    }

    @Test func aRemovedParagraphComesBackWithItsEditsUndoable() {
        let document = UndoDocument.large(sections: 2, paragraphs: 10).withAnchor()
        let stack = document.node.undoStack
        let paragraph = document.sections[0].paragraphs[2]
        paragraph.text = "edited"
        paragraph.style = .heading
        document.sections[0].paragraphs.remove(at: 2)
        #expect(paragraph.lifetime == .destructed && depth(stack) == (3, 0) && keptRevivals(of: document) == 1)

        stack.undo()
        let back = document.sections[0].paragraphs[2]
        #expect(back.id == 2 && back.text == "edited" && back.style == .heading)
        #expect(back.lifetime == .anchored && paragraph.lifetime == .destructed)
        // The edits recorded on the removed paragraph apply to the one that came back.
        stack.undo()
        #expect(back.style == .body && back.text == "edited")
        stack.undo()
        #expect(back.text == "p2" && !stack.canUndo)

        // A whole section removed comes back with its paragraphs, and goes again on redo.
        document.sections.remove(at: 0)
        #expect(document.sections.map(\.id) == [1] && !stack.canRedo)
        stack.undo()
        #expect(document.sections.map(\.id) == [0, 1])
        #expect(document.sections[0].paragraphs.map(\.text) == ["p0", "p1", "p2", "p3", "p4"])
        stack.redo()
        #expect(document.sections.map(\.id) == [1])
    }

    @Test func undoAndRedoInsideATransaction() {
        let document = UndoDocument.large(sections: 2, paragraphs: 10).withAnchor()
        let stack = document.node.undoStack
        let paragraph = document.sections[0].paragraphs[0]
        paragraph.text = "one"
        paragraph.text = "two"
        // Undo and redo inside a transaction apply at once and record nothing of their own.
        document.node.transaction {
            stack.undo()
            #expect(paragraph.text == "one")
            stack.undo()
            #expect(paragraph.text == "p0")
            stack.redo()
        }
        #expect(paragraph.text == "one" && depth(stack) == (1, 1))

        // An undo inside a transaction undoes the last entry pushed, not the transaction's own
        // writes: the text written before it is overwritten by the restore and left unrecorded, the
        // style written is recorded and its entry clears redo.
        document.node.transaction {
            paragraph.text = "three"
            paragraph.style = .quote
            stack.undo()
            #expect(paragraph.text == "p0" && paragraph.style == .quote)
        }
        #expect(paragraph.text == "p0" && paragraph.style == .quote && depth(stack) == (1, 0))
        stack.undo()
        #expect(paragraph.style == .body && paragraph.text == "p0" && !stack.canUndo)
    }

    @Test func theStackKeepsItsLimitAndReleasesRemovedParagraphsWithTheirEntries() {
        let document = UndoDocument.large(sections: 2, paragraphs: 10).withAnchor {
            $0.undoStack = ModelUndoStack(limit: 3)
        }
        let stack = document.node.undoStack
        document.sections[0].paragraphs.removeFirst()
        document.sections[0].paragraphs.removeFirst()
        #expect(keptRevivals(of: document) == 2)
        for word in ["a", "b", "c"] { document.sections[1].paragraphs[0].text = word }
        // Both removals fell off the stack: their copies went with them.
        #expect(depth(stack) == (3, 0) && keptRevivals(of: document) == 0)
        for _ in 0..<5 { stack.undo() }
        #expect(document.sections[1].paragraphs[0].text == "p5" && document.sections[0].paragraphs.count == 3)
    }

    @Test func undoWhileAParagraphsTaskWritesToIt() async {
        let document = UndoDocument.large(sections: 2, paragraphs: 10).withAnchor()
        let stack = document.node.undoStack
        let paragraph = document.sections[0].paragraphs[0]
        for character in " teh" { paragraph.typed(character) }
        paragraph.endTyping()
        let gate = Gate()
        let log = Log()
        paragraph.autocorrect(waitingFor: gate, log: log)
        #expect(await log.waitFor("checking 0"))
        // The transient mark is not undone; the typing is.
        stack.undo()
        #expect(paragraph.text == "p0 " && paragraph.isSaving && depth(stack) == (1, 1))
        stack.redo()
        #expect(paragraph.text == "p0 teh" && paragraph.isSaving)
        gate.open()
        #expect(await log.waitFor("corrected 0"))
        // The task's correction is a commit of its own: undoable, and it cleared nothing to redo.
        #expect(paragraph.text == "p0 the" && !paragraph.isSaving && depth(stack) == (3, 0))
        stack.undo()
        #expect(paragraph.text == "p0 teh")

        // A paragraph removed while its task waits: the task is cancelled; undo brings the
        // paragraph back as it was, still marked saving, with no task to clear the mark.
        let second = document.sections[0].paragraphs[1]
        let secondGate = Gate()
        second.autocorrect(waitingFor: secondGate, log: log)
        #expect(await log.waitFor("checking 1"))
        document.sections[0].paragraphs.remove(at: 1)
        secondGate.open()
        #expect(await log.waitFor("cancelled 1"))
        stack.undo()
        let back = document.sections[0].paragraphs[1]
        #expect(back.id == 1 && back.lifetime == .anchored && back.isSaving && back.text == "p1")
    }

    @Test func undoFromOtherThreadsAppliesEachEntryOnce() async {
        let document = UndoDocument.large(sections: 2, paragraphs: 10).withAnchor()
        let stack = document.node.undoStack
        let paragraph = document.sections[0].paragraphs[0]
        for index in 0..<1_000 { paragraph.text = "\(index)" }
        #expect(depth(stack) == (100, 0))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<20 { stack.undo() } }
            }
        }
        #expect(paragraph.text == "919" && depth(stack) == (20, 80))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<10 { stack.redo() } }
            }
        }
        #expect(paragraph.text == "959" && depth(stack) == (60, 40))
    }

    @Test func printingChangesShowsWhatUndoRestores() {
        let document = UndoDocument.large(sections: 1, paragraphs: 3).withAnchor()
        let stack = document.node.undoStack
        let lines = Locked<[String]>([])
        let printing = document._printChanges { line in lines.withLock { $0.append(line) } }
        document.sections[0].paragraphs[1].text = "x"
        document.sections[0].paragraphs.remove(at: 0)
        stack.undo()
        stack.undo()
        printing.cancel()
        // Restores print like any change, with the stack's flags; an array of children prints as a
        // line diff of its elements, which an insertion or removal shifts.
        let removed = [
            "UndoDocument.sections[0].paragraphs:",
            "  [",
            "-   [0]: UndoDocParagraph(id: 0, isSaving: false, pendingWord: \"\", style: .body, text: \"p0\"),",
            "-   [1]: UndoDocParagraph(id: 1, isSaving: false, pendingWord: \"\", style: .body, text: \"x\"),",
            "-   [2]: UndoDocParagraph(id: 2, isSaving: false, pendingWord: \"\", style: .body, text: \"p2\")",
            "+   [0]: UndoDocParagraph(id: 1, isSaving: false, pendingWord: \"\", style: .body, text: \"x\"),",
            "+   [1]: UndoDocParagraph(id: 2, isSaving: false, pendingWord: \"\", style: .body, text: \"p2\")",
            "  ]",
        ]
        let restored = [
            "UndoDocument.sections[0].paragraphs:",
            "  [",
            "-   [0]: UndoDocParagraph(id: 1, isSaving: false, pendingWord: \"\", style: .body, text: \"x\"),",
            "-   [1]: UndoDocParagraph(id: 2, isSaving: false, pendingWord: \"\", style: .body, text: \"p2\")",
            "+   [0]: UndoDocParagraph(id: 0, isSaving: false, pendingWord: \"\", style: .body, text: \"p0\"),",
            "+   [1]: UndoDocParagraph(id: 1, isSaving: false, pendingWord: \"\", style: .body, text: \"x\"),",
            "+   [2]: UndoDocParagraph(id: 2, isSaving: false, pendingWord: \"\", style: .body, text: \"p2\")",
            "  ]",
        ]
        #expect(lines.value == [
            "UndoDocument.sections[0].paragraphs[1].text: \"p1\" → \"x\"",
            "ModelUndoStack.canUndo: false → true",
            removed.joined(separator: "\n"),
            restored.joined(separator: "\n"),
            "ModelUndoStack.canRedo: false → true",
            "UndoDocument.sections[0].paragraphs[1].text: \"x\" → \"p1\"",
            "ModelUndoStack.canUndo: true → false",
        ])
    }

    @Test func undoUnderATesterIsAssertedAsStateChanges() async {
        let (document, tester) = UndoDocument.large(sections: 1, paragraphs: 2).andTester()
        let paragraph = document.sections[0].paragraphs[0]
        paragraph.text = "x"
        await tester.assert { paragraph.text == "x" }
        document.sections[0].paragraphs.remove(at: 0)
        await tester.assert { document.sections[0].paragraphs.map(\.id) == [1] }
        document.undoTapped()
        await tester.assert {
            document.sections[0].paragraphs.map(\.id) == [0, 1]
            document.sections[0].paragraphs[0].text == "x"
        }
        document.undoTapped()
        await tester.assert { document.sections[0].paragraphs[0].text == "p0" }
        document.redoTapped()
        await tester.assert { document.sections[0].paragraphs[0].text == "x" }
        await tester.finish()
    }
}

extension ReportedIssueTests {
    @Suite struct UndoDocumentMoveMisuseTests {
        /// Moved in two commits, the paragraph is torn down by the first: the second is reported and
        /// leaves the destructed paragraph in its new section; undo takes back both commits, the
        /// removal's bringing it back live.
        @Test func aParagraphMovedInTwoCommitsIsReportedAndItsRemovalStaysUndoable() async {
            await IssueCapture.run(matching: "UndoDocParagraph") { capture in
                let document = UndoDocument.large(sections: 2, paragraphs: 10).withAnchor()
                let stack = document.node.undoStack
                let paragraph = document.sections[0].paragraphs.remove(at: 1)
                #expect(paragraph.lifetime == .destructed)
                document.sections[1].paragraphs.insert(paragraph, at: 0)
                #expect(capture.issues.map(\.summary) == [
                    "A destructed UndoDocParagraph was added to UndoDocSection.paragraphs; destructed models cannot be anchored again."
                ])
                #expect(capture.issues.first?.fixes.last
                    == "To move a model, add it to its new place before removing it from the old one, or do both in one `node.transaction`.")
                #expect(document.sections[1].paragraphs.map(\.id) == [1, 5, 6, 7, 8, 9])
                #expect(document.sections[1].paragraphs[0].lifetime == .destructed && depth(stack) == (2, 0))

                stack.undo()
                #expect(document.sections[1].paragraphs.map(\.id) == [5, 6, 7, 8, 9])
                stack.undo()
                #expect(document.sections[0].paragraphs.map(\.id) == [0, 1, 2, 3, 4])
                #expect(document.sections[0].paragraphs[1].lifetime == .anchored)
                #expect(capture.messages.count == 1)
            }
        }
    }
}
