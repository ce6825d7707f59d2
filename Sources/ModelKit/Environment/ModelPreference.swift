/// A key for a value that flows up the hierarchy: each model contributes, and a model reads the fold
/// of its own and its descendants' contributions.
///
/// ```swift
/// struct UnsavedCountKey: ModelPreferenceKey {
///     static let defaultValue = 0
///     static func reduce(value: inout Int, nextValue: Int) { value += nextValue }
/// }
/// extension ModelPreferenceValues {
///     var unsavedCount: Int {
///         get { self[UnsavedCountKey.self] } set { self[UnsavedCountKey.self] = newValue }
///     }
/// }
/// ```
///
/// Folds are cached per model and combined from the cached folds of its children, so `reduce` must
/// be associative, as sums, maxima, unions and appends are: then the result is `defaultValue`
/// folded with every contribution, the model's first, then its descendants' depth-first in child
/// order. The name differs from SwiftUI's `PreferenceKey`, so an app can import both.
public protocol ModelPreferenceKey: SendableMetatype {
    /// The type of the value.
    associatedtype Value: Sendable
    /// The fold of no contributions, and the start of every fold.
    static var defaultValue: Value { get }
    /// Combines the fold so far with the next contribution (or the fold of a subtree).
    static func reduce(value: inout Value, nextValue: Value)
}

/// The preference values a model contributes and reads: one property per ``ModelPreferenceKey``,
/// declared in an extension.
///
/// Reach it through ``ModelNode/preference``: writing `node.preference.unsavedCount = 1` sets this
/// model's contribution; reading it gives the fold over the model and all its descendants.
///
/// ```swift
/// func titleEdited() { node.preference.unsavedCount = 1 }
/// var unsavedCount: Int { node.preference.unsavedCount }   // at the root: the whole app's count
/// ```
///
/// - Note: Reads are observable like tracked state: a contribution changed, added or removed below
///   re-runs Observation, `observe` and `onChange(of:)`.
public struct ModelPreferenceValues: Sendable {
    @usableFromInline let source: KeyedSource

    init(_ source: KeyedSource) {
        self.source = source
    }

    /// Reading: the fold of `key` over the model and its descendants. Writing: the model's own
    /// contribution.
    public subscript<Key: ModelPreferenceKey>(key: Key.Type) -> Key.Value {
        @inlinable get {
            // The usual read, of an existing entry, specialized for the key: a fold over a long list is
            // combined again without generic metadata lookups.
            if case .context(let context) = source, let read = context.beginPreferenceRead(ObjectIdentifier(key)) {
                let entry = unsafeDowncast(read.entry, to: PreferenceEntry<Key>.self)
                entry.validate()
                let value = entry.folded.unsafelyUnwrapped
                context.endPreferenceRead(read)
                return value
            }
            return uncachedValue(key)
        }
        set {
            switch source {
            case .context(let context):
                context.setPreference(key, newValue, fileID: #fileID, filePath: #filePath, line: #line, column: #column)
            case .unanchored(let typeName):
                reportUnanchored(typeName, "preference", key: key, suffixes: preferenceSuffixes, isWrite: true)
            case .probe:
                break
            }
        }
    }

    @usableFromInline
    func uncachedValue<Key: ModelPreferenceKey>(_ key: Key.Type) -> Key.Value {
        switch source {
        case .context(let context):
            return context.preferenceValue(key)
        case .unanchored(let typeName):
            reportUnanchored(typeName, "preference", key: key, suffixes: preferenceSuffixes, isWrite: false)
            return Key.defaultValue
        case .probe(let probe):
            probe.found { $0.setPreference(key, nil, fileID: #fileID, filePath: #filePath, line: #line, column: #column) }
            return Key.defaultValue
        }
    }
}

let preferenceSuffixes = ["PreferenceKey"]

extension ModelNode {
    /// The model's preferences: its own contributions (written) and the folds over its subtree (read).
    ///
    /// ```swift
    /// node.preference.unsavedCount = isDirty ? 1 : 0
    /// let total = node.preference.unsavedCount   // this model's and its descendants' together
    /// ```
    ///
    /// - Note: On a model that is not anchored, reads give the key's default and writes are ignored;
    ///   both report a runtime warning (a test failure under a Tester).
    public var preference: ModelPreferenceValues {
        get { ModelPreferenceValues(keyedSource) }
        // Writes go through to the model as each key is set: nothing is left to do here.
        nonmutating set {}
    }

    /// Removes this model's contribution to a preference. Removing one never set does nothing.
    ///
    /// ```swift
    /// func saved() { node.removePreference(\.unsavedCount) }
    /// ```
    public func removePreference<Value>(
        _ keyPath: WritableKeyPath<ModelPreferenceValues, Value>,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        guard let context = context(for: "removePreference", fileID: fileID, filePath: filePath, line: line, column: column)
        else { return }
        let probe = KeyProbe()
        _ = ModelPreferenceValues(.probe(probe))[keyPath: keyPath]
        probe.perform(on: context)
    }
}

/// A preference entry of one context, whatever its key: whether its fold is cached.
///
/// A fold combines the model's contribution with its children's folds, which it keeps in blocks of
/// `blockSize` children, each block's combination cached: a changed child makes its parent combine
/// one block and the blocks' results again, so a fold over a long list stays cheap.
@usableFromInline
class PreferenceFold: KeyedEntry {
    // Safety: guarded by the hierarchy lock.
    /// Whether the fold is up to date. A valid fold implies valid folds below it, so an invalid one
    /// implies that none above it is valid.
    @usableFromInline @exclusivity(unchecked) var isValid = false
    /// The entries of the children, in order, while the tree's shape below is unchanged.
    @usableFromInline @exclusivity(unchecked) var childFolds: [PreferenceFold]?
    /// Whether each block of `childFolds` has its combination cached.
    @usableFromInline @exclusivity(unchecked) var validBlocks: [Bool] = []
    /// The parents' folds this one is combined into, with its position among their children.
    @exclusivity(unchecked) var links: [(parent: PreferenceFold, position: Int)] = []
    /// The key's identifier.
    let keyID: ObjectIdentifier
    /// The context whose entry this is. Held strongly: a parent's `childFolds` may keep the entry of
    /// a removed child until the parent's next reconciliation drops them.
    let context: Context

    @usableFromInline static var blockSize: Int { 32 }

    /// Whether the key's values may hold references. Values that hold none (`_isPOD`) keep nothing
    /// alive, so the caches of an out-of-date fold need not be emptied: its next fold replaces them.
    /// (Known here, out of the generic subclass, whose methods run unspecialized: calling one costs
    /// the metadata lookups of its value type.)
    final let holdsReferences: Bool

    init(index: Int, name: String, keyID: ObjectIdentifier, context: Context, holdsReferences: Bool) {
        self.keyID = keyID
        self.context = context
        self.holdsReferences = holdsReferences
        super.init(index: index, kind: .preference, name: name)
    }

    /// Notes that this fold is child `position` of `parent`'s fold.
    final func link(to parent: PreferenceFold, position: Int) {
        if let existing = links.firstIndex(where: { $0.parent === parent }) {
            links[existing].position = position
        } else {
            links.append((parent, position))
        }
    }

    /// Keeps the fold's value from before the section that invalidates it (the first invalidation
    /// keeps it; reads in between do not replace it), for ``isUnchangedSinceInvalidated()``. Caller
    /// holds the lock, with the fold valid.
    func keepValueBeforeInvalidation() {}

    /// Whether ``keepValueBeforeInvalidation()`` kept a value not compared yet. Guarded by the
    /// hierarchy lock.
    @exclusivity(unchecked) final var hasKeptValue = false

    /// Whether the fold, brought up to date, equals its value from before the section (for an
    /// `Equatable` value); the kept value is dropped either way. A derived change of an unchanged
    /// fold is dropped from its commit, so Observation does not hear of it. Caller holds the lock.
    func isUnchangedSinceInvalidated() -> Bool { false }

    /// Empties what an invalid fold caches (its fold, and the combinations of its blocks not up to
    /// date), which may hold a contribution removed since, into `released`, to release after the
    /// lock; the next read folds again. Called only when ``holdsReferences``. Caller holds the lock,
    /// with the fold invalid.
    func dropCachedValues(into released: inout [Any]) {}

    /// The parents' folds that still hold this one, each having its block invalidated.
    final func invalidateParentBlocks() -> [PreferenceFold] {
        var parents: [PreferenceFold] = []
        for (parent, position) in links {
            guard let folds = parent.childFolds, folds.indices.contains(position), folds[position] === self else { continue }
            parent.validBlocks[position / Self.blockSize] = false
            parents.append(parent)
        }
        return parents
    }
}

/// One preference key of one context: its contribution and the cached fold of its subtree.
@usableFromInline
final class PreferenceEntry<Key: ModelPreferenceKey>: PreferenceFold {
    // Safety: guarded by the hierarchy lock.
    @usableFromInline @exclusivity(unchecked) var contribution: Key.Value?
    /// The contributions of the subtree reduced together; nil when none contributes.
    @usableFromInline @exclusivity(unchecked) var piece: Key.Value?
    /// `defaultValue` reduced with `piece`: what a read returns.
    @usableFromInline @exclusivity(unchecked) var folded: Key.Value?

    override var lastReadValue: Any? { isValid ? folded.map { $0 as Any } : nil }
    /// See `keepValueBeforeInvalidation()`.
    @exclusivity(unchecked) var foldedBeforeSection: Key.Value?

    override func keepValueBeforeInvalidation() {
        if hasKeptValue { return }
        foldedBeforeSection = folded
        hasKeptValue = foldedBeforeSection != nil
    }

    override func isUnchangedSinceInvalidated() -> Bool {
        hasKeptValue = false
        guard let before = foldedBeforeSection else { return false }
        foldedBeforeSection = nil
        guard context.state.isLive else { return false }
        validate()
        guard let now = folded else { return false }
        return valuesAreEqual(before, now) == true
    }

    override func dropCachedValues(into released: inout [Any]) {
        if let piece {
            released.append(piece)
            self.piece = nil
        }
        if let folded {
            released.append(folded)
            self.folded = nil
        }
        for block in blockPieces.indices where !validBlocks[block] {
            if let blockPiece = blockPieces[block] {
                released.append(blockPiece)
                blockPieces[block] = nil
            }
        }
    }

    override func restorer() -> (@Sendable (Context) -> Void)? {
        guard let contribution else { return nil }
        return { context in context.preferenceEntry(Key.self).contribution = contribution }
    }
    /// The combination of each block of children (nil: none of them contributes).
    @usableFromInline @exclusivity(unchecked) var blockPieces: [Key.Value?] = []

    /// Brings the fold up to date, reusing the children's cached folds. Caller holds the lock.
    /// Inlinable, so that it is specialized for the key where the read is.
    ///
    /// Children are validated first, recursively for the first `Hierarchy.maxNesting` levels below
    /// the entry read; deeper ones with an explicit stack (`validateDescendants()`), so that a
    /// chain of 10,000 models does not overflow the thread's stack.
    @inlinable
    func validate(nesting: Int = 0) {
        if isValid { return }
        if nesting >= Int(Hierarchy.maxNesting) { validateDescendants() }
        if childFolds == nil { collectChildren() }
        var piece = contribution
        childFolds.unsafelyUnwrapped.withUnsafeBufferPointer { folds in
            for block in blockPieces.indices {
                if !validBlocks[block] {
                    var combined: Key.Value?
                    for position in (block * Self.blockSize)..<min(folds.count, (block + 1) * Self.blockSize) {
                        // Unretained: `childFolds` holds the children's entries.
                        Unmanaged.passUnretained(folds[position])._withUnsafeGuaranteedRef { fold in
                            let child = unsafeDowncast(fold, to: PreferenceEntry<Key>.self)
                            if !child.isValid { child.validate(nesting: nesting + 1) }
                            Self.combine(&combined, child.piece)
                        }
                    }
                    blockPieces[block] = combined
                    validBlocks[block] = true
                }
                Self.combine(&piece, blockPieces[block])
            }
        }
        self.piece = piece
        var folded = Key.defaultValue
        if let piece { Key.reduce(value: &folded, nextValue: piece) }
        self.folded = folded
        isValid = true
    }

    @inlinable
    static func combine(_ value: inout Key.Value?, _ next: Key.Value?) {
        guard let next else { return }
        if value == nil { value = next } else { Key.reduce(value: &value!, nextValue: next) }
    }

    /// Validates the invalid entries below this one, deepest first, without recursion: each then
    /// finds its children valid. Caller holds the lock.
    @usableFromInline
    func validateDescendants() {
        var order: [PreferenceEntry<Key>] = []
        var stack: [PreferenceEntry<Key>] = [self]
        while let entry = stack.popLast() {
            if entry !== self { order.append(entry) }
            if entry.childFolds == nil { entry.collectChildren() }
            for fold in entry.childFolds.unsafelyUnwrapped {
                let child = unsafeDowncast(fold, to: PreferenceEntry<Key>.self)
                if !child.isValid { stack.append(child) }
            }
        }
        for entry in order.reversed() where !entry.isValid {
            entry.validate(nesting: 0)
        }
    }

    /// Finds the children's entries, in order, after a change of the tree's shape.
    @usableFromInline
    func collectChildren() {
        var folds: [PreferenceFold] = []
        for index in context.schema.childSlotIndices {
            for child in context.slots[index]?.list ?? [] where child.state.isLive {
                let entry = child.preferenceEntry(Key.self)
                entry.link(to: self, position: folds.count)
                folds.append(entry)
            }
        }
        childFolds = folds
        let blocks = (folds.count + Self.blockSize - 1) / Self.blockSize
        blockPieces = Array(repeating: nil, count: blocks)
        validBlocks = Array(repeating: false, count: blocks)
    }
}

extension Context {
    /// This context's entry for `key`, created on first use. Caller holds the lock.
    final func preferenceEntry<Key: ModelPreferenceKey>(_ key: Key.Type) -> PreferenceEntry<Key> {
        if let entry = extras?.values?.preferences[ObjectIdentifier(key)] {
            return unsafeDowncast(entry, to: PreferenceEntry<Key>.self)
        }
        let name = "preference." + keyDisplayName(key, suffixes: preferenceSuffixes)
        let entry = addEntry(.preference) { PreferenceEntry<Key>(
                index: $0, name: name, keyID: ObjectIdentifier(key), context: self, holdsReferences: !_isPOD(Key.Value.self)
            ) }
        ensuredValues.preferences[ObjectIdentifier(key)] = entry
        return entry
    }

    /// Starts the read of an existing preference entry: returns it with the lock held (the caller
    /// validates and reads it); nil, without the lock, when the model has no entry for the key `id`.
    @usableFromInline
    final func beginPreferenceRead(_ id: ObjectIdentifier) -> CachedRead? {
        let locked: Bool
        if lock.tryLockForRead() {
            locked = true
        } else {
            locked = lock.lockForReadSlow()
        }
        if state.isLive, let entry = extras?.values?.preferences[id] {
            return CachedRead(entry: entry, locked: locked)
        }
        if locked { lock.unlockAfterRead() }
        return nil
    }

    /// Ends a read begun by `beginPreferenceRead`: unlocks, then registers the read.
    @usableFromInline
    final func endPreferenceRead(_ read: CachedRead) {
        if read.locked { lock.unlockAfterRead() }
        didRead(read.entry)
        if AccessRecording.isRecordingForAssertion { recordContributors(unsafeDowncast(read.entry, to: PreferenceFold.self).keyID) }
    }

    /// A Tester's assertion reading a fold asserts the contributions folded into it.
    final func recordContributors(_ id: ObjectIdentifier) {
        for (context, index) in withReadLock({ contributors(id) }) where context !== self {
            _ = AccessRecording.record(context, index)
        }
    }

    /// The fold of `key` over this model and its descendants.
    final func preferenceValue<Key: ModelPreferenceKey>(_ key: Key.Type) -> Key.Value {
        let read: (Key.Value, PreferenceEntry<Key>)? = withReadLock {
            guard state.isLive else { return nil }
            let entry = preferenceEntry(key)
            entry.validate()
            return (entry.folded.unsafelyUnwrapped, entry)
        }
        guard let (value, entry) = read else { return Key.defaultValue }
        didRead(entry)
        if AccessRecording.isRecordingForAssertion { recordContributors(ObjectIdentifier(key)) }
        return value
    }

    /// The models of this subtree with an entry for the key `id` (every model that contributes or
    /// contributed), with their entries' indices. Caller holds the lock.
    private final func contributors(_ id: ObjectIdentifier) -> [(Context, Int)] {
        var result: [(Context, Int)] = []
        var visited = VisitedSet()
        var stack = [self]
        while let context = stack.popLast() {
            guard visited.insert(context) else { continue }
            // Every entry, contributing or not: a contribution removed is a change the fold covers.
            if let entry = context.extras?.values?.preferences[id] {
                result.append((context, entry.index))
            }
            stack.append(contentsOf: context.children)
        }
        return result
    }

    /// Sets (or, with nil, removes) this model's contribution to `key`.
    final func setPreference<Key: ModelPreferenceKey>(
        _ key: Key.Type, _ value: Key.Value?,
        fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
    ) {
        let issue: ModelIssue? = hierarchy.withSection {
            guard state.isLive else {
                return rejectedKeyedWrite("preference." + keyDisplayName(key, suffixes: preferenceSuffixes), removing: value == nil)
            }
            let entry = preferenceEntry(key)
            let old = entry.contribution
            if value == nil && old == nil { return nil }
            if let old, let value, valuesAreEqual(old, value) == true { return nil }
            entry.contribution = value
            // No contribution is recorded as `nil`, not as the default value: a first contribution
            // equal to the default (`0` for a count) would otherwise show as `0 → 0`.
            let oldValue: Any = if let old { old } else { Optional<Key.Value>.none as Any }
            let newValue: Any = if let value { value } else { Optional<Key.Value>.none as Any }
            hierarchy.record(PendingChange(context: self, index: entry.index, old: oldValue, new: newValue))
            invalidateFolds(from: entry, structure: false)
            return nil
        }
        // A property setter cannot capture its caller's location: the report names the model and key.
        if let issue { hierarchy.report(issue) }
    }

    /// Marks `entry` (this context's) and the folds above it out of date, queueing a derived change
    /// for each fold above that was up to date. `structure`: this context's children changed. Caller
    /// holds the lock for a section.
    private final func invalidateFolds(from entry: PreferenceFold, structure: Bool) {
        if structure { entry.childFolds = nil }
        guard entry.isValid else { return }
        entry.isValid = false
        var stack = entry.invalidateParentBlocks()
        // What the invalid folds cached (a contribution removed since among it) is emptied now, not
        // at their next read, which may never come: it would keep it alive as long as their models.
        var released: [Any] = []
        if entry.holdsReferences { entry.dropCachedValues(into: &released) }
        defer {
            // Released after the lock: a value's deinit may run any code.
            if !released.isEmpty {
                var batch = TeardownBatch()
                for value in released { batch.releaseLater(value) }
                hierarchy.pendingActions.append(.teardown(batch))
            }
        }
        while let fold = stack.popLast() {
            // An invalid fold has no valid fold above it: nothing more to do there.
            guard fold.isValid, fold.context.state.isLive else {
                if !fold.isValid, fold.holdsReferences { fold.dropCachedValues(into: &released) }
                continue
            }
            // After a change of the tree's shape, the fold may well be what it was (a child that
            // contributes nothing): its value is kept, to compare at the commit. Not after a
            // contribution's change, which changes the folds above it as a rule: comparing would
            // fold them at the commit (in code not specialized for the key) on every such write.
            if structure { fold.keepValueBeforeInvalidation() }
            fold.isValid = false
            if fold.holdsReferences { fold.dropCachedValues(into: &released) }
            hierarchy.record(PendingChange(context: fold.context, index: fold.index, old: nil, new: nil))
            stack.append(contentsOf: fold.invalidateParentBlocks())
        }
    }

    /// Called when a child slot of this model was reconciled: the cached folds here and above are
    /// out of date, and their observers hear of it. Caller holds the lock for a section.
    final func childrenDidChange() {
        guard let preferences = extras?.values?.preferences, !preferences.isEmpty else { return }
        for case let fold as PreferenceFold in preferences.values {
            if fold.isValid {
                fold.keepValueBeforeInvalidation()
                hierarchy.record(PendingChange(context: self, index: fold.index, old: nil, new: nil))
            }
            invalidateFolds(from: fold, structure: true)
        }
    }
}

extension Hierarchy {
    /// Drops from a commit's `changes` the derived changes of preference folds that, brought up to
    /// date, equal their value from before the section, after a change of the tree's shape (a child
    /// that contributes nothing added or removed, children reordered). Observers compare values
    /// themselves; Observation would hear of them. Caller holds the lock.
    func dropUnchangedFolds(_ changes: inout [PendingChange]) {
        let base = KeyedKind.preference.base
        var unchanged: [Int] = []
        for position in changes.indices where changes[position].index >= base {
            let index = changes[position].index - base
            guard let folds = changes[position].context.extras?.values?.orderedPreferences, folds.indices.contains(index) else {
                continue
            }
            // The entries of `orderedPreferences` are folds; most kept no value (a contribution's change).
            let fold = unsafeDowncast(folds[index], to: PreferenceFold.self)
            guard fold.hasKeptValue else { continue }
            // Asked for every fold that kept a value, so that none keeps it for a later commit.
            if fold.isUnchangedSinceInvalidated() && changes[position].new == nil && !changes[position].isTouch {
                unchanged.append(position)
            }
        }
        for position in unchanged.reversed() { changes.remove(at: position) }
    }
}
